"""The precision an operator's docs state: its aclnn output against the float64 formula, per dtype.

The output is the bit-exact model of the generated path (opgen.plan.aclnn_path: casts, the lowered AI Core
program or the AICPU formula, scalars as float32), which the tests hold equal to the CPU twin's output on the
same points; the reference is the formula in float64 on the very inputs the kernel received (already in the
dtype), so the figures are the kernel's own error, not the inputs' rounding. The points are deterministic: a
grid with a power-of-two step over the golden value range (so the integers and halves where branches switch
are on it, e.g. ±3 for hardswish), each tensor in its own fixed shuffle, every special value, for each
combination of golden scalar values the error table accepts. A complex dtype's points take such values as both
parts, and its errors are moduli, |out - reference| (ulps and the smallest normal of its parts' format). A formula
reducing along dim (rowmax, rowsum) takes its points in rows of ROW_POINTS (the last dim; the golden dim values):
each output element's error is measured against its row's float64 reference.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from opgen import formula
from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.kernel import KernelPlan
from opgen.spec.channel_broadcast import pointwise
from opgen.spec.diagnostics import FieldPath
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference, kernel_formulas
from opgen.spec.model import OpSpec

GRID_POINTS = 2048  # at least this many grid points over the value range
ROW_POINTS = 16  # a formula reducing along dim: points per row (a row of the grid's values and the specials)
MAX_SCALAR_COMBINATIONS = 8
SEED = 20261126
# Significand bits after the point, and the smallest normal exponent, of each floating dtype (for ulps).
_FORMAT = {
    DType.FLOAT16: (10, -14),
    DType.BFLOAT16: (7, -126),
    DType.FLOAT: (23, -126),
    DType.DOUBLE: (52, -1022),
}
# A half-split operator's points: the split tensor is 1-d (or (1, N) at rank 2), its halves joined along its last dim.
SPLIT_DIM = -1
# A complex dtype's parts are in this floating dtype's format; its errors are measured as moduli (|out - reference|).
_PARTS = {DType.COMPLEX64: DType.FLOAT, DType.COMPLEX128: DType.DOUBLE}


@dataclass(frozen=True)
class PrecisionRow:
    """One dtype's figures over every point measured."""

    dtype: DType
    points: int  # input points per scalar combination
    scalar_sets: int  # combinations of scalar values measured
    max_abs_error: float  # over points where both the output and the reference are finite
    max_rel_error: float  # same, where |reference| is at least the dtype's smallest normal
    max_ulp_error: float  # in units in the last place of the dtype at the reference
    special_mismatches: int  # points where one is NaN or infinite and the other is not the same
    fail_ratio: float | None  # fraction failing the golden tolerance (None: the spec states none)
    output: str = ""  # the computed output measured (each of several has its rows)


def measure_precision(spec: OpSpec, kernel: KernelPlan) -> tuple[PrecisionRow, ...]:
    """A row per floating dtype of the first tensor input that the golden tolerances cover, for each computed
    output in turn."""
    rows = []
    for output in spec.formula.computed:
        if output in spec.formula.reduce:
            continue  # a per-channel sum: its error depends on the shape summed over, not on the points
        for dtype in spec.tensor_inputs[0].dtypes:
            if (dtype in _FORMAT or dtype in _PARTS) and dtype in spec.golden.tolerance:
                rows.append(_measure(spec, kernel, dtype, output))
    return tuple(rows)


