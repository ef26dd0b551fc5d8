"""IR -> numpy source text (float64 semantics of the reference), for standalone generated test files.

The emitted expression uses only `np` and the helpers in `NUMPY_HELPERS`, so a generated file can carry
the spec's reference implementation without importing opgen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .ir import Binary, BoolConst, Call, Compare, Const, Expr, Logical, Name, Select, Unary

NUMPY_HELPERS = """\
def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _sign(x):
    return np.where(np.isnan(x), 0.0, np.sign(x))
"""

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_CALL = {
    "exp": "np.exp({})",
    "log": "np.log({})",
    "sqrt": "np.sqrt({})",
    "abs": "np.abs({})",
    "tanh": "np.tanh({})",
    "erf": "_erf({})",
    "log1p": "np.log1p({})",
    "expm1": "np.expm1({})",
    "sigmoid": "_sigmoid({})",
    "rsqrt": "(1.0 / np.sqrt({}))",
    "reciprocal": "(1.0 / {})",
    "sign": "_sign({})",
}


def _literal(value: float) -> str:
    if math.isnan(value):
        return "np.nan"
    if math.isinf(value):
        return "np.inf" if value > 0 else "(-np.inf)"
    text = repr(float(value))
    return f"({text})" if text.startswith("-") else text


def to_numpy(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """Python source computing `expr` with numpy (operands float64 arrays or scalars, flags bools)."""
    names = names or {}

    def emit(node: Expr) -> str:
        if isinstance(node, Const):
            return _literal(node.value)
        if isinstance(node, BoolConst):
            return "True" if node.value else "False"
        if isinstance(node, Name):
            return names.get(node.name, node.name)
        if isinstance(node, Unary):
            return f"(-{emit(node.x)})"
        if isinstance(node, Binary):
            if node.op in _BINARY:
                return f"({emit(node.a)} {_BINARY[node.op]} {emit(node.b)})"
            return f"np.{'minimum' if node.op == 'min' else 'maximum'}({emit(node.a)}, {emit(node.b)})"
        if isinstance(node, Compare):
            return f"({emit(node.a)} {_COMPARE[node.op]} {emit(node.b)})"
        if isinstance(node, Logical):
            if node.op == "not":
                return f"np.logical_not({emit(node.args[0])})"
            function = "np.logical_and" if node.op == "and" else "np.logical_or"
            return f"{function}({emit(node.args[0])}, {emit(node.args[1])})"
        if isinstance(node, Call):
            return _CALL[node.func].format(emit(node.args[0]))
        if isinstance(node, Select):
            return f"np.where({emit(node.cond)}, {emit(node.a)}, {emit(node.b)})"
        raise TypeError(f"not a formula IR node: {node!r}")

    return emit(expr)
