"""The generated aclnn API's output in numpy, rounding wherever its precision path rounds.

The path: inputs are cast (through float) to the promoted compute dtype and broadcast to out's shape;
the AI Core kernel's lowered vector program runs on them (`opgen.plan.kernel_model`), or, for dtypes routed
to AICPU, the formula is evaluated in double (in the integer itself, wrapping, for an integer dtype; in complex128
for a complex one); scalars
reach the kernel as float32 attributes; the result is cast to out's dtype. The generated op_api tests bake these
values in as expectations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from opgen import formula as F
from opgen.formula.complex import evaluate_complex
from opgen.formula.integer import evaluate_integer
from opgen.formula.reference import round_to_dtype
from opgen.plan.kernel import KernelPlan, ModeValue, aicore_dtypes, specialise
from opgen.plan.schedules import schedule_for
from opgen.spec.channel_broadcast import channel_sum
from opgen.spec.dtypes import DType, promote_types, wrap_integer
from opgen.spec.formula_binding import aligned_values, kernel_formulas, reduction_of
from opgen.spec.half_split import join_halves
from opgen.spec.model import OpSpec


def compute_dtype(spec: OpSpec, input_dtypes: Mapping[str, DType], out_dtype: DType | None = None) -> DType:
    """The dtype the L0 op runs in: the promoted dtype of the inputs that promote (else the first), or the output's
    (`out_dtype`) where the API casts the inputs to it first (`dtype.cast_inputs`)."""
    if spec.inputs_cast_to is not None and out_dtype is not None:
        return out_dtype
    names = [p.name for p in spec.tensor_inputs]
    promoted = [p.name for p in spec.tensor_inputs if p.dtype.promote_with] or names[:1]
    dtype = spec.result_dtype(input_dtypes[promoted[0]])
    for name in promoted[1:]:
        promoted_dtype = promote_types(dtype, spec.result_dtype(input_dtypes[name]))
        assert promoted_dtype is not None, f"{dtype.value} and {input_dtypes[name].value} do not promote"
        dtype = promoted_dtype
    return dtype


def _through_float(values: np.ndarray, dtype: DType) -> np.ndarray:
    """A cast as the twin does it: via float32 (float64 for double) with one rounding into `dtype`; between
    integer dtypes directly (via float32 an INT32 above 2**24 would round)."""
    if dtype.is_integral and np.asarray(values).dtype.kind in "iub":
        return np.asarray(values).astype(dtype.numpy)
    if dtype.is_complex:  # each part rounded once (a real value gains a zero imaginary part)
        return np.asarray(values).astype(np.complex128).astype(dtype.numpy)
    wide = np.float64 if dtype is DType.DOUBLE else np.float32
    return np.asarray(values).astype(wide).astype(dtype.numpy)


_INTEGER_SCALAR_LIMIT = float(np.float32(9.2e18))  # the op_api's saturation bound (float32), inside int64


def truncated_to_integer(value: float, dtype: DType = DType.INT64) -> float:
    """The generated op_api's ScalarInIntegerDtype: toward zero, NaN as 0, saturated inside int64's range, then
    wrapped into `dtype` (a float32 on the way, as the op_api returns it)."""
    if value != value:
        return 0.0
    if abs(value) >= _INTEGER_SCALAR_LIMIT:
        return _INTEGER_SCALAR_LIMIT if value > 0 else -_INTEGER_SCALAR_LIMIT
    whole = float(np.trunc(value))
    return float(np.float32(whole if dtype is DType.INT64 else wrap_integer(whole, dtype.numpy)))


def scalar_in_dtype(value: float, dtype: DType) -> float:
    """A scalar converted to a one-element tensor of `dtype` (the L0 op's ConvertToTensor, as the twin converts an
    element): rounded to nearest into a floating type; toward zero, NaN as 0, saturated at int64's range and
    wrapped into an integer type."""
    if dtype.is_floating:
        return float(round_to_dtype(np.array([value], np.float64), dtype.numpy)[0])
    if value != value:
        return 0.0
    whole = max(-(2**63), min(2**63 - 1, int(np.trunc(value)) if math.isfinite(value) else int(np.sign(value) * 2**63)))
    return wrap_integer(whole, dtype.numpy)


def _flat(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: np.reshape(values, -1) for name, values in arrays.items()}


def aclnn_output(
    spec: OpSpec,
    plan: KernelPlan,
    inputs: Mapping[str, np.ndarray],
    input_dtypes: Mapping[str, DType],
    scalars: Mapping[str, float | bool | int | str],
    out_dtype: DType,
    output: str | None = None,
) -> np.ndarray:
    """Output `output` (default: the first computed one) of the main API for `inputs` (arrays in their storage
    dtypes), in `out_dtype`; an output written per half (the default of such an operator) is its halves joined."""
    if output is None and spec.formula.per_half:
        output = next(iter(spec.formula.outputs))
    halves = spec.formula.per_half.get(output or "")
    if halves is not None:
        first, second = (aclnn_output(spec, plan, inputs, input_dtypes, scalars, out_dtype, h) for h in halves)
        return join_halves(first, second, spec.split_dim(scalars), spec.split_swapped(scalars))
    output = output or spec.formula.main_output
    compute = compute_dtype(spec, input_dtypes, out_dtype)
    if spec.split is not None:  # the program reads each half of the split tensor and the half-size inputs
        streams = aligned_values(spec, {**inputs, **scalars})
        out_shape = np.shape(streams[plan.program_inputs[0]])
        flat = {name: _through_float(np.asarray(streams[name]), compute) for name in plan.program_inputs}
    else:
        shapes = {p.name: np.shape(inputs[p.name]) for p in spec.tensor_inputs}
        aligned = {p.name: np.reshape(inputs[p.name], spec.aligned_shape(p.name, shapes)) for p in spec.tensor_inputs}
        out_shape = np.broadcast_shapes(*(a.shape for a in aligned.values()))
        flat = {
            p.name: np.broadcast_to(_through_float(aligned[p.name], compute), out_shape) for p in spec.tensor_inputs
        }
    flags: dict[str, ModeValue] = {name: bool(scalars[name]) for name in plan.flags}
    for axis in plan.enums:
        value = scalars.get(axis.name)
        if value is None:  # an optional string left out (a null pointer) is its null_default
            value = spec.param(axis.name).null_default
        assert value is not None and not isinstance(value, float)  # an int64 or string mode value
        flags[axis.name] = value
    # an optional scalar left out (a null pointer) is its null_default
    given = {n: scalars.get(n, spec.param(n).null_default) for n in plan.scalars}
    attributes = {name: float(np.float32(value)) for name, value in given.items() if value is not None}
    if compute.is_integral:  # the op_api converts the scalars to the integer compute dtype, as ops-nn does
        attributes = {name: truncated_to_integer(value, compute) for name, value in attributes.items()}
    # scalars the OpDef takes as tensors: the aclScalar (a float32 here) converted to the L0 op's dtype; a
    # one-element tensor's value as it is stored (the kernel converts its storage type to the compute type exactly)
    attributes |= {
        name: float(np.reshape(inputs[name], -1)[0])
        if name in inputs
        else scalar_in_dtype(float(np.float32(scalars[name])), compute)
        for name in plan.gm_scalars
    }
    if compute in aicore_dtypes(spec):
        variant = plan.variant(compute, flags, attributes)
        outputs = schedule_for(spec).kernel_outputs(variant, flat, attributes, scalars)
        result = outputs[output if len(plan.outputs) > 1 else "out"]
    elif compute.is_integral:  # AICPU, an integer: the formula in that integer, wrapping as the kernel does
        expr = specialise(kernel_formulas(spec)[output], flags)
        result = evaluate_integer(expr, {**_flat(flat), **attributes}, compute.numpy)
    elif compute.is_complex:  # AICPU, a complex dtype: the formula in complex128, as the kernel's complex<double>
        expr = specialise(kernel_formulas(spec)[output], flags)
        result = evaluate_complex(expr, {**_flat(flat), **attributes})
    elif spec.reduce_dim is not None:  # AICPU: each row in double, reduced along dim (the tensors keep their shape)
        expr = specialise(kernel_formulas(spec)[output], flags)
        result = F.evaluate(expr, {**flat, **attributes}, axis=spec.split_dim(scalars))
    else:  # AICPU: the formula in double, with the attributes as float32
        expr = specialise(kernel_formulas(spec)[output], flags)
        result = F.evaluate(expr, {**_flat(flat), **attributes})
    reduced = reduction_of(spec, output)
    if reduced is not None:  # ReduceSumOp: summed in double, rounded once to the kernel's dtype, then cast
        of, like = reduced
        total = channel_sum(np.asarray(result, np.float64).reshape(out_shape), inputs[of], inputs[like])
        return _through_float(_through_float(total, compute), out_dtype)
    if output in spec.per_row_outputs:  # one value per row: the reduced dim removed
        out_shape = spec.row_shape(out_shape, scalars)
    return _through_float(result, out_dtype).reshape(out_shape)
