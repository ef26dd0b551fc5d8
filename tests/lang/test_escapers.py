"""Escapers: whatever the text, the literal holds exactly it and cannot end early or run code."""

from __future__ import annotations

import ast
import shutil
import subprocess

import pytest

from opgen.lang import Code, cpp, data, join, markdown, python

NASTY = [
    "",
    "plain",
    'quote " inside',
    "apostrophe ' inside",
    "both ' and \"",
    '"""; import os; os.system("echo pwned"); """',
    "'''",
    "trailing backslash \\",
    "\\",
    "new\nline",
    "carriage\rreturn",
    "nul \0 byte",
    "tab\tand\x0bvertical",
    "unicode 中文 é ✓",
    "line\u2028separator",
    "lone \ud800 surrogate",
    "astral \U0001f600",
    "*/ /* close comment",
    "%n %s %d format",
    "??= ??/ trigraphs",
    "${VAR} $(x) ;list",
    "--> end html comment <!--",
    "| table | cell |",
]


@pytest.mark.parametrize("text", NASTY)
def test_python_string_round_trips(text: str) -> None:
    literal = python.string(text)
    assert ast.literal_eval(literal) == text
    assert "\n" not in literal and "\0" not in literal


@pytest.mark.parametrize("text", NASTY)
def test_python_docstring_round_trips(text: str) -> None:
    source = f'def f():\n    """{python.docstring_body(text)}"""\n    return 1\n'
    module = ast.parse(source)
    assert len(module.body) == 1  # nothing escaped the docstring
    assert ast.get_docstring(module.body[0], clean=False) == text


@pytest.mark.parametrize("text", NASTY)
def test_python_comment_stays_one_line(text: str) -> None:
    source = f"# {python.comment(text)}\nx = 1\n"
    assert ast.parse(source).body[0].targets[0].id == "x"
    assert len(source.splitlines()) == 2


def test_python_float_literal() -> None:
    assert python.float_literal(float("nan")) == "math.nan"
    assert python.float_literal(float("-inf")) == "-math.inf"
    assert python.float_literal(-0.0) == "-0.0"
    assert python.literal(True) == "True" and python.literal(3) == "3"


def test_python_reserved_names() -> None:
    for name in ("class", "lambda", "_rt", "np", "bool", "match"):
        assert python.reserved_reason(name), name
    assert python.reserved_reason("negative_slope") is None


def test_cpp_reserved_names() -> None:
    for name in ("int", "delete", "float", "and", "tanh", "exp", "executor", "__x", "_Up"):
        assert cpp.reserved_reason(name), name
    assert cpp.reserved_reason("negativeSlope") is None


@pytest.mark.parametrize("text", NASTY)
def test_cpp_comment_stays_one_line(text: str) -> None:
    line = cpp.comment(text)
    assert "\n" not in line and "\r" not in line
    assert not line.rstrip().endswith("\\")


@pytest.mark.parametrize("text", NASTY)
def test_markdown_comment_cannot_close(text: str) -> None:
    assert "-->" not in markdown.comment(text) and "\n" not in markdown.comment(text)
    assert "\n" not in markdown.cell(text) and "|" not in markdown.cell(text).replace("\\|", "")


@pytest.mark.parametrize("text", NASTY)
def test_json_string_round_trips(text: str) -> None:
    import json

    assert json.loads(data.json_string(text)) == text
    assert "\n" not in data.hash_comment(text)


def test_join_refuses_plain_text() -> None:
    assert join([Code("a"), Code("b")], ", ") == "a, b"
    with pytest.raises(TypeError):
        join([Code("a"), "b"], ", ")  # type: ignore[list-item]


@pytest.mark.cxx
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_cpp_literals_hold_the_text(tmp_path) -> None:
    """One C++ program prints every literal; its output is exactly the texts (encodable ones)."""
    texts = [t for t in NASTY if "\ud800" not in t]
    lines = ["#include <cstdio>", "int main() {"]
    for text in texts:
        lines.append(f"  // {cpp.comment(text)}")
        lines.append(f"  std::fputs({cpp.string(text)}, stdout); std::fputc(0x1e, stdout);")
        lines.append(f"  std::printf({cpp.format_string(text)}); std::fputc(0x1e, stdout);")
    lines.append("  return 0;\n}\n")
    source = tmp_path / "literals.cpp"
    source.write_text("\n".join(lines), encoding="utf-8")
    subprocess.run(
        [
            "g++",
            "-std=c++17",
            "-Wall",
            "-Werror",
            "-Wno-format-zero-length",
            "-Wno-format-contains-nul",
            "-o",
            tmp_path / "p",
            source,
        ],
        check=True,
    )
    out = subprocess.run([tmp_path / "p"], capture_output=True, check=True).stdout
    printed = out.split(b"\x1e")[:-1]
    expected = []
    for text in texts:
        raw = text.encode("utf-8")
        expected += [raw.split(b"\0")[0], raw.split(b"\0")[0]]  # a C string ends at its first NUL
    assert printed == expected


def test_outer_parentheses_are_dropped_only_around_the_whole_expression() -> None:
    """gen_data printed `if bool((np.float32(lambd) < 0.0)):`, which ruff's UP034 refuses (a lone reject_if
    comparison, e.g. aclnnSoftshrink's `lambd < 0`)."""
    from opgen.lang.python import without_outer_parentheses

    assert without_outer_parentheses("((np.float32(lambd) < 0.0))") == "np.float32(lambd) < 0.0"
    assert without_outer_parentheses("(a) + (b)") == "(a) + (b)"
    assert without_outer_parentheses("(f(a) and g(b))") == "f(a) and g(b)"
    assert without_outer_parentheses("(x == ')(')") == "x == ')('"
    assert without_outer_parentheses("(x == '\\'(')") == "x == '\\'('"


def test_cpp_int_literal_compiles_for_every_int64() -> None:
    # -9223372036854775808 would negate a literal no signed type holds; INT32's extremes stay plain literals
    assert cpp.int_literal(-(2**63)) == "(-9223372036854775807LL - 1)"
    assert cpp.int_literal(2**63 - 1) == "9223372036854775807LL"
    assert cpp.int_literal(-(2**31)) == "-2147483648" and cpp.int_literal(7) == "7"
    with pytest.raises(ValueError):
        cpp.int_literal(2**63)
