"""Python source text: string and docstring literals, comments, float literals, reserved names."""

from __future__ import annotations

import keyword
import math
import re
import unicodedata

from opgen.lang import Code

# Characters a Python literal may hold as they are: printable and not a line break of any kind.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _escape_char(char: str, quote: str) -> str:
    if char == "\\":
        return "\\\\"
    if char == quote:
        return "\\" + quote
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if char in named:
        return named[char]
    point = ord(char)
    if char.isprintable() and char not in _LINE_BREAKS and not 0xD800 <= point <= 0xDFFF:
        return char
    if point < 0x100:
        return f"\\x{point:02x}"
    if point < 0x10000:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def string(text: str) -> Code:
    """A str literal holding exactly `text`; double quotes unless that needs more escapes (black's rule)."""
    quote = "'" if '"' in text and "'" not in text else '"'
    return Code(quote + "".join(_escape_char(c, quote) for c in text) + quote)


def docstring_body(text: str) -> Code:
    """Text for inside a non-raw triple-quoted docstring: it cannot close the string or hold a NUL.

    Every quote and backslash is escaped, so neither a `\"\"\"` nor a trailing backslash can end the literal.
    """
    out = []
    for char in text:
        if char == "\n":
            out.append(char)
        elif char == '"':
            out.append('\\"')
        else:
            out.append(_escape_char(char, '"'))
    return Code("".join(out))


def comment(text: str) -> Code:
    """One `#` comment line's text: line breaks and control characters are shown escaped."""
    return Code("".join(c if c == "\\" else _escape_char(c, "") for c in text))


# The line length of the project's Python ([tool.ruff] line-length), which generated Python keeps to.
LINE_LENGTH = 120


def line_width(text: str) -> int:
    """Columns a line takes as ruff counts them for E501: East Asian wide and fullwidth characters take two,
    combining and format characters none."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def float_literal(value: float) -> Code:
    """A float expression; non-finite values need `import math` in the generated module."""
    value = float(value)
    if math.isnan(value):
        return Code("math.nan")
    if math.isinf(value):
        return Code("math.inf" if value > 0 else "-math.inf")
    return Code(repr(value))


def literal(value: object) -> Code:
    """A Python expression for None, bool, int, float, str and lists, tuples and dicts of them."""
    if value is None or isinstance(value, bool):
        return Code(repr(value))
    if isinstance(value, int):
        return Code(str(value))
    if isinstance(value, float):
        return float_literal(value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, list):
        return Code("[" + ", ".join(literal(v) for v in value) + "]")
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return Code("(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")")
    if isinstance(value, dict):
        return Code("{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}")
    raise TypeError(f"no Python literal for {type(value).__name__}")


KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
# Builtins the generated function bodies call; shadowing any other builtin inside a function is harmless.
BUILTINS = frozenset(
    {"bool", "float", "int", "complex", "str", "tuple", "list", "dict", "len", "range", "isinstance", "type"}
    | {"zip", "print", "any", "all", "abs", "sum", "open", "object", "getattr", "sorted", "enumerate", "None"}
    | {"ValueError", "TypeError", "RuntimeError", "Exception", "OSError", "AssertionError"}
)
# Module-level names the generated Python uses (opgen_ops, golden tests and scripts): a parameter with
# one of these names would hide it inside the generated function.
GENERATED_MODULE_NAMES = frozenset(
    {"np", "math", "ml_dtypes", "torch", "pytest", "opgen_ops", "argparse", "pathlib", "sys", "os", "annotations"}
)


def reserved_reason(name: str) -> str | None:
    """Why `name` cannot be a Python identifier in generated code, or None when it can."""
    if not name.isidentifier():
        return "is not a Python identifier"
    if name in KEYWORDS:
        return "is a Python keyword"
    if name.startswith("_"):
        return "starts with '_', which generated Python keeps for its own names"
    if name in BUILTINS:
        return "is a Python builtin that generated code uses"
    if name in GENERATED_MODULE_NAMES:
        return "is a module name the generated Python uses"
    return None


def _natural_key(name: str) -> tuple[tuple[int, int, str], ...]:
    # runs of digits compare by value, the rest by character
    return tuple((0, int(part), part) if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part)


def dunder_all_order(names: list[str]) -> list[str]:
    """`names` in the order ruff's RUF022 wants an `__all__` in (isort style): SCREAMING_CASE names, then
    CamelCase, then the rest, each group in natural order (`f_s7` before `f_s40`)."""

    def group(name: str) -> int:
        if name.isupper() and any(c.isalpha() for c in name):
            return 0
        return 1 if name[:1].isupper() else 2

    return sorted(names, key=lambda name: (group(name), _natural_key(name)))


def without_outer_parentheses(expression: str) -> str:
    """`expression` without a pair of parentheses around all of it (ruff's UP034 refuses `bool((a < b))`)."""
    while expression.startswith("(") and expression.endswith(")") and _closes_at_end(expression):
        expression = expression[1:-1]
    return expression


def _closes_at_end(expression: str) -> bool:
    """Whether the opening parenthesis is closed by the last character (parentheses in string literals ignored)."""
    depth, quote, escaped = 0, "", False
    for index, char in enumerate(expression):
        if quote:
            escaped, quote = (False, quote) if escaped else (char == "\\", "" if char == quote else quote)
            continue
        if char in "'\"":
            quote = char
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0:
                return index == len(expression) - 1
    return False
