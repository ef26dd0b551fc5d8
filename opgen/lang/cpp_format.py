"""Formatting of the generated C++: every C++ file of a build laid out by `clang-format` in ops-nn's style.

Emitters render C++ close to its final layout; clang-format settles indentation, wrapping and alignment, so
generated files read like ops-nn's own sources and an ops-nn reviewer's `clang-format --dry-run` is clean. The
style below states ops-nn's `.clang-format` settings; the build also writes it as `OUT/.clang-format`, so any
editor or `clang-format -style=file` in the tree uses the same rules. The clang-format wheel is pinned in
pyproject.toml because generated files are committed and must not change with the formatter.
"""

from __future__ import annotations

from pathlib import Path

from opgen.lang.formatter_run import format_in_scratch

CPP_SUFFIXES = (".cpp", ".h", ".hpp", ".cc")

# The style file's name: clang-format looks for it in a file's folder and its parents.
STYLE_FILE_NAME = ".clang-format"

# ops-nn's style (Google's, with 4-space indents, 120 columns, braces after functions, `T* p`), as settings in the
# order a .clang-format lists them. Each value is a YAML scalar or a nested mapping.
STYLE: dict[str, object] = {
    "BasedOnStyle": "Google",
    "ColumnLimit": 120,
    "AccessModifierOffset": -4,
    "SortIncludes": False,
    "BreakBeforeBraces": "Custom",
    "BraceWrapping": {
        "AfterCaseLabel": False,
        "AfterClass": False,
        "AfterControlStatement": False,
        "AfterEnum": False,
        "AfterFunction": True,
        "AfterNamespace": False,
        "AfterStruct": False,
        "AfterUnion": False,
        "AfterExternBlock": False,
        "BeforeCatch": False,
        "BeforeElse": False,
        "IndentBraces": False,
        "SplitEmptyFunction": False,
        "SplitEmptyRecord": True,
        "SplitEmptyNamespace": True,
    },
    "AlignAfterOpenBracket": "Align",
    "PenaltyBreakAssignment": 1000,
    "AlignEscapedNewlines": "Left",
    "AlignOperands": True,
    "AlignTrailingComments": True,
    "AllowAllArgumentsOnNextLine": True,
    "AllowAllParametersOfDeclarationOnNextLine": True,
    "AlwaysBreakBeforeMultilineStrings": False,
    "AlwaysBreakTemplateDeclarations": True,
    "BinPackArguments": True,
    "BreakBeforeTernaryOperators": False,
    "SpacesBeforeTrailingComments": 1,
    "DerivePointerAlignment": False,
    "PointerAlignment": "Left",
    "AllowShortBlocksOnASingleLine": False,
    "AllowShortCaseLabelsOnASingleLine": False,
    "AllowShortFunctionsOnASingleLine": True,
    "AllowShortIfStatementsOnASingleLine": False,
    "AllowShortLoopsOnASingleLine": False,
    "UseTab": "Never",
    "IndentWidth": 4,
    "TabWidth": 4,
}


class CppFormatterError(RuntimeError):
    """clang-format could not run or refused a generated file (a generator bug, never a spec's)."""


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def style_file_text() -> str:
    """The `.clang-format` file of STYLE."""
    lines = ["---"]
    for key, value in STYLE.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines.extend(f"  {inner}: {_scalar(setting)}" for inner, setting in value.items())
        else:
            lines.append(f"{key}: {_scalar(value)}")
    lines.append("...")
    return "\n".join(lines) + "\n"


def clang_format_executable() -> str:
    try:
        import clang_format
    except ImportError as exc:  # pragma: no cover - clang-format is a dependency of opgen
        raise CppFormatterError("the `clang-format` package is needed to format generated C++") from exc
    return str(clang_format.get_executable("clang-format"))


def format_cpp(files: dict[str, str]) -> dict[str, str]:
    """`files` (relative path -> source) with every C++ file formatted; other files unchanged."""

    def command(scratch: Path, names: list[str]) -> list[str]:
        style = scratch / STYLE_FILE_NAME
        style.write_text(style_file_text(), encoding="utf-8")
        return [clang_format_executable(), "-i", f"--style=file:{style}", *names]

    def error(stderr: str) -> Exception:
        return CppFormatterError(f"clang-format failed on generated C++: {stderr}")

    return format_in_scratch(files, CPP_SUFFIXES, command, error)
