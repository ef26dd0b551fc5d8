"""opgen: one YAML spec per operator -> a complete Ascend operator package, runnable on a CPU twin."""

__version__ = "0.1.0"
