"""numpy reference implementation of formulas: the golden that generated kernels are judged against.

Everything is computed in float64 with numpy broadcasting and rounded once to the output dtype.
Semantics follow PyTorch: comparisons with NaN are false (so `where` takes the else branch), `min`
and `max` propagate NaN and, on a tie (-0.0 against 0.0), keep the tensor operand against a host-known bound (clamp,
relu), else the first (torch.minimum/maximum); each math function is evaluated by its record in the function table
(`functions.py`), e.g. `sign(nan)` is 0 (torch.sign). A reduction (rowmax, rowsum) reduces its operand, broadcast to
the shape of all the formula's tensors, along the `axis` the caller gives (the operator's dim) and keeps that axis
(length 1), so it broadcasts back along the row; a 0-d tensor is one row of one element, and an empty row's max is
-inf, its sum 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ml_dtypes
import numpy as np

from .functions import FUNCTIONS, MIN_MAX_HELPERS, REDUCTION_HELPERS
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
    has_reduction,
    is_string,
    tie_operands,
    varies_along_row,
    walk,
)
from .symbols import SymbolKind

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "min": MIN_MAX_HELPERS["min"],
    "max": MIN_MAX_HELPERS["max"],
}

COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}

_BF16_MANTISSA_BITS = 8  # including the implicit bit
_BF16_MIN_NORMAL_EXP = -126
_BF16_SUBNORMAL_STEP_EXP = -133


def round_to_dtype(values: np.ndarray, dtype: Any) -> np.ndarray:
    """Round float64 `values` once (to nearest, ties to even) into `dtype`.

    numpy rounds float64 -> float32/float16 correctly; ml_dtypes converts float64 -> bfloat16 through
    float32 (double rounding), so bfloat16 is rounded here by hand and then converted exactly.
    """
    values = np.asarray(values, dtype=np.float64)
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):  # overflow to inf is the rounding's correct result
        if dtype != np.dtype(ml_dtypes.bfloat16):
            return values.astype(dtype)
        mantissa, exponent = np.frexp(values)  # values = mantissa * 2**exponent, |mantissa| in [0.5, 1)
        normal = np.ldexp(np.rint(np.ldexp(mantissa, _BF16_MANTISSA_BITS)), exponent - _BF16_MANTISSA_BITS)
        step = 2.0**_BF16_SUBNORMAL_STEP_EXP
        subnormal = np.rint(values / step) * step
        finite = np.isfinite(values)
        tiny = np.abs(values) < 2.0**_BF16_MIN_NORMAL_EXP
        rounded = np.where(finite, np.where(tiny, subnormal, normal), values)
        rounded = np.copysign(rounded, values)  # keep the sign of values that round to zero
        return rounded.astype(dtype)


def evaluate(
    expr: Expr,
    env: Mapping[str, np.ndarray | float | bool | str],
    out_dtype: Any = None,
    *,
    axis: int | None = None,
    keepdims: bool = True,
) -> np.ndarray:
    """Value of `expr` for the inputs in `env`, computed in float64 and rounded once to `out_dtype`.

    Tensors (any numeric dtype, bfloat16 included) are upcast to float64; scalars are numbers; flags
    are bools. The result is broadcast to the common shape of all tensors the formula uses (0-d if
    it uses none). `out_dtype=None` returns the float64 values unrounded; boolean formulas give bool.

    A formula with reductions needs `axis`, the dimension of that common shape they reduce along (negative counts
    from the end). `keepdims=False` removes it from the result, for a formula with one value per row (it reads
    tensors only inside reductions, as a loss per row): otherwise a ValueError.
    """
    tensors = [np.shape(_lookup(env, n)) for n in free_names(expr, SymbolKind.TENSOR)]
    shape = np.broadcast_shapes(*tensors)
    if has_reduction(expr) or not keepdims:
        axis = _row_axis(expr, shape, axis, keepdims)
    values: dict[Expr, np.ndarray] = {}
    with np.errstate(all="ignore"):  # inf/nan are values here, and where() computes both branches
        for node in walk(expr, unique=True):
            operands = [values[c] for c in children(node)]
            if isinstance(node, Reduce):
                assert axis is not None
                values[node] = REDUCTION_HELPERS[node.op](operands[0], axis, shape)
            else:
                values[node] = _evaluate_node(node, operands, env)
    result = values[expr]
    if keepdims:
        result = np.array(np.broadcast_to(result, np.broadcast_shapes(np.shape(result), shape)))
    else:  # one value per row: the common shape with the row's axis of length 1, then without it
        assert axis is not None
        row = shape[:axis] + (1,) + shape[axis + 1 :] if shape else ()
        result = np.array(np.broadcast_to(result, row))
        result = np.squeeze(result, axis=axis) if shape else result
    if result.dtype == np.bool_:
        return result if out_dtype is None else result.astype(out_dtype)
    return result if out_dtype is None else round_to_dtype(result, out_dtype)


def _row_axis(expr: Expr, shape: tuple[int, ...], axis: int | None, keepdims: bool) -> int:
    """`axis` as an index into `shape` (a 0-d shape: 0, one row of one element), checked."""
    if axis is None:
        raise ValueError("evaluate: the formula reduces along the operator's dim (rowmax/rowsum): give the axis")
    rank = max(len(shape), 1)
    if not -rank <= axis < rank:
        raise ValueError(f"evaluate: axis {axis} is outside the {len(shape)}-d shape {shape}")
    if not keepdims and varies_along_row(expr):
        raise ValueError("evaluate: keepdims=False needs one value per row (tensors read only inside reductions)")
    return axis % rank


def _lookup(env: Mapping[str, Any], name: str) -> Any:
    try:
        return env[name]
    except KeyError:
        raise ValueError(f"evaluate: no value given for '{name}'") from None


def _evaluate_node(node: Expr, operands: list[np.ndarray], env: Mapping[str, Any]) -> np.ndarray:
    # Constants and flags are 0-d arrays: numpy's ufuncs treat them as the numpy scalars they return.
    if isinstance(node, Const):
        return np.asarray(node.value, dtype=np.float64)
    if isinstance(node, BoolConst):
        return np.asarray(node.value, dtype=np.bool_)
    if isinstance(node, Str):
        return np.asarray(node.value, dtype=object)
    if isinstance(node, Name) and node.kind is SymbolKind.STRING:
        value = _lookup(env, node.name)
        if not isinstance(value, str):
            raise ValueError(f"evaluate: string '{node.name}' needs a str, got {value!r}")
        return np.asarray(value, dtype=object)
    if isinstance(node, Name):
        value = _lookup(env, node.name)
        if node.kind is SymbolKind.FLAG:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"evaluate: flag '{node.name}' needs a bool, got {value!r}")
            return np.asarray(value, dtype=np.bool_)
        array = np.asarray(value)
        numeric = array.dtype == np.bool_ or np.issubdtype(array.dtype, np.number)
        if not numeric and array.dtype != np.dtype(ml_dtypes.bfloat16):
            raise ValueError(f"evaluate: '{node.name}' needs numbers, got dtype {array.dtype}")
        if node.kind is SymbolKind.SCALAR and array.ndim != 0:
            raise ValueError(f"evaluate: scalar '{node.name}' needs a single number, got shape {array.shape}")
        return array.astype(np.float64)
    if isinstance(node, Unary):
        return np.negative(operands[0])
    if isinstance(node, Binary):
        if node.op in ("min", "max") and tie_operands(node)[0] is not node.a:
            return BINARY[node.op](operands[1], operands[0])  # the operand kept on a tie first
        return BINARY[node.op](*operands)
    if isinstance(node, Compare):
        if is_string(node.a):  # two strings (the type rules): equal or not, one host-known answer
            same = operands[0].item() == operands[1].item()
            return np.asarray(same if node.op == "eq" else not same, dtype=np.bool_)
        return COMPARE[node.op](*operands)
    if isinstance(node, Logical):
        if node.op == "not":
            return np.logical_not(operands[0])
        return (np.logical_and if node.op == "and" else np.logical_or)(*operands)
    if isinstance(node, Call):
        return FUNCTIONS[node.func].evaluate(*(np.asarray(o, dtype=np.float64) for o in operands))
    if isinstance(node, Select):
        return np.where(*operands)
    raise TypeError(f"not a formula IR node: {node!r}")
