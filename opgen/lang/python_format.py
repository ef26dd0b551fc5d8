"""Formatting of the generated Python: every `.py`/`.pyi` file of a build in one `ruff format` process.

Emitters render Python close to its final layout but leave line wrapping to the formatter. Black did this
per file and cost three quarters of a build; `ruff format` produces the same layout (black's style, checked
by tests/lang/test_python_format.py) for all files of a build at once, some 25 times faster. The version is
pinned in pyproject.toml, because generated files are committed and must not change with the formatter.
"""

from __future__ import annotations

from pathlib import Path

from opgen.lang.formatter_run import format_in_scratch
from opgen.lang.python import LINE_LENGTH

PYTHON_SUFFIXES = (".py", ".pyi")


class FormatterError(RuntimeError):
    """The formatter could not run or refused a generated file (a generator bug, never a spec's)."""


def _ruff() -> str:
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError as exc:  # pragma: no cover - ruff is a dependency of opgen
        raise FormatterError("the `ruff` package is needed to format generated Python") from exc
    return str(find_ruff_bin())


def format_python(files: dict[str, str]) -> dict[str, str]:
    """`files` (relative path -> source) with every Python file formatted; other files unchanged."""

    def command(scratch: Path, names: list[str]) -> list[str]:
        return [
            _ruff(),
            "format",
            "--isolated",  # no user or project configuration: the output depends on the input alone
            "--no-cache",
            "--line-length",
            str(LINE_LENGTH),
            "--target-version",
            "py311",
            "--quiet",
            str(scratch),
        ]

    def error(stderr: str) -> Exception:
        return FormatterError(f"ruff format failed on generated Python: {stderr}")

    return format_in_scratch(files, PYTHON_SUFFIXES, command, error)
