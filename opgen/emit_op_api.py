"""op_api: the two-phase aclnn API (L2) and the L0 wrapper that launches the AI Core or AICPU kernel.

The checks are the spec's error table, in its order, each returning its status and logging its message;
then empty tensors short-cut, inputs are made contiguous, promoted, broadcast, the L0 op runs, the result
is cast to out's dtype and copied into `out` (which may be a non-contiguous view).
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen import formula as F
from opgen.api_signature import ApiSignature, signatures
from opgen.dtypes import DType
from opgen.emit_host import opdef_attrs
from opgen.formula_binding import formula_symbols
from opgen.kernel_plan import aicore_dtypes
from opgen.model import (
    CheckBroadcast,
    CheckCastable,
    CheckDtypeSupported,
    CheckMaxRank,
    CheckNotNull,
    CheckPromotable,
    CheckRejectIf,
    CheckSameDtype,
    CheckSameShape,
    CheckScalarsCastable,
    ErrorRow,
    OpSpec,
    ParamKind,
)
from opgen.socs import get_soc
from opgen.templating import render


def _dtype(d: DType) -> str:
    return f"op::DataType::{d.ge_enum.split('::')[1]}"


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _any(names: list[str], fmt: str, join: str = " || ") -> str:
    return join.join(fmt.format(n) for n in names)


@dataclass(frozen=True)
class DtypeList:
    param: str
    function: str  # C++ function returning the list for the current SoC
    groups: list[tuple[list[str], str, str]]  # (SocVersion enumerators, list variable, initializer body)
    default: str  # list variable for SoCs the spec does not name


def dtype_lists(spec: OpSpec) -> list[DtypeList]:
    """Per-parameter dtype lists by SoC (a SoC's list is the param's minus what the SoC lacks)."""
    lists = []
    checked = {
        n for row in spec.errors if isinstance(row.check, CheckDtypeSupported) for n in row.check.dtype_supported
    }
    for param in spec.params:
        if param.name not in checked:  # only the lists a check reads (an unused one would warn)
            continue
        base = "k" + param.name[0].upper() + param.name[1:] + "Dtypes"
        by_list: dict[tuple[DType, ...], list[str]] = {}
        for support in spec.socs:
            by_list.setdefault(tuple(spec.dtypes_on(param, support.soc)), []).append(get_soc(support.soc).soc_version)
        full = tuple(param.dtypes)
        groups = []
        default = base
        for i, (dtypes, socs) in enumerate(by_list.items()):
            var = base if dtypes == full else f"{base}{i}"
            groups.append((socs, var, ", ".join(_dtype(d) for d in dtypes)))
        if full not in by_list:
            groups.append(([], base, ", ".join(_dtype(d) for d in full)))
        function = param.name[0].upper() + param.name[1:] + "Dtypes"
        lists.append(DtypeList(param.name, function, groups, default))
    return lists


def _shape(name: str) -> str:
    return f"{name}->GetViewShape()"


def check_lines(row: ErrorRow, spec: OpSpec) -> tuple[str, list[str]]:
    """(failure condition, setup lines) of one error-table row, in C++ over the API's parameters."""
    check = row.check
    if isinstance(check, CheckNotNull):
        return _any(check.not_null, "{} == nullptr"), []
    if isinstance(check, CheckDtypeSupported):
        parts = [f"!CheckType({n}->GetDataType(), {n[0].upper() + n[1:]}Dtypes())" for n in check.dtype_supported]
        return " || ".join(parts), []
    if isinstance(check, CheckSameDtype):
        first, *rest = check.same_dtype
        return _any(rest, "{}->GetDataType() != " + f"{first}->GetDataType()"), []
    if isinstance(check, CheckPromotable):
        return f"{_promote(check.promotable)} == op::DataType::DT_UNDEFINED", []
    if isinstance(check, CheckCastable):
        target = check.castable.target
        to = _dtype(target) if isinstance(target, DType) else f"{target}->GetDataType()"
        return f"!CanCast({_promote(check.castable.source)}, {to})", []
    if isinstance(check, CheckScalarsCastable):
        parts = [
            f"!CanCast({n}->GetDataType(), {_dtype(spec.param(n).dtype.castable_to)})" for n in check.scalars_castable
        ]
        return " || ".join(parts), []
    if isinstance(check, CheckMaxRank):
        parts = []
        for name in check.max_rank:
            low, high = spec.param(name).rank
            parts.append(f"{_shape(name)}.GetDimNum() > {high}")
            if low > 0:
                parts.append(f"{_shape(name)}.GetDimNum() < {low}")
        return " || ".join(parts), []
    if isinstance(check, CheckSameShape):
        first, *rest = check.same_shape
        return _any(rest, _shape("{}") + f" != {_shape(first)}"), []
    if isinstance(check, CheckBroadcast):
        inputs = [n for n in check.broadcast if spec.param(n).direction.value == "input"]
        outputs = [n for n in check.broadcast if spec.param(n).direction.value == "output"]
        setup = [f"op::Shape broadcastShape = {_shape(inputs[0])};", "bool broadcastOk = true;"]
        for name in inputs[1:]:
            setup.append("{")
            setup.append("  op::Shape merged;")
            setup.append(f"  broadcastOk = broadcastOk && BroadcastInferShape(broadcastShape, {_shape(name)}, merged);")
            setup.append("  broadcastShape = merged;")
            setup.append("}")
        condition = "!broadcastOk" + "".join(f" || {_shape(o)} != broadcastShape" for o in outputs)
        return condition, setup
    if isinstance(check, CheckRejectIf):
        expr = F.parse(check.reject_if, formula_symbols(spec, tensors=False))
        names = {p.name: f"{p.name}->ToDouble()" for p in spec.params if p.kind is ParamKind.SCALAR}
        return F.to_cpp(expr, names), []
    raise AssertionError(f"unhandled check {check!r}")


