"""Helpers the test modules share (import as `from support.<module> import ...`; tests/ is on sys.path).

- `text`: where a marker stands in a spec text (the line a diagnostic must name);
- `floats`: bit patterns and distances in units in the last place;
- `programs`: running a compiled twin program with a clean environment, and its one-line check failures.

Fixtures live in conftest.py files: `torch` (tests/conftest.py), `specs` (tests/build/conftest.py).
"""
