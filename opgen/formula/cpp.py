"""IR -> a scalar C++ expression (double arithmetic), for the AICPU kernel and host-side code.

NaN behaviour follows the reference: comparisons with NaN are false, so `where` takes the else branch;
min/max propagate NaN and keep their first argument on a tie (-0.0 vs 0.0), the printer putting first the operand
PyTorch keeps (`tie_operands`; the helpers come from `CPP_HELPERS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from opgen.lang import cpp

from .functions import FUNCTIONS, cpp_helper_source
from .ir import Binary, Call, Expr, walk
from .source_printer import Dialect, print_source

_MIN_MAX = """\
inline double FormulaMin(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (b < a ? b : a); }
inline double FormulaMax(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? b : a); }
"""
# min/max (structural) and every helper the function table's spellings call; a generated file takes `cpp_helpers`.
CPP_HELPERS = _MIN_MAX + cpp_helper_source()


def cpp_helpers(exprs: Iterable[Expr]) -> str:
    """Source of the helper functions `to_cpp` of these expressions calls, and no other ("" if none)."""
    nodes = [n for e in exprs for n in walk(e, unique=True)]
    min_max = any(isinstance(n, Binary) and n.op in ("min", "max") for n in nodes)
    return (_MIN_MAX if min_max else "") + cpp_helper_source({n.func for n in nodes if isinstance(n, Call)})


def _double_literal(value: float) -> str:
    text = cpp.float_literal(value, "double")  # the one C++ float formatter
    return f"({text})" if text.startswith("-") else text


CPP = Dialect(
    literal=_double_literal,
    true="true",
    false="false",
    infix={"add": "+", "sub": "-", "mul": "*", "div": "/"},
    binary_calls={"pow": "std::pow({a}, {b})", "min": "FormulaMin({a}, {b})", "max": "FormulaMax({a}, {b})"},
    logical={"and": "({a} && {b})", "or": "({a} || {b})", "not": "(!{a})"},
    calls={name: function.cpp for name, function in FUNCTIONS.items()},
    select="({c} ? {a} : {b})",
    string=lambda value: str(cpp.string(value)),
    string_compare={"eq": "(std::strcmp({a}, {b}) == 0)", "ne": "(std::strcmp({a}, {b}) != 0)"},
    name="the AICPU kernel's C++ (one element at a time)",
)


def to_cpp(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """C++ source of `expr`; `names` maps formula names to C++ variables (default: the same name)."""
    return print_source(expr, CPP, names)
