"""The CANN-style calling program (examples/test_aclnn_<api>.cpp), also the docs' 调用示例.

Its comments state the numbers it will print; they are computed in the plan from the spec's formula
(opgen.plan.example).
"""

from __future__ import annotations

import math

import numpy as np

from opgen.dtypes import DType
from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident
from opgen.plan.example import ExampleTensor
from opgen.plan.operator import OperatorPlan
from opgen.plan.signature import CParam
from opgen.types import ParamKind


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


def _host_value(cparam: CParam, scalars: dict) -> dict[str, Code]:
    """The C++ declaration parts of a bool, int64, double or string argument: type, declarator suffix, value."""
    param = cparam.param
    assert param is not None
    value = scalars[param.name]
    if param.kind is ParamKind.INT64:
        return {"host_type": Code("int64_t"), "suffix": Code(""), "value": code(str(int(value)))}
    if param.kind is ParamKind.DOUBLE:
        return {"host_type": Code("double"), "suffix": Code(""), "value": cpp.float_literal(float(value), "double")}
    if param.kind is ParamKind.STRING:
        # an array: it passes as char* as well as const char*
        return {"host_type": Code("char"), "suffix": Code("[]"), "value": cpp.string(str(value))}
    return {"host_type": Code("bool"), "suffix": Code(""), "value": Code("true" if value else "false")}


def _call_arg(cparam: CParam, scalars: dict) -> str:
    param, name = cparam.param, cparam.name
    if param is None or param.kind is ParamKind.TENSOR:
        return name
    if scalars[param.name] is None:  # an optional scalar or string left out
        return "nullptr"
    if param.kind is ParamKind.SCALAR:
        return name
    return f"{name}Value"


def render_example(operator: OperatorPlan) -> str:
    spec_name = operator.source
    example = operator.example
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
            scalars.append({"name": ident(param.name), "acl_dtype": None, **_host_value(cparam, example.scalars)})
    call_args = code(", ".join(_call_arg(p, example.scalars) for p in signature.user_params))
    result = example.results[0]
    output = next(t for t in tensors if t["name"] == result.output)
    expected = [cpp.comment(f"result[{i}] is: {float(v):f}") for i, v in enumerate(result.values)]
    # every further computed output is printed too, under its own name
    more = []
    for other in example.results[1:]:
        name = other.output
        view = next(t for t in tensors if t["name"] == name)
        lines = [cpp.comment(f"{name}[{i}] is: {float(v):f}") for i, v in enumerate(other.values)]
        more.append({**view, "label": cpp.string(f"{name}[%ld] is: %f\n"), "expected": lines})
    return render(
        "op/examples/test_aclnn_api.cpp.j2",
        example.path,
        spec_name,
        header=code(operator.header_name),
        api=ident(example.api),
        tensors=tensors,
        scalars=scalars,
        handles=handles,
        call_args=call_args,
        output={**output, "print_expr": code("resultData[i]")},
        expected=expected,
        more_outputs=more,
    )
