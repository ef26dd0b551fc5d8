"""The CANN-style calling program (examples/test_aclnn_<api>.cpp), also the docs' 调用示例.

Its comments state the numbers it will print; they are computed here from the spec's formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident
from opgen.plan.operator import OperatorPlan
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.model import ExampleTensor, OpSpec, Param, ParamKind


def example_path(spec: OpSpec) -> str:
    return f"examples/test_aclnn_{spec.api.snake}.cpp"


def _literal(value: float, dtype: DType) -> Code:
    return cpp.float_literal(value, "double" if dtype is DType.DOUBLE else "float")


def _tensor_data(tensor: ExampleTensor) -> tuple[Code, Code]:
    """C++ braced initializer and an explanatory comment (for half/bf16, the values behind the bits)."""
    if tensor.dtype in (DType.FLOAT16, DType.BFLOAT16):
        bits = np.asarray(tensor.data, dtype=tensor.dtype.numpy).view(np.uint16)
        values = "values: " + ", ".join(f"{v:g}" for v in tensor.data)
        return code("{" + ", ".join(f"0x{b:04x}" for b in bits) + "}"), cpp.comment(values)
    return code("{" + ", ".join(_compact(v) for v in tensor.data) + "}"), Code("")


def _compact(value: float) -> str:
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return cpp.float_literal(value, "double")


@dataclass(frozen=True)
class ExampleResult:
    output: str
    values: np.ndarray  # in the output's dtype


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
    values = evaluate_reference(spec, env, out_dtype.numpy, out.name)
    return ExampleResult(out.name, np.asarray(values))


def _host_value(param: Param, scalars: dict) -> dict[str, Code]:
    """The C++ declaration parts of a bool, int64, double or string argument: type, declarator suffix, value."""
    value = scalars[param.name]
    if param.kind is ParamKind.INT64:
        return {"host_type": Code("int64_t"), "suffix": Code(""), "value": code(str(int(value)))}
    if param.kind is ParamKind.DOUBLE:
        return {"host_type": Code("double"), "suffix": Code(""), "value": cpp.float_literal(float(value), "double")}
    if param.kind is ParamKind.STRING:
        # an array: it passes as char* as well as const char*
        return {"host_type": Code("char"), "suffix": Code("[]"), "value": cpp.string(str(value))}
    return {"host_type": Code("bool"), "suffix": Code(""), "value": Code("true" if value else "false")}


def _call_arg(param: Param | None, name: str, scalars: dict) -> str:
    if param is None or param.kind is ParamKind.TENSOR:
        return name
    if scalars[param.name] is None:  # an optional scalar or string left out
        return "nullptr"
    if param.kind is ParamKind.SCALAR:
        return name
    return f"{name}Value"


def render_example(operator: OperatorPlan) -> str:
    spec, spec_name = operator.spec, operator.source
    example = spec.example
    signature = operator.main
    tensors: list[dict[str, Code]] = []
    scalars: list[dict[str, Code | None]] = []
    handles: list[dict[str, Code]] = []
    for cparam in signature.user_params:
        param = cparam.param
        assert param is not None
        if param.kind is ParamKind.TENSOR:
            tensor = example.tensors[param.name]
            data, comment = _tensor_data(tensor)
            tensors.append(
                {
                    "name": ident(param.name),
                    "shape": code("{" + ", ".join(str(d) for d in tensor.shape) + "}"),
                    "host_type": code(tensor.dtype.host_cpp_type),
                    "data": data,
                    "comment": comment,
                    "acl_dtype": ident(tensor.dtype.acl_enum),
                }
            )
            handles.append({"type": code("aclTensor"), "name": ident(param.name), "destroy": code("aclDestroyTensor")})
        elif example.scalars[param.name] is None:
            continue  # an optional scalar or string left out: the call passes nullptr
        elif param.kind is ParamKind.SCALAR:
            dtype = example.scalar_dtypes.get(param.name, DType.FLOAT)
            value = example.scalars[param.name]
            assert isinstance(value, (int, float))
            scalars.append(
                {
                    "name": ident(param.name),
                    "host_type": code("double" if dtype is DType.DOUBLE else "float"),
                    "suffix": Code(""),
                    "value": _literal(float(value), dtype),
                    "acl_dtype": ident(dtype.acl_enum),
                }
            )
            handles.append({"type": code("aclScalar"), "name": ident(param.name), "destroy": code("aclDestroyScalar")})
        else:
            scalars.append({"name": ident(param.name), "acl_dtype": None, **_host_value(param, example.scalars)})
    call_args = code(", ".join(_call_arg(p.param, p.name, example.scalars) for p in signature.user_params))
    result = example_result(spec)
    output = next(t for t in tensors if t["name"] == result.output)
    out_dtype = example.tensors[result.output].dtype
    if out_dtype in (DType.FLOAT16, DType.BFLOAT16):
        raise ValueError("example outputs must be FLOAT or DOUBLE so the program can print them")
    expected = [cpp.comment(f"result[{i}] is: {float(v):f}") for i, v in enumerate(result.values.reshape(-1))]
    # every further computed output is printed too, under its own name
    more = []
    for param in spec.outputs[1:]:
        other = example_result(spec, param.name)
        if example.tensors[param.name].dtype in (DType.FLOAT16, DType.BFLOAT16):
            raise ValueError("example outputs must be FLOAT or DOUBLE so the program can print them")
        view = next(t for t in tensors if t["name"] == param.name)
        lines = [cpp.comment(f"{param.name}[{i}] is: {float(v):f}") for i, v in enumerate(other.values.reshape(-1))]
        more.append({**view, "label": cpp.string(f"{param.name}[%ld] is: %f\n"), "expected": lines})
    return render(
        "op/examples/test_aclnn_api.cpp.j2",
        example_path(spec),
        spec_name,
        header=code(spec.api.header_name),
        api=ident(spec.api.name),
        tensors=tensors,
        scalars=scalars,
        handles=handles,
        call_args=call_args,
        output={**output, "print_expr": code("resultData[i]")},
        expected=expected,
        more_outputs=more,
    )
