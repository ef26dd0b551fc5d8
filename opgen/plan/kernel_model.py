"""Bit-exact numpy model of a kernel's precision path: runs a lowered vector program on host arrays.

Each instruction rounds like the CPU twin (and, for add/sub/mul/div and casts, like the hardware): values
live in the compute dtype, every operation is done in float and rounded to nearest-even into it, scalars
are float32 from the tiling data converted once to the compute type, the function APIs (Exp, Ln, Tanh, ...)
are computed by the function table's float64 model and rounded once. Comparisons with NaN are false.
"""

from __future__ import annotations

from collections.abc import Mapping

import ml_dtypes
import numpy as np
import numpy.typing as npt

from opgen import formula as F
from opgen.plan.lowering import Buffer, Instr, Scalar, VectorProgram
from opgen.spec.dtypes import DType


def _np(dtype: DType) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if dtype is DType.BFLOAT16 else dtype.numpy


def _round(values: npt.ArrayLike, dtype: DType) -> np.ndarray:
    """Round (float32/float64) values once to `dtype`, nearest-even; into an integer dtype, truncate."""
    if dtype.is_integral:
        return _truncate(values, dtype)
    with np.errstate(over="ignore"):  # overflow to inf is the rounding's result
        return np.asarray(values, dtype=np.float64 if dtype is DType.DOUBLE else np.float32).astype(_np(dtype))


def _truncate(values: npt.ArrayLike, dtype: DType) -> np.ndarray:
    """A Cast into an integer dtype as the twin and the hardware do it: integers convert exactly (wrapping
    between integer widths), floating values truncate toward zero and saturate, NaN gives 0."""
    array = np.asarray(values)
    if array.dtype.kind in "iub":
        return array.astype(dtype.numpy)
    info = np.iinfo(dtype.numpy)
    with np.errstate(invalid="ignore"):
        wide = np.nan_to_num(np.trunc(array.astype(np.float64)), nan=0.0)
        return np.clip(wide, info.min, info.max).astype(dtype.numpy)


def _toward_zero(values: np.ndarray, dtype: DType) -> np.ndarray:
    """Round to a floating `dtype` toward zero (CAST_TRUNC): nearest, then one step back where that went
    outward (overflow included: the largest finite value, never infinity)."""
    exact = np.asarray(values).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = exact.astype(np.float32).astype(_np(dtype))
        outward = np.abs(nearest.astype(np.float64)) > np.abs(exact)
    zero = np.zeros((), _np(dtype))
    return np.where(outward, np.nextafter(nearest, zero), nearest).astype(_np(dtype))


def _integer_arith(dtype: DType, fn, *operands: np.ndarray) -> np.ndarray:
    """Integer vector arithmetic: in int64, wrapped to the element width (the twin's integer semantics)."""
    with np.errstate(over="ignore"):
        return fn(*(np.asarray(o).astype(np.int64) for o in operands)).astype(dtype.numpy)


def slot_value(expr: F.Expr, scalars: Mapping[str, float | np.ndarray]) -> np.float32 | np.ndarray:
    """A host-uniform expression as the kernel's scalar unit computes it: float32 step by step (a scalar may be an
    array of one value per row, broadcasting against the rows: a reduction's per-row result)."""
    f32 = np.float32
    if isinstance(expr, F.Const):
        return f32(expr.value)
    if isinstance(expr, F.Name):
        return f32(scalars[expr.name])
    if isinstance(expr, F.Unary):
        return np.negative(slot_value(expr.x, scalars))
    assert isinstance(expr, F.Binary)
    a, b = slot_value(expr.a, scalars), slot_value(expr.b, scalars)
    with np.errstate(all="ignore"):
        value = {
            "add": lambda: f32(a + b),
            "sub": lambda: f32(a - b),
            "mul": lambda: f32(a * b),
            "div": lambda: f32(a / b),
            "min": lambda: np.asarray(np.where(a < b, a, b), np.float32),
            "max": lambda: np.asarray(np.where(a > b, a, b), np.float32),
        }[expr.op]()
    return np.asarray(value, np.float32)