def sweep_inputs(spec: OpSpec, dtype: DType) -> dict[str, np.ndarray]:
    """The measured input points: one array per tensor input, in `dtype`, but for a one-element input, which holds a
    scalar set's value (`with_held_values`)."""
    lo, hi = spec.golden.value_range
    step = 2.0 ** math.floor(math.log2((hi - lo) / GRID_POINTS)) if hi > lo else 1.0
    grid = np.arange(math.ceil(lo / step), math.floor(hi / step) + 1, dtype=np.float64) * step
    specials = np.array([float(v) for v in spec.golden.special_values], dtype=np.float64)
    rng = np.random.default_rng(SEED)
    # those hold a scalar set's value
    names = [p.name for p in spec.tensor_inputs if not p.shape.one_element]
    split = spec.split
    if split is not None:  # the halves meet point by point: a column each, joined along the last dim (SPLIT_DIM)
        names = [*split.halves, *(n for n in names if n != split.tensor)]
    columns = {name: rng.permutation(grid) for name in names}
    for name in names:  # each special value in each tensor, the others at grid values
        for other in names:
            extra = specials if other == name else rng.choice(grid, specials.size)
            columns[other] = np.concatenate([columns[other], extra])
    if dtype.is_complex:  # imaginary parts: the same points in another shuffle, so each part meets every value
        columns = {name: _complex(values, rng.permutation(values)) for name, values in columns.items()}
    channels = [p.name for p in spec.tensor_inputs if p.shape.channel_of]
    with np.errstate(over="ignore"):  # a special value beyond the dtype's range rounds to inf, as the kernel's input
        stored = {name: values.astype(dtype.numpy) for name, values in columns.items()}
    if split is not None:
        first, second = (stored.pop(half) for half in split.halves)
        stored = {split.tensor: np.concatenate([first, second]), **stored}
    if any(formula.has_reduction(expr) for expr in kernel_formulas(spec).values()):  # rows of ROW_POINTS
        fill = (-next(iter(stored.values())).size) % ROW_POINTS
        padding = {name: rng.choice(grid, fill).astype(dtype.numpy) for name in stored}
        stored = {name: np.concatenate([v, padding[name]]).reshape(-1, ROW_POINTS) for name, v in stored.items()}
        return pointwise(stored, channels)
    # within the rank ranges: 1-d points as (1, N) where rank 2 is needed (GeluMul's input); a channel input holds
    # its own shape
    shaped = pointwise(stored, channels)
    return {
        name: values if name in channels else values.reshape(spec.within_rank(values.shape, SPLIT_DIM))
        for name, values in shaped.items()
    }


def with_held_values(
    spec: OpSpec, inputs: dict[str, np.ndarray], values: dict[str, float | bool | int | str], dtype: DType
) -> tuple[dict[str, np.ndarray], dict[str, float | bool | int | str]]:
    """(the tensor inputs, the scalars) of one scalar set: a one-element tensor input (FatreluMul's threshold) holds
    its value of the set, stored in `dtype`, and is no scalar."""
    held = [p.name for p in spec.tensor_inputs if p.shape.one_element]
    with np.errstate(over="ignore"):  # a value beyond the dtype's range rounds to inf, as the kernel's input
        tensors = inputs | {n: np.full((1,), float(values[n])).astype(dtype.numpy) for n in held}
    return tensors, {n: v for n, v in values.items() if n not in held}


def _complex(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    values = real.astype(np.complex128)  # (real + 1j * imag would turn an infinite part into NaN)
    values.imag = imag
    return values


def sweep_scalar_sets(spec: OpSpec) -> list[dict[str, float | bool | int | str]]:
    """The measured scalar and flag values: golden combinations the error table accepts, the first few. A half
    split's dim parameter is SPLIT_DIM (the points are 1-d, `sweep_inputs`), not its golden values."""
    split_dim = spec.split.dim if spec.split is not None and isinstance(spec.split.dim, str) else None
    options = spec.golden_scalar_values()
    if split_dim:
        options[split_dim] = [SPLIT_DIM]
    accepted = []
    for combo in itertools.product(*options.values()):
        values = dict(zip(options, combo, strict=True))
        if not spec.rejects_scalars(values):
            accepted.append(values)
        if len(accepted) == MAX_SCALAR_COMBINATIONS:
            break
    return accepted


def _ulp(reference: np.ndarray, dtype: DType) -> np.ndarray:
    bits, min_exponent = _FORMAT[_PARTS.get(dtype, dtype)]
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.abs(reference)))
    return np.exp2(np.maximum(exponent, min_exponent) - bits)


