"""What the generated C++ op_api tests' success cases hold: each success call's input data (deterministic samples
of the golden range) and every computed output's expected values through the kernel plan's precision path
(`opgen.plan.aclnn_path`), with the tolerance of its dtype, decided once per call so the test emitter only prints
them (the main API and the in-place one share a call's data)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from opgen.dtypes import DType
from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.cases import Call
from opgen.plan.kernel import KernelPlan
from opgen.spec.model import OpSpec
from opgen.types import ParamKind


@dataclass(frozen=True)
class Tolerance:
    """golden.tolerance of one dtype: at most `max_fail_ratio` of the elements outside rtol/atol."""

    rtol: float
    atol: float
    max_fail_ratio: float
    standard: str | None  # the precision standard's name, e.g. 双千分之一


@dataclass(frozen=True)
class ExpectedOutput:
    name: str  # the computed output
    dtype: DType
    values: np.ndarray  # in `dtype`, the output's shape (an output written per half: its halves joined)
    tolerance: Tolerance


@dataclass(frozen=True)
class SuccessData:
    """One success call's data: its tensor inputs' values (in their storage dtypes and shapes) and each computed
    output's expectation, the first computed output first."""

    call: Call
    inputs: Mapping[str, np.ndarray]
    outputs: tuple[ExpectedOutput, ...]


def tolerances(spec: OpSpec) -> dict[DType, Tolerance]:
    """golden.tolerance per dtype, as plain data."""
    return {d: Tolerance(t.rtol, t.atol, t.max_fail_ratio, t.standard) for d, t in spec.golden.tolerance.items()}


def sample_values(spec: OpSpec, index: int, count: int, dtype: DType | None = None) -> np.ndarray:
    """Deterministic float64 inputs for tensor input `index`: the spec's special values (shifted per input so
    they meet ordinary values of the other inputs) and a grid over the golden range in quarter steps (exact in
    every float dtype). For an integer dtype: its min, max, -1, 0, 1 and the integral special values in its
    range instead, and the grid rounded to integers."""
    lo, hi = spec.golden.value_range
    specials = [float(v) for v in spec.golden.special_values]
    if dtype is not None and dtype.is_integral:
        info = np.iinfo(dtype.numpy)
        boundaries = [float(info.min), float(info.max), -1.0, 0.0, 1.0] + specials
        specials = list(dict.fromkeys(v for v in boundaries if v.is_integer() and info.min <= v <= info.max))
        lo, hi = max(lo, float(info.min)), min(hi, float(info.max))
    values = []
    for i in range(count):
        j = (i - 2 * index) % count
        if j < len(specials):
            values.append(specials[j])
        else:
            position = ((i * 3 + index) % count + 0.5) / count
            step = 1 if dtype is not None and dtype.is_integral else 4
            values.append(round((lo + (hi - lo) * position) * step) / step)
    return np.asarray(values, dtype=np.float64)


def success_data(spec: OpSpec, kernel: KernelPlan, call: Call) -> SuccessData:
    """The inputs and expectations of one success call (`opgen.plan.unit_cases.success_calls`)."""
    inputs: dict[str, np.ndarray] = {}
    dtypes: dict[str, DType] = {}
    for index, param in enumerate(spec.tensor_inputs):
        arg = call.args[param.name]
        assert arg.dtype is not None
        count = int(np.prod(arg.shape))
        values = sample_values(spec, index, count, arg.dtype)
        if arg.dtype.is_complex:  # imaginary parts: the same values met in another order
            values = values + 0j  # (values * 1j would turn an infinite part into NaN + inf j)
            values.imag = sample_values(spec, index + 1, count, arg.dtype)
        with np.errstate(over="ignore"):  # a special value beyond the dtype's range rounds to inf, as stored
            inputs[param.name] = values.astype(arg.dtype.numpy)
        inputs[param.name] = inputs[param.name].reshape(arg.shape)
        dtypes[param.name] = arg.dtype
    scalars: dict[str, float | bool | int | str] = {}
    for p in spec.params:
        value = call.args[p.name].value
        if p.kind is not ParamKind.TENSOR and value is not None:
            scalars[p.name] = value
    tolerance = tolerances(spec)
    outputs = []
    for i, out in enumerate(spec.outputs):
        dtype = call.args[out.name].dtype
        assert dtype is not None
        # the first output by default: one written per half is its halves joined
        values = aclnn_output(spec, kernel, inputs, dtypes, scalars, dtype, out.name if i else None)
        outputs.append(ExpectedOutput(out.name, dtype, values, tolerance[dtype]))
    return SuccessData(call, inputs, tuple(outputs))
