"""op_api: the two-phase aclnn API (L2) and the L0 wrapper that launches the AI Core or AICPU kernel.

The checks are the spec's error table, in its order, each returning its status and logging its message;
then empty tensors short-cut (a summed output set to zeros; rows marked `after_empty_return` follow it), inputs
are made contiguous, promoted, broadcast, the L0 op runs, the result is cast to out's dtype and copied into `out`
(which may be a non-contiguous view).
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident
from opgen.plan.opdef import OpDefAttr, OpDefPlan
from opgen.plan.operator import OperatorPlan
from opgen.plan.schedules import ChannelSum
from opgen.plan.signature import ApiSignature, CParam
from opgen.plan.tiling import MIN_CHANNEL_RUN
from opgen.types import ParamKind


@dataclass(frozen=True)
class CheckView:
    status: Code
    condition: Code
    setup: list[Code]
    message: Code  # a printf format literal that prints the row's message as written
    after_empty_return: bool  # checked once no tensor of the empty return is empty
    helper: tuple[str, str]  # the row's check kind's helper: its group's name, its own


def checks(operator: OperatorPlan) -> list[CheckView]:
    """The rows the op_api checks: every row but those the host tiling checks (ACLNN_ERR_INNER_TILING_ERROR)."""
    return [
        CheckView(
            ident(row.status.value),
            code(cpp.without_outer_parentheses(check.condition)),
            [code(line) for line in check.setup],
            cpp.format_string(row.message),
            row.after_empty_return,
            row.check.cpp_helper,
        )
        for row, check in zip(operator.errors, operator.checks, strict=True)
        if not row.in_tiling
    ]


@dataclass(frozen=True)
class CheckHelper:
    """A run of consecutive error rows of one group and one status: a static bool function that logs the failing
    row's message, called from CheckParams, which returns the status."""

    name: Code
    status: Code
    params: Code  # the declarations of what its rows read, in the API's order
    args: Code
    rows: list[CheckView]


def _params_read(sig: ApiSignature, rows: list[CheckView]) -> list[CParam]:
    text = "\n".join([*(c.condition for c in rows), *(line for c in rows for line in c.setup)])
    return [p for p in sig.params if cpp.reads(text, p.name)]


def _declarations(params: list[CParam]) -> Code:
    """Parameters of a check: they only read, so what one pointer points to is const (`const aclTensor* out`)."""
    return code(
        ", ".join(
            f"{'const ' if p.stars == '*' and not p.ctype.startswith('const ') else ''}{p.ctype}{p.stars} {p.name}"
            for p in params
        )
    )


def check_helpers(sig: ApiSignature, rows: list[CheckView], taken: set[str]) -> list[CheckHelper]:
    """The helpers of `rows`, in order; `taken` holds the names already given (each helper's is unique)."""
    runs: list[list[CheckView]] = []
    for row in rows:
        if runs and runs[-1][0].helper[0] == row.helper[0] and runs[-1][0].status == row.status:
            runs[-1].append(row)
        else:
            runs.append([row])
    groups = [run[0].helper[0] for run in runs]
    helpers = []
    for run, group in zip(runs, groups, strict=True):
        name = group if groups.count(group) == 1 and group not in taken else run[0].helper[1]
        stem, number = name, 2
        while name in taken:
            name, number = f"{stem}{number}", number + 1
        taken.add(name)
        params = _params_read(sig, run)
        helpers.append(
            CheckHelper(ident(name), run[0].status, _declarations(params), code(", ".join(p.name for p in params)), run)
        )
    return helpers


def _caller(sig: ApiSignature, helpers: list[CheckHelper]) -> dict[str, Code]:
    """CheckParams' (or CheckNonEmptyParams') parameters: what its helpers read, in the API's order."""
    read = {p for h in helpers for p in h.args.split(", ") if p}
    params = [p for p in sig.params if p.name in read]
    return {"params": _declarations(params), "args": code(", ".join(p.name for p in params))}


# The L0 parameter type of each host-value kind (scalars become float).
_L0_CTYPES = {ParamKind.BOOL: Code("bool"), ParamKind.INT64: Code("int64_t"), ParamKind.STRING: Code("const char*")}


