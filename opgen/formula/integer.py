"""Formulas computed in an integer dtype itself (the AICPU kernel's routed integer dtypes): which formulas may be,
their C++ source (each arithmetic step wrapping modulo 2**bits, as ops-nn's integer Add and torch do) and their
numpy evaluation with the same wrapping.

Only + - * min max, comparisons, logic, where and integral constants have an exact integer meaning; anything
else (division, powers, math functions, fractional constants, inf/nan) is refused by `integer_problem`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from opgen.lang import cpp

from .grammar import REDUCTION_SPELLING
from .ir import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    Expr,
    Logical,
    Name,
    Reduce,
    Select,
    Str,
    Unary,
    children,
    free_names,
    is_string,
    walk,
)
from .numpy_source import NUMPY
from .source_printer import COMPARE_SYMBOLS, print_source
from .symbols import SymbolKind

_INTEGER_OPS = ("add", "sub", "mul", "min", "max")
_SPELLING = {"div": "'/'", "pow": "'**'"}


def integer_problem(expr: Expr) -> str | None:
    """Why `expr` cannot be computed exactly in an integer dtype (the first offending part), or None."""
    for node in walk(expr, unique=True):
        if isinstance(node, Binary) and node.op not in _INTEGER_OPS:
            return f"{_SPELLING.get(node.op, node.op)} has no exact integer meaning"
        if isinstance(node, Call):
            return f"{node.func}() has no exact integer meaning"
        if isinstance(node, Reduce):
            return f"{REDUCTION_SPELLING[node.op]}() (a reduction along dim) has no integer kernel"
        if isinstance(node, Const) and not (math.isfinite(node.value) and node.value.is_integer()):
            return f"the constant {node.value!r} is not an integer"
        if isinstance(node, Const) and abs(node.value) >= 2.0**63:
            return f"the constant {node.value!r} is outside int64"
    return None


# C++: the helpers the printed expression calls, templated on the element type T. Each step goes through
# uint64_t, whose arithmetic is modulo 2**64, and back to T, which keeps the low bits: the wrapped result of
# T's width without signed overflow (undefined) or the int promotion of narrow types (uint16 * uint16 in int).
CPP_INTEGER_HELPERS = """\
template <typename T>
inline T IntegerAdd(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
template <typename T>
inline T IntegerSub(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
template <typename T>
inline T IntegerMul(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
template <typename T>
inline T IntegerNeg(T a) { return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a)); }
template <typename T>
inline T IntegerMin(T a, T b) { return a < b ? a : b; }
template <typename T>
inline T IntegerMax(T a, T b) { return a > b ? a : b; }
"""
_CPP_CALLS = {"add": "IntegerAdd", "sub": "IntegerSub", "mul": "IntegerMul", "min": "IntegerMin", "max": "IntegerMax"}


def to_cpp_integer(expr: Expr, names: Mapping[str, str], element_type: str = "T") -> str:
    """C++ source of `expr` over values of the integer type `element_type`; `names` maps formula names to C++
    variables already of that type (flags are bool). Literals are printed in the type (wrapped into it, as a
    conversion does)."""
    problem = integer_problem(expr)
    if problem is not None:
        raise ValueError(f"not an integer formula: {problem}")
    emitted: dict[Expr, str] = {}
    for node in walk(expr, unique=True):
        operands = [emitted[c] for c in children(node)]
        emitted[node] = _cpp_node(node, operands, names, element_type)
    return emitted[expr]


def _cpp_node(node: Expr, operands: list[str], names: Mapping[str, str], t: str) -> str:
    if isinstance(node, Const):
        return f"static_cast<{t}>({cpp.int_literal(int(node.value))})"
    if isinstance(node, BoolConst):
        return "true" if node.value else "false"
    if isinstance(node, Name):
        return names.get(node.name, node.name)
    if isinstance(node, Unary):
        return f"IntegerNeg<{t}>({operands[0]})"
    if isinstance(node, Binary):
        return f"{_CPP_CALLS[node.op]}<{t}>({operands[0]}, {operands[1]})"
    if isinstance(node, Compare):
        if is_string(node.a):
            op = "==" if node.op == "eq" else "!="
            return f"(std::strcmp({operands[0]}, {operands[1]}) {op} 0)"
        return f"({operands[0]} {COMPARE_SYMBOLS[node.op]} {operands[1]})"
    if isinstance(node, Logical):
        if node.op == "not":
            return f"(!{operands[0]})"
        return f"({operands[0]} {'&&' if node.op == 'and' else '||'} {operands[1]})"
    if isinstance(node, Select):
        c, a, b = operands
        return f"static_cast<{t}>({c} ? {a} : {b})"
    if isinstance(node, Str):
        return str(cpp.string(node.value))
    raise TypeError(f"not an integer formula node: {node!r}")


_NUMPY_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum, "max": np.maximum}
_NUMPY_COMPARE = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}


def evaluate_integer(expr: Expr, env: Mapping[str, Any], dtype: Any) -> np.ndarray:
    """`expr` computed in the numpy integer `dtype` (tensors and scalars converted into it, wrapping as a C++
    conversion does; flags as bools); numpy's integer arithmetic wraps modulo 2**bits like the kernel's. The result
    is broadcast to the common shape of the tensors the formula uses."""
    problem = integer_problem(expr)
    if problem is not None:
        raise ValueError(f"not an integer formula: {problem}")
    dtype = np.dtype(dtype)
    values: dict[Expr, np.ndarray] = {}
    with np.errstate(over="ignore"):
        for node in walk(expr, unique=True):
            values[node] = _numpy_node(node, [values[c] for c in children(node)], env, dtype)
    tensors = [np.shape(env[n]) for n in free_names(expr, SymbolKind.TENSOR)]
    result = values[expr]
    return np.array(np.broadcast_to(result, np.broadcast_shapes(np.shape(result), *tensors)))


def _in_dtype(value: Any, dtype: np.dtype) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind == "f":  # an integral float (a scalar the op_api truncated): exact through int64
        array = array.astype(np.int64)
    return array.astype(dtype)  # integer to integer keeps the low bits (wraps)


def _numpy_node(node: Expr, operands: list[np.ndarray], env: Mapping[str, Any], dtype: np.dtype) -> np.ndarray:
    if isinstance(node, Const):
        return _in_dtype(np.int64(int(node.value)), dtype)
    if isinstance(node, BoolConst):
        return np.asarray(node.value)
    if isinstance(node, Str):
        return np.asarray(node.value, dtype=object)
    if isinstance(node, Name):
        value = env[node.name]
        if node.kind in (SymbolKind.FLAG, SymbolKind.STRING):
            return np.asarray(value, dtype=object if node.kind is SymbolKind.STRING else np.bool_)
        return _in_dtype(value, dtype)
    if isinstance(node, Unary):
        return np.negative(operands[0]).astype(dtype)
    if isinstance(node, Binary):
        return _NUMPY_BINARY[node.op](operands[0], operands[1]).astype(dtype)
    if isinstance(node, Compare):
        if is_string(node.a):
            same = operands[0].item() == operands[1].item()
            return np.asarray(same if node.op == "eq" else not same)
        return _NUMPY_COMPARE[node.op](operands[0], operands[1])
    if isinstance(node, Logical):
        if node.op == "not":
            return np.logical_not(operands[0])
        return (np.logical_and if node.op == "and" else np.logical_or)(operands[0], operands[1])
    if isinstance(node, Select):
        return np.where(operands[0], operands[1], operands[2]).astype(dtype)
    raise TypeError(f"not an integer formula node: {node!r}")


# numpy source: integer literals, so that numpy keeps the arrays' integer dtype (a Python int is a weak scalar) and
# its integer arithmetic wraps as the kernel's does.
def _python_int(value: float) -> str:
    return f"({int(value)})" if value < 0 else str(int(value))


# an integer has one zero, so numpy's min/max are torch's (and need no helper in the generated file)
_NUMPY_INTEGER = replace(
    NUMPY, literal=_python_int, binary_calls={"min": "np.minimum({a}, {b})", "max": "np.maximum({a}, {b})"}
)


def to_numpy_integer(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """Python source computing `expr` with numpy over integer arrays of one dtype (scalars Python ints inside its
    range), every step in that dtype."""
    problem = integer_problem(expr)
    if problem is not None:
        raise ValueError(f"not an integer formula: {problem}")
    return print_source(expr, _NUMPY_INTEGER, names)
