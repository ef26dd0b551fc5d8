"""C++ source text: string literals (plain and printf-format), comments, float literals, reserved names, reads."""

from __future__ import annotations

import math
import re

from opgen.lang import Code, python

_NAMED = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "?": "\\?"}


def _escape(text: str) -> str:
    out = []
    for char in text:
        point = ord(char)
        if char in _NAMED:
            out.append(_NAMED[char])
        elif point < 0x20 or point == 0x7F:
            out.append(f"\\{point:03o}")  # octal stops after three digits, unlike \x
        elif 0xD800 <= point <= 0xDFFF or not char.isprintable():
            out.append(f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}")
        else:
            out.append(char)
    return "".join(out)


def string(text: str) -> Code:
    """A narrow string literal holding `text` (UTF-8 as written; controls, quotes, backslashes escaped)."""
    return Code(f'"{_escape(text)}"')


def format_string(text: str) -> Code:
    """A printf-style format literal that prints `text` verbatim (every `%` doubled)."""
    return string(text.replace("%", "%%"))


def comment(text: str) -> Code:
    """Text for one `//` comment line: no line break, and no trailing backslash that would splice the next line."""
    single = "".join(_NAMED.get(c, c) if c in "\n\r" else c for c in text)
    single = "".join(c if c.isprintable() or c == "\t" else f"\\u{ord(c):04x}" for c in single)
    if single.rstrip().endswith("\\"):
        single = single.rstrip() + " (end)"
    return Code(single)


def float_literal(value: float, ctype: str = "float") -> Code:
    """A literal of `ctype` (float or double); NaN and infinities as compiler builtins (no header needed)."""
    value = float(value)
    single = ctype == "float"
    if math.isnan(value):
        return Code('__builtin_nanf("")' if single else '__builtin_nan("")')
    if math.isinf(value):
        return Code(("-" if value < 0 else "") + ("__builtin_inff()" if single else "__builtin_inf()"))
    return Code(repr(value) + ("f" if single else ""))


def int_literal(value: int) -> Code:
    """An integer literal of int64_t's range; the most negative value as an expression (-9223372036854775808 would
    be the negation of a literal no signed type holds)."""
    value = int(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{value} is outside int64_t")
    if value == -(2**63):
        return Code("(-9223372036854775807LL - 1)")
    return Code(str(value) + ("LL" if not -(2**31) <= value < 2**31 else ""))


KEYWORDS = frozenset(
    {
        "alignas",
        "alignof",
        "and",
        "and_eq",
        "asm",
        "auto",
        "bitand",
        "bitor",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "char8_t",
        "char16_t",
        "char32_t",
        "class",
        "compl",
        "concept",
        "const",
        "consteval",
        "constexpr",
        "constinit",
        "const_cast",
        "continue",
        "co_await",
        "co_return",
        "co_yield",
        "decltype",
        "default",
        "delete",
        "do",
        "double",
        "dynamic_cast",
        "else",
        "enum",
        "explicit",
        "export",
        "extern",
        "false",
        "float",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "not_eq",
        "nullptr",
        "operator",
        "or",
        "or_eq",
        "private",
        "protected",
        "public",
        "register",
        "reinterpret_cast",
        "requires",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "static_assert",
        "static_cast",
        "struct",
        "switch",
        "template",
        "this",
        "thread_local",
        "throw",
        "true",
        "try",
        "typedef",
        "typeid",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "wchar_t",
        "while",
        "xor",
        "xor_eq",
        "final",
        "override",
        "import",
        "module",
    }
)
# Names the generated C++ or its headers define as macros, types or functions in the scopes where parameter
# and operator names land: the C library (libm above all), the ACL/aclnn API and the Ascend C kernel API.
LIBC_NAMES = frozenset(
    {
        "abs",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "cbrt",
        "ceil",
        "copysign",
        "cos",
        "cosh",
        "erf",
        "erfc",
        "exp",
        "exp2",
        "expm1",
        "fabs",
        "fdim",
        "floor",
        "fma",
        "fmax",
        "fmin",
        "fmod",
        "frexp",
        "hypot",
        "ilogb",
        "ldexp",
        "lgamma",
        "llrint",
        "llround",
        "log",
        "log10",
        "log1p",
        "log2",
        "logb",
        "lrint",
        "lround",
        "modf",
        "nan",
        "nearbyint",
        "nextafter",
        "pow",
        "remainder",
        "rint",
        "round",
        "scalbn",
        "signbit",
        "sin",
        "sinh",
        "sqrt",
        "tan",
        "tanh",
        "tgamma",
        "trunc",
        "isnan",
        "isinf",
        "isfinite",
        "fpclassify",
        "div",
        "exit",
        "abort",
        "free",
        "malloc",
        "calloc",
        "realloc",
        "memcpy",
        "memset",
        "memmove",
        "strlen",
        "printf",
        "fprintf",
        "sprintf",
        "snprintf",
        "puts",
        "assert",
        "errno",
        "stdin",
        "stdout",
        "stderr",
        "NULL",
        "EOF",
        "NAN",
        "INFINITY",
        "main",
        "time",
        "clock",
        "signal",
        "raise",
        "select",
        "index",
        "y0",
        "y1",
        "j0",
        "j1",
        "yn",
        "jn",
        "gamma",
        "random",
    }
)
FRAMEWORK_NAMES = frozenset(
    {
        "op",
        "std",
        "ge",
        "gert",
        "AscendC",
        "optiling",
        "aclTensor",
        "aclScalar",
        "aclOpExecutor",
        "aclnnStatus",
        "aclrtStream",
        "aclDataType",
        "aclFormat",
        "executor",
        "workspaceSize",
        "workspace",
        "stream",
        "uniqueExecutor",
        "l0op",
        "tiling",
        "context",
        "GM_ADDR",
        "KERNEL_TYPE",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "size_t",
        "half",
        "bfloat16_t",
    }
)


def reserved_reason(name: str) -> str | None:
    """Why `name` cannot be a C++ identifier in generated code, or None when it can."""
    if not name.isidentifier() or not name.isascii():
        return "is not a C++ identifier"
    if name in KEYWORDS:
        return "is a C++ keyword"
    if name in LIBC_NAMES:
        return "is a C library (libm) name"
    if name in FRAMEWORK_NAMES:
        return "is a name the CANN/Ascend C framework or the generated code uses"
    if name.startswith("_") or "__" in name:
        return "is reserved in C++ (leading underscore or double underscore)"
    return None


def without_outer_parentheses(expression: str) -> str:
    """`expression` without a pair of parentheses around all of it (`if ((a && b))` reads `if (a && b)`); C++
    parentheses and string literals follow Python's rule."""
    return python.without_outer_parentheses(expression)


def reads(text: str, name: str) -> bool:
    """Whether generated C++ `text` reads the variable `name` (not a member or a qualified name spelled the same)."""
    return re.search(rf"(?<![\w:.>]){re.escape(name)}\b(?!\s*::)", text) is not None
