"""The CANN-style calling program's data (examples/test_aclnn_<api>.cpp): its inputs as the spec gives them and the
numbers it prints, computed once here from the spec's formula."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opgen.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.model import OpSpec


@dataclass(frozen=True)
class ExampleTensor:
    shape: tuple[int, ...]
    dtype: DType
    data: tuple[float, ...]


@dataclass(frozen=True)
class ExampleResult:
    output: str
    values: tuple[float, ...]  # flattened, each rounded to the output's dtype


@dataclass(frozen=True)
class ExamplePlan:
    path: str  # examples/test_aclnn_<api>.cpp
    api: str  # the API it calls, e.g. aclnnLeakyRelu
    tensors: dict[str, ExampleTensor]
    scalars: dict[str, bool | int | float | str | None]  # None: an optional scalar or string left out
    scalar_dtypes: dict[str, DType]  # an aclScalar's dtype where it is not FLOAT
    results: tuple[ExampleResult, ...]  # what it prints: each computed output, the first one first


def example_path(spec: OpSpec) -> str:
    return f"examples/test_aclnn_{spec.api.snake}.cpp"


def example_result(spec: OpSpec, output: str | None = None) -> ExampleResult:
    """The values the example prints for `output` (default: the first computed one), from the spec's formula."""
    example = spec.example
    env: dict[str, np.ndarray | float | bool | str] = {}
    for param in spec.tensor_inputs:
        tensor = example.tensors[param.name]
        env[param.name] = np.asarray(tensor.data, dtype=tensor.dtype.numpy).reshape(tensor.shape)
    for name, value in example.scalars.items():
        if value is None:  # an optional scalar or string left out: its null_default
            default = spec.param(name).null_default
            env[name] = default if isinstance(default, str) else float(default or 0.0)
            continue
        scalar_dtype = example.scalar_dtypes.get(name)
        env[name] = float(np.asarray(value, dtype=scalar_dtype.numpy)) if scalar_dtype else value
    out = spec.param(output) if output is not None else spec.outputs[0]
    out_dtype = example.tensors[out.name].dtype
    if out_dtype in (DType.FLOAT16, DType.BFLOAT16):
        raise ValueError("example outputs must be FLOAT or DOUBLE so the program can print them")
    values = evaluate_reference(spec, env, out_dtype.numpy, out.name)
    return ExampleResult(out.name, tuple(float(v) for v in np.asarray(values).reshape(-1)))


def example_plan(spec: OpSpec) -> ExamplePlan:
    example = spec.example
    return ExamplePlan(
        path=example_path(spec),
        api=spec.api.name,
        tensors={name: ExampleTensor(tuple(t.shape), t.dtype, tuple(t.data)) for name, t in example.tensors.items()},
        scalars=dict(example.scalars),
        scalar_dtypes=dict(example.scalar_dtypes),
        results=(example_result(spec), *(example_result(spec, p.name) for p in spec.outputs[1:])),
    )
