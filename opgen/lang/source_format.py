"""Every generated source laid out by its language's formatter: Python by `ruff format`, C++ by `clang-format`."""

from __future__ import annotations

from opgen.lang.cpp_format import format_cpp
from opgen.lang.python_format import format_python


def format_sources(files: dict[str, str]) -> dict[str, str]:
    """`files` (relative path -> text) with each Python and C++ file formatted, by one run of each formatter."""
    return format_cpp(format_python(files))