def _parts(out: np.ndarray, reference: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    if np.iscomplexobj(out):
        return [(out.real, reference.real), (out.imag, reference.imag)]
    return [(out, reference)]


def _measure(spec: OpSpec, kernel: KernelPlan, dtype: DType, output: str) -> PrecisionRow:
    inputs = sweep_inputs(spec, dtype)
    dtypes = dict.fromkeys([p.name for p in spec.tensor_inputs], dtype)
    tolerance = spec.golden.tolerance.get(dtype)
    scalar_sets = sweep_scalar_sets(spec)
    abs_error = rel_error = ulp_error = 0.0
    mismatches = failing = total = 0
    for values in scalar_sets:
        inputs, scalars = with_held_values(spec, inputs, values, dtype)
        wide = np.complex128 if dtype.is_complex else np.float64
        out = aclnn_output(spec, kernel, inputs, dtypes, scalars, dtype, output).astype(wide)
        reference = evaluate_reference(spec, {**inputs, **scalars}, None, output).astype(wide)
        total += out.size
        finite = np.isfinite(out) & np.isfinite(reference)  # a complex value: both parts finite
        same_special = np.ones(out.shape, dtype=bool)
        for got, want in _parts(out, reference):  # a complex value: each part the same special value
            same_special &= (np.isnan(got) & np.isnan(want)) | (~np.isnan(want) & (got == want))
        mismatches += int(np.count_nonzero(~finite & ~same_special))
        error = np.abs(out[finite] - reference[finite])
        magnitude = np.abs(reference)[finite]
        if error.size:
            abs_error = max(abs_error, float(error.max()))
            normal = magnitude >= 2.0 ** _FORMAT[_PARTS.get(dtype, dtype)][1]
            if normal.any():
                rel_error = max(rel_error, float((error[normal] / magnitude[normal]).max()))
            ulp_error = max(ulp_error, float((error / _ulp(reference[finite], dtype)).max()))
        if tolerance is not None:
            failing += int(np.count_nonzero(error > tolerance.atol + tolerance.rtol * magnitude))
    return PrecisionRow(
        dtype=dtype,
        points=next(iter(inputs.values())).size,
        scalar_sets=len(scalar_sets),
        max_abs_error=abs_error,
        max_rel_error=rel_error,
        max_ulp_error=ulp_error,
        special_mismatches=mismatches,
        fail_ratio=failing / total if tolerance is not None and total else None,
        output=output,
    )


def precision_misses(spec: OpSpec, kernel: KernelPlan, rows: tuple[PrecisionRow, ...]) -> list[tuple[FieldPath, str]]:
    """Each measured dtype whose points fail its golden tolerance more often than its max_fail_ratio allows (the
    golden tests would fail), with where the spec can fix it and how: a dtype the kernel computes in itself is
    computed in float by adding it to kernel.compute_in_float (the function table moves a dtype to float by itself
    only for a function imprecise in it, not for error the formula's own arithmetic accumulates)."""
    misses: list[tuple[FieldPath, str]] = []
    for row in rows:
        tolerance = spec.golden.tolerance.get(row.dtype)
        if tolerance is None or row.fail_ratio is None or row.fail_ratio <= tolerance.max_fail_ratio:
            continue
        compute = kernel.compute_of(row.dtype) or row.dtype  # a routed dtype: the AICPU kernel computes it in itself
        output = f" of {row.output}" if len(spec.formula.computed) > 1 else ""
        standard = f"{tolerance.standard} " if tolerance.standard else ""
        found = (
            f"{row.dtype.value}{output} misses its standard {standard}(rtol {tolerance.rtol:g}, atol "
            f"{tolerance.atol:g}, max_fail_ratio {tolerance.max_fail_ratio:g}): {row.fail_ratio:.2%} of the measured "
            f"points fail it (max abs error {row.max_abs_error:.3g}, max rel error {row.max_rel_error:.3g})"
        )
        path: FieldPath
        if compute is row.dtype and row.dtype in (DType.FLOAT16, DType.BFLOAT16):
            path = ("kernel", "compute_in_float") if "kernel" in spec.model_fields_set else ("golden", "tolerance")
            fix = f"the kernel computes it in {row.dtype.value}: add {row.dtype.value} to kernel.compute_in_float"
        else:
            path = ("golden", "tolerance", row.dtype.value)
            fix = (
                f"the kernel computes it in {compute.value}: rewrite the formula to lose less (e.g. a local name for a "
                f"sub-expression that cancels), or state the standard it meets in golden.tolerance.{row.dtype.value}"
            )
        misses.append((path, f"{found}; {fix}"))
    return misses