def _promote(names: list[str]) -> str:
    expr = f"{names[0]}->GetDataType()"
    for name in names[1:]:
        expr = f"PromoteType({expr}, {name}->GetDataType())"
    return expr


@dataclass(frozen=True)
class CheckView:
    status: str
    condition: str
    setup: list[str]
    message: str


def checks(spec: OpSpec) -> list[CheckView]:
    views = []
    for row in spec.errors:
        condition, setup = check_lines(row, spec)
        views.append(CheckView(row.status.value, condition, setup, _c_string(row.message)))
    return views


def _compute_dtype_expr(spec: OpSpec) -> str:
    inputs = spec.tensor_inputs
    promoted = [p.name for p in inputs if p.dtype.promote_with] or [inputs[0].name]
    names = list(dict.fromkeys(promoted + [n for p in inputs for n in p.dtype.promote_with]))
    return _promote(names)


def _l0_args(spec: OpSpec) -> list[dict]:
    """L0 parameters: tensors (kernel inputs), then the attributes the kernel needs, as plain values."""
    attrs = opdef_attrs(spec)
    args = []
    for attr in attrs:
        param = spec.param(attr.param)
        if param.kind is ParamKind.SCALAR:
            args.append({"name": attr.param, "ctype": "float", "value": f"{attr.param}->ToFloat()", "attr": attr.name})
        else:
            args.append({"name": attr.param, "ctype": "bool", "value": attr.param, "attr": attr.name})
    return args


def render_op_api(spec: OpSpec, spec_name: str) -> dict[str, str]:
    op = spec.operator.dir
    sigs = signatures(spec)
    main = sigs[0]
    header = f"aclnn_{spec.api.snake}.h"
    out = spec.outputs[0]
    inputs = spec.tensor_inputs
    broadcast = bool(out.shape.broadcast_result_of)
    l0_args = _l0_args(spec)
    aicore = [_dtype(d) for d in aicore_dtypes(spec)]
    common = dict(
        op=op,
        op_type=spec.operator.type,
        header=header,
        guard=f"OP_API_INC_ACLNN_{spec.api.snake.upper()}_H_",
        l0_header=f"{op}.h",
        apis=[_api_view(s) for s in sigs],
        main=_api_view(main),
        inplace=_inplace_view(sigs[1], main) if len(sigs) > 1 else None,
        dtype_lists=dtype_lists(spec),
        checks=checks(spec),
        inputs=[{"name": p.name, "opdef": p.opdef} for p in inputs],
        out=out.name,
        compute_dtype=_compute_dtype_expr(spec),
        broadcast=broadcast,
        l0_args=l0_args,
        aicore_dtypes=", ".join(aicore),
        aicpu=bool(spec.routing.aicpu),
        dfx_in=", ".join(
            p.name for p in main.user_params if p.param is not None and p.param.direction.value == "input"
        ),
    )
    files = {}
    for template, name in (
        ("op/op_api/aclnn_api.h.j2", f"op_api/{header}"),
        ("op/op_api/aclnn_api.cpp.j2", f"op_api/aclnn_{spec.api.snake}.cpp"),
        ("op/op_api/l0.h.j2", f"op_api/{op}.h"),
        ("op/op_api/l0.cpp.j2", f"op_api/{op}.cpp"),
    ):
        files[name] = render(template, name, spec_name, **common)
    return files


def _api_view(sig: ApiSignature) -> dict:
    return {
        "name": sig.name,
        "get_workspace": sig.get_workspace_name,
        "phase_one_params": ",\n    ".join(f"{p.ctype} {p.stars}{p.name}".replace("* *", "**") for p in sig.params),
        "inplace_param": next((p.name for p in sig.params if p.inplace), None),
        "call_args": [p.name for p in sig.user_params],
        "all_names": [p.name for p in sig.params],
    }


def _inplace_view(sig: ApiSignature, main: ApiSignature) -> dict:
    """The in-place API forwards to the main one with its tensor standing for every param it replaces."""
    view = _api_view(sig)
    inplace = view["inplace_param"]
    view["forward_args"] = [inplace if p.name in sig.replaced else p.name for p in main.user_params]
    return view