def _l0_args(operator: OperatorPlan, attrs: list[OpDefAttr]) -> list[dict]:
    """L0 parameters after the tensors: each attribute an API parameter carries, as a plain value (in the OpDef's
    order); an attribute the API fixes is passed by the L0 op itself (`_launch_attrs`)."""
    aclnn = operator.aclnn
    args = []
    for attr in attrs:
        if attr.param is None:
            continue
        param = operator.param(attr.param)
        if param.kind is ParamKind.SCALAR:
            if param.null_default is not None:  # an optional scalar: a null pointer stands for its default
                default = cpp.float_literal(float(param.null_default))
                value = code(f"{attr.param} == nullptr ? {default} : {aclnn.scalar_values[attr.param]}")
            else:
                value = aclnn.scalar_values[attr.param]
            if aclnn.integer_scalars:
                # an integer tensor meets the scalar in its dtype (ops-nn converts it to a tensor of self's dtype)
                in_dtype = f"ScalarInIntegerDtype({value}, computeDtype)"
                value = code(f"(op::IsIntegralType(computeDtype) ? {in_dtype} : {value})")
            args.append({"name": attr.param, "ctype": Code("float"), "value": value, "attr": attr.name})
        elif attr.texts:  # an int64 parameter the OpDef carries as its text, e.g. approximate 0 -> "none"
            value = cpp.string(attr.texts[-1][1])
            for api, text in reversed(attr.texts[:-1]):
                value = code(f"{attr.param} == {api} ? {cpp.string(text)} : {value}")
            args.append(
                {"name": attr.param, "ctype": Code("const char*"), "value": code(f"({value})"), "attr": attr.name}
            )
        elif param.kind is ParamKind.STRING and param.null_default is not None:
            # an optional string: the attribute takes the value a null pointer stands for
            value = code(f"({attr.param} == nullptr ? {cpp.string(str(param.null_default))} : {attr.param})")
            args.append({"name": attr.param, "ctype": Code("const char*"), "value": value, "attr": attr.name})
        elif param.kind is ParamKind.DOUBLE:  # a Float attribute, as ops-nn's generated aclnn converts a double
            value = code(f"static_cast<float>({attr.param})")
            args.append({"name": attr.param, "ctype": Code("float"), "value": value, "attr": attr.name})
        else:
            ctype = _L0_CTYPES[param.kind]
            args.append({"name": attr.param, "ctype": ctype, "value": attr.param, "attr": attr.name})
    return args


def _launch_attrs(attrs: list[OpDefAttr]) -> list[Code]:
    """What the L0 op passes for each OpDef attribute, in order: its parameter (a list attribute the one-element
    array `_list_attrs` allocates), or the value the API fixes."""
    return [
        _constant(attr)
        if attr.param is None
        else ident(f"{attr.param}List")
        if attr.kind_record.is_list
        else attr.param
        for attr in attrs
    ]


def _list_attrs(attrs: list[OpDefAttr]) -> list[dict[str, Code]]:
    """The list attributes an int64 parameter carries: the L0 op allocates each as a one-element aclIntArray, as
    ops-nn's l0op::SoftmaxV2 passes its dim (AllocIntArray)."""
    return [
        {"name": ident(f"{attr.param}List"), "param": attr.param}
        for attr in attrs
        if attr.param is not None and attr.kind_record.is_list
    ]


def _constant(attr: OpDefAttr) -> Code:
    assert attr.constant is not None
    return attr.kind_record.fixed(attr.constant)  # OP_ATTR takes a value as the OpDef declares it


def _launch_inputs(opdef: OpDefPlan) -> list[Code]:
    """The L0 op's launch inputs in the OpDef's order: its tensors, a scalar's one-element tensor, and null where
    the API has none."""
    return [
        Code("nullptr")
        if i.param is None
        else ident(f"{i.param}Tensor")
        if i.scalar and not i.one_element
        else ident(i.param)
        for i in opdef.inputs
    ]


def _scalar_tensor_args(opdef: OpDefPlan) -> list[dict]:
    """L0 parameters for the values the OpDef takes as one-element tensors: the aclScalar itself (the L0 op converts
    it), or the API's one-element tensor, contiguous and in the compute dtype (the L0 op passes it as it is)."""
    return [
        {
            "name": ident(str(i.param)),
            "ctype": Code("const aclTensor*" if i.one_element else "const aclScalar*"),
            "value": ident(f"{i.param}Casted" if i.one_element else str(i.param)),
            "attr": None,
        }
        for i in opdef.scalar_inputs
    ]