def _arith(dtype: DType, fn, *operands: np.ndarray) -> np.ndarray:
    """One vector operation: computed in float32 (float64 for double) and rounded into `dtype`."""
    if dtype.is_integral:
        return _integer_arith(dtype, fn, *operands)
    wide = np.float64 if dtype is DType.DOUBLE else np.float32
    with np.errstate(all="ignore"):
        return _round(fn(*(np.asarray(o).astype(wide) for o in operands)), dtype)


def _transcendental(dtype: DType, fn, operand: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _round(fn(np.asarray(operand).astype(np.float64)), dtype)


_COMPARE = {
    "LT": np.less,
    "GT": np.greater,
    "LE": np.less_equal,
    "GE": np.greater_equal,
    "EQ": np.equal,
    "NE": np.not_equal,
}


def run_program(program: VectorProgram, inputs: Mapping[str, np.ndarray], scalars: Mapping[str, float]) -> np.ndarray:
    """The kernel's (first) output for flattened inputs (storage dtype); elementwise, so tiling does not matter."""
    return run_program_outputs(program, inputs, scalars)[program.output.name]


def run_program_outputs(
    program: VectorProgram, inputs: Mapping[str, np.ndarray], scalars: Mapping[str, float | np.ndarray]
) -> dict[str, np.ndarray]:
    """Every output of the kernel by name (`out` for a one-output kernel), as `run_program` computes it. Inputs
    of any one shape; a scalar may be an array broadcasting against it (one value per row, shape (rows, 1))."""
    compute = program.compute
    values: dict[Buffer, np.ndarray] = {b: np.asarray(inputs[b.name]).astype(_np(b.dtype)) for b in program.inputs}
    slots = {slot.name: _round(slot_value(slot.expr, scalars), compute) for slot in program.slots}

    def scalar(s: Scalar) -> np.ndarray:
        if s.slot is not None:
            return slots[s.slot]
        return _round(np.float32(s.constant), compute)

    for instr in program.instrs:
        values[instr.dst] = _execute(instr, values, scalar, compute)
    return {buffer.name: values[buffer] for buffer in program.outputs}


def _execute(instr: Instr, values, scalar, compute: DType) -> np.ndarray:
    api = instr.api
    src = [values[s] for s in instr.srcs]
    dtype = instr.dst.dtype
    if api == "Cast":
        if dtype.is_integral:
            return _truncate(src[0], dtype)
        if instr.mode == "CAST_TRUNC":
            return _toward_zero(src[0], dtype)
        return _round(src[0].astype(np.float32), dtype)
    if api in ("Compare", "CompareScalar"):
        assert instr.mode is not None  # the comparison's CMPMODE
        other = src[1] if api == "Compare" else scalar(instr.scalar)
        with np.errstate(invalid="ignore"):
            return _COMPARE[instr.mode](src[0], other)
    if api == "Select":
        other = src[2] if len(src) == 3 else scalar(instr.scalar)
        return np.where(src[0], src[1], other).astype(_np(dtype))
    if api == "Duplicate":
        reference = next(iter(values.values()))
        return np.broadcast_to(scalar(instr.scalar), reference.shape).astype(_np(dtype))
    if api == "LeakyRelu":
        s = scalar(instr.scalar)
        return np.where(np.signbit(src[0]), _arith(dtype, np.multiply, src[0], s), src[0]).astype(_np(dtype))
    binary = {
        "Add": np.add,
        "Sub": np.subtract,
        "Mul": np.multiply,
        "Div": np.divide,
        "Max": np.maximum,
        "Min": np.minimum,
    }
    if api in binary:
        return _arith(dtype, binary[api], src[0], src[1])
    with_scalar = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum}
    if api in with_scalar:
        return _arith(dtype, with_scalar[api], src[0], scalar(instr.scalar))
    function_api = F.VECTOR_APIS.get(api)
    if function_api is not None:
        # Exp, Ln, Sqrt, Rsqrt, Reciprocal, Abs, Tanh, Erf, Sigmoid, Sign, Floor, Trunc: the function table's
        # float64 model rounded once (for Reciprocal the same as float division: double rounding through
        # float64 is innocuous for +-*/ and sqrt)
        return _transcendental(dtype, function_api.model, src[0])
    raise NotImplementedError(f"no numpy model for {api}")
