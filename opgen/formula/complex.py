"""Formulas computed on complex values (the AICPU kernel's routed COMPLEX64 and COMPLEX128): which formulas have a
complex meaning, their C++ source over std::complex<double> and their numpy evaluation in complex128.

Only + - * / (and negation), real constants, tensors and real scalars, and the functions below have one: each is
holomorphic where defined, with the principal branch numpy, std::complex and torch share. Comparisons, `where`,
min/max, powers and functions without a complex definition (erf, abs, sign, ...) are refused by `complex_problem`.
The kernel computes COMPLEX64 in std::complex<double> and rounds the result once, as DOUBLE's formula runs in
double. sigmoid, rsqrt, reciprocal and square are written out (sigmoid as 1 / (1 + exp(-z))), and every division
is Smith's, as numpy's and torch's scalar complex division (c10::complex): C's own complex division recovers
infinities (1 / (inf + nan i) is 0 there, NaN in numpy and torch).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from .cpp import CPP
from .functions import FUNCTIONS
from .grammar import REDUCTION_SPELLING
from .ir import Binary, Call, Const, Expr, Name, Reduce, Unary, children, free_names, rewrite, walk
from .source_printer import print_source
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
        if isinstance(node, Reduce):
            return f"{REDUCTION_SPELLING[node.op]}() (a reduction along dim) has no complex kernel"
        if isinstance(node, Name) and node.kind in (SymbolKind.FLAG, SymbolKind.STRING):
            return f"'{node.name}' selects a mode, which needs a comparison or where()"
        if not isinstance(node, (Binary, Call, Const, Name, Unary)):
            return f"{type(node).__name__.lower()} (a comparison, logic or where()) has no complex meaning"
    return None


def _one_over(x: Expr) -> Expr:
    return Binary("div", Const(1.0), x)


# The functions written out in + - * / and the ones left (exp, log, sqrt, tanh: std:: and numpy spell them alike).
_WRITTEN_OUT = {
    "sigmoid": lambda x: _one_over(Binary("add", Const(1.0), Call("exp", (Unary("neg", x),)))),
    "rsqrt": lambda x: _one_over(Call("sqrt", (x,))),
    "reciprocal": _one_over,
    "square": lambda x: Binary("mul", x, x),
}


def complex_form(expr: Expr) -> Expr:
    """`expr` with sigmoid, rsqrt, reciprocal and square written out, as the kernel and the model compute them."""
    problem = complex_problem(expr)
    if problem is not None:
        raise ValueError(f"not a complex formula: {problem}")
    return rewrite(
        expr, lambda n: _WRITTEN_OUT[n.func](n.args[0]) if isinstance(n, Call) and n.func in _WRITTEN_OUT else n
    )


# Smith's division, as numpy's complex division and c10::complex's.
CPP_COMPLEX_HELPERS = """\
inline std::complex<double> ComplexDivide(const std::complex<double>& a, const std::complex<double>& b)
{
    const double c = b.real();
    const double d = b.imag();
    if (std::fabs(c) >= std::fabs(d)) {
        if (c == 0.0 && d == 0.0) {
            return {a.real() / std::fabs(c), a.imag() / std::fabs(c)};
        }
        const double ratio = d / c;
        const double scale = 1.0 / (c + d * ratio);
        return {(a.real() + a.imag() * ratio) * scale, (a.imag() - a.real() * ratio) * scale};
    }
    const double ratio = c / d;
    const double scale = 1.0 / (d + c * ratio);
    return {(a.real() * ratio + a.imag()) * scale, (a.imag() * ratio - a.real()) * scale};
}
"""
_CPP_COMPLEX = replace(
    CPP,
    infix={op: text for op, text in CPP.infix.items() if op != "div"},
    binary_calls={"div": "ComplexDivide({a}, {b})"},
    calls={name: FUNCTIONS[name].cpp for name in ("exp", "log", "sqrt", "tanh")},
)


def to_cpp_complex(expr: Expr, names: Mapping[str, str]) -> str:
    """C++ source of `expr` over std::complex<double> values (calling CPP_COMPLEX_HELPERS); `names` maps formula
    names to C++ variables (tensors std::complex<double>, scalars double)."""
    return print_source(complex_form(expr), _CPP_COMPLEX, names)


def evaluate_complex(expr: Expr, env: Mapping[str, Any]) -> np.ndarray:
    """`expr` in complex128 (tensors converted to it, scalars real numbers), as the AICPU kernel computes it; the
    result is broadcast to the common shape of the tensors the formula uses."""
    expr = complex_form(expr)
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
