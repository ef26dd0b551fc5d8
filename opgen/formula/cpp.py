"""IR -> a scalar C++ expression (double arithmetic), for the AICPU kernel and host-side code.

NaN behaviour follows the reference: comparisons with NaN are false, so `where` takes the else branch;
min/max propagate NaN like PyTorch (the helpers come from `CPP_HELPERS`).
"""

from __future__ import annotations

from collections.abc import Mapping

from opgen.lang import cpp

from .ir import Expr
from .source_printer import Dialect, print_source

CPP_HELPERS = """\
inline double FormulaMin(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b); }
inline double FormulaMax(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); }
inline double FormulaSign(double a) { return std::isnan(a) ? 0.0 : (a > 0.0) - (a < 0.0); }
"""


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
    calls={
        "exp": "std::exp({})",
        "log": "std::log({})",
        "sqrt": "std::sqrt({})",
        "abs": "std::fabs({})",
        "tanh": "std::tanh({})",
        "erf": "std::erf({})",
        "log1p": "std::log1p({})",
        "expm1": "std::expm1({})",
        "sigmoid": "(1.0 / (1.0 + std::exp(-({}))))",
        "rsqrt": "(1.0 / std::sqrt({}))",
        "reciprocal": "(1.0 / ({}))",
        "sign": "FormulaSign({})",
    },
    select="({c} ? {a} : {b})",
)


def to_cpp(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """C++ source of `expr`; `names` maps formula names to C++ variables (default: the same name)."""
    return print_source(expr, CPP, names)