def render_op_api(operator: OperatorPlan) -> dict[str, str]:
    spec_name = operator.source
    op = operator.file_stem
    sigs = list(operator.signatures)
    main = sigs[0]
    header = operator.header_name
    out = operator.outputs[0].param
    inputs = operator.tensor_inputs
    schedule = operator.schedule
    opdef = operator.opdef
    l0_args = _scalar_tensor_args(opdef) + _l0_args(operator, list(opdef.attrs))
    runs = operator.runs
    if runs is not None:  # the other operator's L0 op, with the attribute values the spec gives
        l0_args = [{"value": value} for value in runs.args]
    read = {str(i.param) for i in opdef.read_inputs}
    held = {str(i.param) for i in opdef.scalar_inputs if i.one_element}  # API tensors of one element
    shape_setup, shapes = schedule.l0_shapes(str(opdef.read_inputs[0].param)) if opdef.read_inputs else ([], {})
    tiling_checks = operator.tiling_checks is not None
    if tiling_checks and runs is None:
        # the tiling checks the launched outputs' shapes: the L0 op allocates each with the caller's output's
        # (as CANN's OpDef-generated aclnn passes its tensors), so a wrong one reaches the tiling's check
        shape_setup, shapes = [], {o: f"{o}Shape" for o in schedule.outputs}
        l0_args += [
            {"name": ident(f"{o}Shape"), "ctype": Code("const op::Shape&"), "value": code(f"{o}->GetViewShape()")}
            for o in schedule.outputs
        ]
        # and hands back its launch's status, which is the tiling's refusal (ACLNN_ERR_INNER_TILING_ERROR)
        l0_args.append({"name": ident("launchStatus"), "ctype": Code("aclnnStatus*"), "value": code("&launchStatus")})
    taken: set[str] = set()
    views = checks(operator)
    helpers = check_helpers(main, [c for c in views if not c.after_empty_return], taken)
    late_helpers = check_helpers(main, [c for c in views if c.after_empty_return], taken)
    common = {
        "op": ident(op),
        "op_type": ident(operator.op_type),
        "l0_op": ident(runs.op_type if runs is not None else operator.op_type),
        "header": code(header),
        "guard": ident(f"OP_API_INC_ACLNN_{operator.api_snake.upper()}_H_"),
        "l0_header": code(runs.l0_header if runs is not None else f"{op}.h"),
        "apis": [_api_view(s) for s in sigs],
        "main": _api_view(main),
        "inplace": _inplace_view(sigs[1], main) if len(sigs) > 1 else None,
        "dtype_lists": list(operator.aclnn.dtype_lists),
        # the error table's rows in helpers per check group: those checked first, and those ops-nn checks after
        # returning on an empty tensor (errors[].after_empty_return)
        "helpers": helpers,
        "late_helpers": late_helpers,
        "check_params": _caller(main, helpers),
        "late_params": _caller(main, late_helpers),
        # the empty-tensor return: its condition, and what the comments call it
        "empty_condition": code(" || ".join(f"{n}->IsEmpty()" for n in schedule.empty_return)),
        "empty_what": code(" or ".join(operator.empty_return) if operator.empty_return else "output"),
        # where the late rows are checked before the empty return: ops-nn's query of the SoC (None: nowhere)
        "checks_first": code(operator.checks_first_query) if operator.checks_first_query else None,
        "regbase_header": code(operator.checks_first_header),
        # a summed output of nothing holds zeros: the empty return writes them
        "zeroed": [ident(n) for n in schedule.zeroed_on_empty],
        "inputs": [
            {
                "name": ident(p.name),
                "opdef": ident(p.opdef),
                "channel_of": ident(channel.of) if (channel := schedule.channel_of(p.name)) else None,
                # a one-element tensor is read as a scalar: never expanded to out's shape
                "one_element": p.name in held,
            }
            for p in inputs
            # an API input the OpDef does not take (LogSigmoidBackward's buffer) is not passed
            if p.name in read or p.name in held
        ],
        # the L0 op's tensors in the OpDef's order, and its launch inputs (None: an optional input passed null)
        "l0_inputs": [ident(str(i.param)) for i in opdef.read_inputs],
        "launch_inputs": _launch_inputs(opdef),
        # scalars the OpDef takes as one-element tensors of the kernel's dtype (ConvertToTensor in the L0 op)
        "scalar_tensors": [ident(str(i.param)) for i in opdef.scalar_inputs if not i.one_element],
        "launch_attrs": _launch_attrs(list(opdef.attrs)),
        "list_attrs": _list_attrs(list(opdef.attrs)),
        "attr_names": [a.name for a in opdef.attrs],
        "channels": bool(schedule.channel_inputs),
        "min_channel_run": MIN_CHANNEL_RUN,
        "out": ident(out.name),
        # several computed outputs: the L0 op returns a tuple of them, in the operator's output order
        "several": schedule.several,
        "outputs": [
            {"name": ident(name), "reduce": _reduce_view(schedule.sum_of(name)), "shape": code(shapes.get(name, ""))}
            for name in schedule.outputs
        ],
        # the L0 op allocates each output by its schedule's shape rule
        "l0_shape_setup": [code(line) for line in shape_setup],
        # an operator whose rows the tiling checks returns the status of the L0 op's launch when it fails (the
        # tiling's refusal: ACLNN_ERR_INNER_TILING_ERROR); another a null result's
        "launch_status": tiling_checks and runs is None,
        "l0_failed": ident("launchStatus" if tiling_checks and runs is None else "ACLNN_ERR_INNER_NULLPTR"),
        "reduces": bool(schedule.sums),  # a per-channel sum is summed by l0op::ReduceSumOp
        "compute_dtype": operator.aclnn.compute_dtype,
        "cast_inputs_to": ident(operator.aclnn.cast_inputs_to) if operator.aclnn.cast_inputs_to else None,
        # numpy-broadcast inputs, and channel inputs once laid along dim 1, are expanded to out's shape
        "broadcast": schedule.expands_inputs,
        "l0_args": l0_args,
        "aicore_dtypes": operator.aclnn.aicore_dtypes,
        "aicpu": bool(operator.aicpu_dtypes),
        "integer_scalars": operator.aclnn.integer_scalars
        and any(a.param is not None and operator.param(a.param).kind is ParamKind.SCALAR for a in opdef.attrs),
        "strings": any(p.kind is ParamKind.STRING for p in operator.params),  # the checks compare with std::strcmp
        "dfx_in": code(
            ", ".join(p.name for p in main.user_params if p.param is not None and p.param.direction.value == "input")
        ),
        # every output, written or not, as ops-nn logs them (DFX_OUT(out, buffer))
        "dfx_out": code(
            ", ".join(p.name for p in main.user_params if p.param is not None and p.param.direction.value == "output")
        ),
    }
    files = {}
    templates = [
        ("op/op_api/aclnn_api.h.j2", f"op_api/{header}"),
        ("op/op_api/aclnn_api.cpp.j2", f"op_api/{operator.api_source}"),
    ]
    if runs is None:  # an operator running another's kernel calls that one's L0 op
        templates += [("op/op_api/l0.h.j2", f"op_api/{op}.h"), ("op/op_api/l0.cpp.j2", f"op_api/{op}.cpp")]
    for template, name in templates:
        files[name] = render(template, name, spec_name, **common)
    return files


