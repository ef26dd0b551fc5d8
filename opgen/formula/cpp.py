"""IR -> a scalar C++ expression (double arithmetic), for the AICPU kernel and host-side code.

NaN behaviour follows the reference: comparisons with NaN are false, so `where` takes the else branch;
min/max propagate NaN like PyTorch (the helpers come from `CPP_HELPERS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .ir import Binary, BoolConst, Call, Compare, Const, Expr, Logical, Name, Select, Unary

CPP_HELPERS = """\
inline double FormulaMin(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b); }
inline double FormulaMax(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); }
inline double FormulaSign(double a) { return std::isnan(a) ? 0.0 : (a > 0.0) - (a < 0.0); }
"""

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_CALL = {
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
}


def _double_literal(value: float) -> str:
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    text = repr(float(value))
    return f"({text})" if text.startswith("-") else text


def to_cpp(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """C++ source of `expr`; `names` maps formula names to C++ variables (default: the same name)."""
    names = names or {}

    def emit(node: Expr) -> str:
        if isinstance(node, Const):
            return _double_literal(node.value)
        if isinstance(node, BoolConst):
            return "true" if node.value else "false"
        if isinstance(node, Name):
            return names.get(node.name, node.name)
        if isinstance(node, Unary):
            return f"(-{emit(node.x)})"
        if isinstance(node, Binary):
            if node.op in _BINARY:
                return f"({emit(node.a)} {_BINARY[node.op]} {emit(node.b)})"
            if node.op == "pow":
                return f"std::pow({emit(node.a)}, {emit(node.b)})"
            return f"Formula{'Min' if node.op == 'min' else 'Max'}({emit(node.a)}, {emit(node.b)})"
        if isinstance(node, Compare):
            return f"({emit(node.a)} {_COMPARE[node.op]} {emit(node.b)})"
        if isinstance(node, Logical):
            if node.op == "not":
                return f"(!{emit(node.args[0])})"
            return f"({emit(node.args[0])} {'&&' if node.op == 'and' else '||'} {emit(node.args[1])})"
        if isinstance(node, Call):
            return _CALL[node.func].format(emit(node.args[0]))
        if isinstance(node, Select):
            return f"({emit(node.cond)} ? {emit(node.a)} : {emit(node.b)})"
        raise TypeError(f"not a formula IR node: {node!r}")

    return emit(expr)
