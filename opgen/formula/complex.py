"""Formulas computed on complex values (the AICPU kernel's routed COMPLEX64 and COMPLEX128): which formulas have a
complex meaning, their C++ source over std::complex<double> and their numpy evaluation in complex128.

Only + - * / (and negation), real constants, tensors and real scalars, and the functions below have one: each is
holomorphic where defined, with the principal branch numpy, std::complex and torch share. Comparisons, `where`,
min/max, powers and functions without a complex definition (erf, abs, sign, ...) are refused by `complex_problem`.
The kernel computes COMPLEX64 in std::complex<double> and rounds the result once, as DOUBLE's formula runs in
double; the C++ spelling is the function table's (`FUNCTIONS[...].cpp`, e.g. sigmoid as 1 / (1 + exp(-z))), which
std::complex<double> takes as it is (double constants meet std::complex<double> operands).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .cpp import to_cpp
from .functions import FUNCTIONS
from .ir import Binary, Call, Const, Expr, Name, Unary, children, free_names, walk
from .symbols import SymbolKind

_COMPLEX_OPS = ("add", "sub", "mul", "div")
# Functions whose table entry (numpy evaluation and C++ spelling) computes the complex function itself.
COMPLEX_FUNCTIONS = ("exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid", "square")
_SPELLING = {"pow": "'**'", "min": "min()", "max": "max()"}


def complex_problem(expr: Expr) -> str | None:
    """Why `expr` has no complex meaning (the first offending part), or None."""
    for node in walk(expr, unique=True):
        if isinstance(node, Binary) and node.op not in _COMPLEX_OPS:
            return f"{_SPELLING.get(node.op, node.op)} has no complex meaning"
        if isinstance(node, Call) and node.func not in COMPLEX_FUNCTIONS:
            return f"{node.func}() has no complex definition"
        if isinstance(node, Const) and not math.isfinite(node.value):
            return f"the constant {node.value!r} is not a finite number"
        if isinstance(node, Name) and node.kind in (SymbolKind.FLAG, SymbolKind.STRING):
            return f"'{node.name}' selects a mode, which needs a comparison or where()"
        if not isinstance(node, (Binary, Call, Const, Name, Unary)):
            return f"{type(node).__name__.lower()} (a comparison, logic or where()) has no complex meaning"
    return None


def to_cpp_complex(expr: Expr, names: Mapping[str, str]) -> str:
    """C++ source of `expr` over std::complex<double> values; `names` maps formula names to C++ variables (tensors
    std::complex<double>, scalars double)."""
    problem = complex_problem(expr)
    if problem is not None:
        raise ValueError(f"not a complex formula: {problem}")
    return to_cpp(expr, names)


def evaluate_complex(expr: Expr, env: Mapping[str, Any]) -> np.ndarray:
    """`expr` in complex128 (tensors converted to it, scalars real numbers), as the AICPU kernel computes it; the
    result is broadcast to the common shape of the tensors the formula uses."""
    problem = complex_problem(expr)
    if problem is not None:
        raise ValueError(f"not a complex formula: {problem}")
    values: dict[Expr, np.ndarray] = {}
    with np.errstate(all="ignore"):  # inf/nan are values here
        for node in walk(expr, unique=True):
            values[node] = _node_value(node, [values[c] for c in children(node)], env)
    tensors = [np.shape(env[n]) for n in free_names(expr, SymbolKind.TENSOR)]
    result = values[expr]
    return np.array(np.broadcast_to(result, np.broadcast_shapes(np.shape(result), *tensors)))


_NUMPY_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _node_value(node: Expr, operands: list[np.ndarray], env: Mapping[str, Any]) -> np.ndarray:
    if isinstance(node, Const):
        return np.asarray(node.value, np.complex128)
    if isinstance(node, Name):
        return np.asarray(env[node.name]).astype(np.complex128)
    if isinstance(node, Unary):
        return np.negative(operands[0])
    if isinstance(node, Binary):
        return _NUMPY_BINARY[node.op](operands[0], operands[1])
    assert isinstance(node, Call)  # complex_problem admits nothing else
    return np.asarray(FUNCTIONS[node.func].evaluate(*operands), np.complex128)