def _reduce_view(reduced: ChannelSum | None) -> dict[str, Code] | None:
    if reduced is None:
        return None
    return {"of": ident(reduced.of), "like": ident(reduced.like)}


def render_shared_header(plans: list[OperatorPlan]) -> dict[str, str]:
    """One header declaring the APIs of every operator of a directory that names it (in their order), as
    ops-nn's aclnn_logsigmoid.h declares aclnnLogSigmoid and aclnnLogSigmoidForward."""
    first = plans[0]
    header = first.header_name
    apis = [_api_view(s) for plan in plans for s in plan.signatures]
    guard = ident(f"OP_API_INC_ACLNN_{first.api_snake.upper()}_H_")
    name = f"op_api/{header}"
    return {name: render("op/op_api/aclnn_api.h.j2", name, plans[0].source, apis=apis, guard=guard)}


def _api_view(sig: ApiSignature) -> dict:
    return {
        "name": ident(sig.name),
        "get_workspace": ident(sig.get_workspace_name),
        "phase_one_params": code(sig.parameter_list(",\n    ")),
        "inplace_param": next((ident(p.name) for p in sig.params if p.inplace), None),
        "call_args": [ident(p.name) for p in sig.user_params],
        "all_names": [ident(p.name) for p in sig.params],
    }


def _inplace_view(sig: ApiSignature, main: ApiSignature) -> dict:
    """The in-place API forwards to the main one with its tensor standing for every param it replaces."""
    view = _api_view(sig)
    inplace = view["inplace_param"]
    own = next(p for p in sig.params if p.inplace)
    forward = []
    for p in main.user_params:
        if p.name not in sig.replaced:
            forward.append(ident(p.name))
        elif p.ctype.startswith("const") or not own.ctype.startswith("const"):
            forward.append(inplace)
        else:  # a header that declares the in-place tensor const still has it written: the main API's out
            forward.append(code(f"const_cast<{p.ctype}{p.stars}>({inplace})"))
    view["forward_args"] = forward
    return view
