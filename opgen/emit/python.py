"""The Python package `opgen_ops` (generated/python/opgen_ops): one function per aclnn API, named and ordered
like the aten schema, calling the C API through its ABI; docstrings and type stubs come from the specs."""

from __future__ import annotations

from dataclasses import dataclass

import black

from opgen import formula as F
from opgen.emit.templating import generated_notice, render
from opgen.plan.operator import OperatorPlan
from opgen.plan.signature import ApiSignature
from opgen.spec.model import Direction, Param, ParamKind

PACKAGE = "python/opgen_ops"
_BLACK = black.Mode(line_length=120, target_versions={black.TargetVersion.PY311})


@dataclass(frozen=True)
class PyArg:
    name: str  # Python name
    kind: str  # tensor / scalar / bool
    default: str | None
    description: str


@dataclass(frozen=True)
class PyFunction:
    name: str
    api: str
    args: list[PyArg]  # positional (before `*`)
    has_out: bool
    call: str  # the list passed to _rt.call
    out_init: str | None
    returns: str
    doc: str
    spec: str


def _default(param: Param) -> str | None:
    if param.default is None:
        return None
    return repr(param.default)


def _doc(operator: OperatorPlan, sig: ApiSignature) -> str:
    spec = operator.spec
    lines = [
        f"{sig.name}: {spec.operator.function}",
        "",
        f"    {spec.formula.output} = {F.to_text(operator.formula)}",
        "",
    ]
    lines.append("Args:")
    for cparam in sig.user_params:
        param = cparam.param
        assert param is not None
        name = "out" if param.direction is Direction.OUTPUT and not cparam.inplace else param.python
        dtypes = ", ".join(d.value for d in param.dtypes) or "-"
        lines.append(f"    {name}: {param.description} ({param.kind.value}; dtypes: {dtypes})")
    lines.append("")
    lines.append("Raises:")
    for row in spec.errors:
        lines.append(f"    AclnnError: status {row.code} ({row.status.value}) if {row.doc}")
    return "\n".join(lines)


def _function(operator: OperatorPlan, sig: ApiSignature, name: str) -> PyFunction:
    spec = operator.spec
    args: list[PyArg] = []
    call: list[str] = []
    out_init = None
    has_out = False
    returns = ""
    for cparam in sig.user_params:
        param = cparam.param
        assert param is not None
        py = param.python
        if cparam.inplace:
            args.append(PyArg(py, "tensor", None, param.description))
            call.append(f"_rt.Tensor({py}, output=True)")
            returns = py
        elif param.direction is Direction.OUTPUT:
            has_out = True
            shape_of, dtype_of = spec.shape_sources(param), spec.dtype_sources(param)
            py_names = lambda names: "[" + ", ".join(spec.param(n).python for n in names) + "]"  # noqa: E731
            out_init = f"if out is None:\n        out = _rt.new_output({py_names(shape_of)}, {py_names(dtype_of)})"
            call.append("_rt.Tensor(out, output=True)")
            returns = "out"
        elif param.kind is ParamKind.TENSOR:
            args.append(PyArg(py, "tensor", _default(param), param.description))
            call.append(f"_rt.Tensor({py})")
        elif param.kind is ParamKind.SCALAR:
            args.append(PyArg(py, "scalar", _default(param), param.description))
            call.append(f"_rt.Scalar({py})")
        else:
            args.append(PyArg(py, "bool", _default(param), param.description))
            call.append(f"bool({py})")
    return PyFunction(
        name=name,
        api=sig.name,
        args=args,
        has_out=has_out,
        call="[" + ", ".join(call) + "]",
        out_init=out_init,
        returns=returns,
        doc=_doc(operator, sig),
        spec=spec.operator.dir,
    )


def python_functions(operator: OperatorPlan) -> list[PyFunction]:
    spec, sigs = operator.spec, operator.signatures
    functions = [_function(operator, sigs[0], spec.api.aten or spec.api.snake)]
    if len(sigs) > 1:
        inplace = spec.api.inplace
        functions.append(_function(operator, sigs[1], (inplace.aten if inplace else None) or sigs[1].name))
    return functions


def _format(text: str) -> str:
    return black.format_str(text, mode=_BLACK)


def render_python(operators: list[OperatorPlan]) -> dict[str, str]:
    functions = [f for operator in operators for f in python_functions(operator)]
    sources = ", ".join(operator.source for operator in operators)
    files = {}
    init = render("python/opgen_ops/__init__.py.j2", "__init__.py", sources, functions=functions)
    files[f"{PACKAGE}/__init__.py"] = _format(init)
    stub = render("python/opgen_ops/__init__.pyi.j2", "__init__.pyi", sources, functions=functions)
    files[f"{PACKAGE}/__init__.pyi"] = _format(stub)
    runtime = render("python/opgen_ops/_runtime.py.j2", "_runtime.py", sources)
    files[f"{PACKAGE}/_runtime.py"] = _format(runtime)
    files[f"{PACKAGE}/py.typed"] = generated_notice("py.typed", sources) + "\n"
    return files
