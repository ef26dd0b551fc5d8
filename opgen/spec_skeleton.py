"""`opgen new OpType`: a commented spec skeleton to start a new operator from.

Names, order, kinds and defaults of the parameters come from the aten counterpart's schema (opgen.spec.aten, no
torch needed): tensors become `tensor` params, `Scalar`/`float` become aclScalar `scalar` params with aten's
default, `bool` a bool flag; the output is named after aten's out argument (`out`, `grad_input` -> gradInput);
an in-place variant is added where aten has `name_`. What cannot be known from aten (the formula, the dtypes per
SoC, the error table's exact rows, the Chinese docs) is filled with the usual ops-nn choices and marked `TODO`;
the formula is the literal `TODO`, so `opgen check` points at it until it is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from opgen.lang import cpp
from opgen.lang.data import hash_comment, yaml_text
from opgen.spec import aten
from opgen.spec.aten_unused import CPP_TYPES
from opgen.spec.base import snake_case
from opgen.spec.diagnostics import SpecError
from opgen.spec.yaml_source import load_yaml_documents

_CAMEL_TYPE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_FLOAT_DTYPES = "[FLOAT, FLOAT16, BFLOAT16]"


class SkeletonError(ValueError):
    pass


@dataclass(frozen=True)
class SkeletonParam:
    name: str  # aclnn (camelCase) name
    aten_name: str
    kind: str  # tensor / scalar / bool / int64 / string, or "" when aten's type has no spec kind yet
    aten_type: str
    default: str | None  # YAML text of the default
    output: bool = False
    keyword_only: bool = False  # after aten's `*`


@dataclass(frozen=True)
class FolderSpec:
    """What a skeleton reads of a spec already in its folder (the raw YAML, not validated)."""

    stem: str  # file stem: what derivative_of.forward names
    op_type: str
    aten: str
    params: dict[str, str]  # Python (aten) name -> the spec's C name, of the parameters that are not outputs
    outputs: dict[str, str] = field(default_factory=dict)  # the same of its outputs


def folder_specs(folder: Path | None) -> list[FolderSpec]:
    """The specs in `folder`, read leniently: a skeleton follows their names and links to their forward ops."""
    found: list[FolderSpec] = []
    for path in sorted(folder.glob("*.yaml")) if folder is not None and folder.is_dir() else []:
        try:
            documents = load_yaml_documents(path.read_text(encoding="utf-8"), path.name)
        except (OSError, UnicodeDecodeError, SpecError):
            continue
        for document in documents:
            data = document.data if isinstance(document.data, dict) else {}
            operator, api = data.get("operator") or {}, data.get("api") or {}
            params: dict[str, str] = {}
            outputs: dict[str, str] = {}
            for param in data.get("params") or []:
                if isinstance(param, dict) and isinstance(param.get("name"), str):
                    # an output's spelling is not an input's: log_sigmoid's output `out` says `py_name: output`,
                    # and tanh_backward's input `output` must not become `out`
                    kind = outputs if param.get("direction") == "output" else params
                    kind[str(param.get("py_name") or snake_case(param["name"]))] = param["name"]
            if isinstance(operator, dict) and isinstance(api, dict):
                stem, op_type, aten_name = path.stem, str(operator.get("type", "")), str(api.get("aten") or "")
                found.append(FolderSpec(stem, op_type, aten_name, params, outputs))
    return found


def camel_case(snake: str) -> str:
    """aten's `grad_output` -> aclnn's `gradOutput` (`self` stays `self`)."""
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def default_api_name(op_type: str) -> str:
    """ops-nn names the aclnn API of a `...Grad[V2]` kernel `aclnn...Backward`."""
    base = re.sub(r"GradV\d+$|Grad$", "Backward", op_type)
    return "aclnn" + base


def _yaml_default(arg: aten.AtenArg) -> str | None:
    if arg.default is None or arg.default == "None":
        return None
    if arg.type == "bool":
        return "true" if arg.default == "True" else "false"
    if arg.type == "int":
        return str(int(arg.default))
    try:
        return repr(float(arg.default))
    except ValueError:
        return yaml_text(arg.default.strip('"'))


def _kind(arg: aten.AtenArg) -> str:
    if arg.is_tensor:
        return "tensor"
    if arg.type in ("Scalar", "float", "Scalar?", "float?"):
        return "scalar"
    if arg.type == "bool":
        return "bool"
    if arg.type == "int":
        return "int64"
    if arg.type == "str":
        return "string"
    return ""


def _c_name(aten_name: str, folder: Sequence[FolderSpec], *, output: bool = False) -> str:
    """aten's argument name in camelCase, unless the folder's specs already spell it otherwise (hardtanh's
    `min_val` is `min` in ops-nn's APIs): one operator family, one spelling (an output's of outputs only)."""
    spelt = [spec.outputs if output else spec.params for spec in folder]
    spellings = [names[aten_name] for names in spelt if aten_name in names]
    return max(sorted(set(spellings)), key=spellings.count) if spellings else camel_case(aten_name)


def unused_from_aten(op: aten.AtenOp) -> list[str]:
    """aten's arguments with no parameter kind that an API may leave out (api.aten_unused): rrelu's generator."""
    schema = op.functional
    assert schema is not None
    return [a.name for a in schema.args if not _kind(a) and a.type in CPP_TYPES and a.default == "None"]


def params_from_aten(op: aten.AtenOp, folder: Sequence[FolderSpec] = ()) -> list[SkeletonParam]:
    schema = op.functional
    assert schema is not None
    params = [
        SkeletonParam(
            _c_name(arg.name, folder),
            arg.name,
            _kind(arg),
            arg.type,
            _yaml_default(arg),
            keyword_only=arg.kwarg_only,
        )
        for arg in schema.args
        if arg.name not in unused_from_aten(op)
    ]
    if op.out is not None and len(op.out.out_args) == len(schema.returns):
        out_names = [arg.name for arg in op.out.out_args]  # aten's out overload names them (output, buffer)
    elif len(schema.returns) == 1:
        out_names = ["grad_input" if op.name.endswith("_backward") else "out"]
    else:
        out_names = [r.name or f"out{i}" for i, r in enumerate(schema.returns)]
    params += [
        SkeletonParam(_c_name(n, folder, output=True), n, "tensor", "Tensor", None, output=True) for n in out_names
    ]
    return params


def _q(text: str) -> str:
    return str(yaml_text(text))


_GRAD_TYPE = re.compile(r"GradV\d+$|Grad$")


def render_skeleton(
    op_type: str, *, aten_name: str | None = None, api_name: str | None = None, folder: Path | None = None
) -> str:
    """The skeleton's YAML text; `folder` is the spec folder it goes to (its specs' parameter spellings are
    followed, and a backward operator links to its forward spec there)."""
    if not _CAMEL_TYPE.match(op_type):
        raise SkeletonError(f"{op_type!r}: an OpType is CamelCase, e.g. HardSwish")
    api = api_name or default_api_name(op_type)
    if not re.fullmatch(r"aclnn[A-Z][A-Za-z0-9]*", api):
        raise SkeletonError(f"{api!r}: an aclnn API name looks like aclnnHardswish")
    base = api.removeprefix("aclnn")
    aten_name = aten_name if aten_name is not None else snake_case(base)
    op = aten.aten_op(aten_name) if aten_name else None
    if aten_name and (op is None or op.functional is None):
        hint = sorted(n for n in aten.known_names() if n.startswith(aten_name[:4]))[:8]
        raise SkeletonError(
            f"aten has no op {aten_name!r} (give --aten NAME, or --aten '' for none)"
            + (f"; similar: {', '.join(hint)}" if hint else "")
        )

    others = folder_specs(folder)
    backward = aten_name.endswith("_backward") if aten_name else bool(_GRAD_TYPE.search(op_type))
    if op is not None:
        params = params_from_aten(op, others)
    elif backward:  # the incoming gradient, the forward's input, and the gradient it gives
        params = [
            SkeletonParam("gradOutput", "grad_output", "tensor", "Tensor", None),
            SkeletonParam("self", "self", "tensor", "Tensor", None),
            SkeletonParam("gradInput", "grad_input", "tensor", "Tensor", None, output=True),
        ]
    else:
        params = [
            SkeletonParam("self", "self", "tensor", "Tensor", None),
            SkeletonParam("out", "out", "tensor", "Tensor", None, output=True),
        ]
    inputs = [p for p in params if p.kind == "tensor" and not p.output]
    output = next(p for p in params if p.output)
    tensors = [p for p in params if p.kind == "tensor"]
    nullable = [p for p in params if p.kind in ("tensor", "scalar", "string")]
    enums = [p for p in params if p.kind == "string"]

    directory = snake_case(op_type)
    lines = [
        f"# {hash_comment(op_type)} / {hash_comment(api)}: skeleton written by `opgen new`. Write the formula, check",
        "# each line marked TODO (the values there are the usual ops-nn choices), then `opgen check specs/`,",
        "# `opgen build specs/` and the tests (see docs/adding-an-operator.md).",
        "operator:",
        f"  type: {op_type}",
        f"  dir: {directory}",
        *_stem_lines(directory),
        "  category: activation  # TODO: the ops-nn category directory",
        "  # TODO: the 算子功能 sentence of the doc (Chinese, as in the ops-nn docs)",
        f"  function: {_q(_function_text(op_type, aten_name, backward))}",
        "",
        "api:",
        f"  name: {api}",
    ]
    if op is not None:
        lines.append(f"  aten: {aten_name}")
    else:
        lines.append("  # aten: no counterpart (the Python binding is then named after the API in snake case)")
    if op is not None and op.inplace is not None and inputs:
        first = inputs[0]
        lines += [
            f"  doc_name: {api}&aclnnInplace{base}",
            "  inplace:",
            f"    name: aclnnInplace{base}",
            f"    param: {first.name}Ref",
            f"    replaces: [{first.name}, {output.name}]",
            f"    aten: {aten_name}_",
        ]
    if op is not None and unused_from_aten(op):
        lines.append(f"  aten_unused: [{', '.join(unused_from_aten(op))}]  # aten takes them, the API does not")
    lines += [
        "",
        "socs:  # TODO: one row per product of the doc's 产品支持情况 table",
        "  - {soc: ascend950, supported: true}",
        "  - {soc: ascend910_93, supported: true}",
        "  - {soc: ascend910b, supported: true}",
        "",
        "params:",
    ]
    for param in params:
        lines += _param_lines(param, inputs, output, op_type)
    if backward:
        lines += ["", *_derivative_lines(op_type, aten_name, params, others)]
    outputs = [p for p in params if p.output]
    lines += ["", "formula:"]
    if len(outputs) == 1:
        lines += [
            f"  output: {output.name}",
            "  # TODO: the math, in the formula language (`opgen functions` lists the functions), e.g.",
            "  #   where(self > 0, self, self * negativeSlope)",
            "  expr: TODO",
        ]
    else:
        lines += [
            "  # TODO: the math of each output the API writes, in the formula language (`opgen functions` lists the",
            "  #   functions); an output the API takes but never writes is `written: false` among params, not here",
            "  outputs:",
            *(f"    {p.name}: TODO" for p in outputs),
        ]
    lines += [
        "",
        "errors:  # TODO: the doc's error table, row by row, in its order",
        "  - status: ACLNN_ERR_PARAM_NULLPTR",
        "    code: 161001",
        f"    check: {{not_null: [{', '.join(p.name for p in nullable)}]}}",
        f"    message: {_q(_or([p.name for p in nullable]) + ' is nullptr.')}",
        f"    doc: {_q('传入的' + '、'.join(p.name for p in nullable) + '是空指针。')}",
        "  - status: ACLNN_ERR_PARAM_INVALID",
        "    code: 161002",
        f"    check: {{dtype_supported: [{', '.join(p.name for p in inputs)}]}}",
        f"    message: {_q('the dtype of ' + _or([p.name for p in inputs]) + ' is not supported.')}",
        f"    doc: {_q('、'.join(p.name for p in inputs) + '的数据类型不在支持的范围之内。')}",
        "  - status: ACLNN_ERR_PARAM_INVALID",
        "    code: 161002",
        f"    check: {{max_rank: [{', '.join(p.name for p in tensors)}]}}",
        f"    message: {_q('the dim of ' + _or([p.name for p in tensors]) + ' is greater than 8.')}",
        f"    doc: {_q('、'.join(p.name for p in tensors) + '的维度大于8。')}",
        "  - status: ACLNN_ERR_PARAM_INVALID",
        "    code: 161002",
        f"    check: {{same_shape: [{', '.join(p.name for p in tensors)}]}}",
        f"    message: {_q('the shapes of ' + ', '.join(p.name for p in tensors) + ' differ.')}",
        f"    doc: {_q('、'.join(p.name for p in tensors) + '的shape不一致。')}",
    ]
    for param in enums:
        lines += [
            "  - status: ACLNN_ERR_PARAM_INVALID",
            "    code: 161002",
            f"    check: {{one_of: [{param.name}]}}",
            f"    message: {_q(param.name + ' is not one of the values it accepts.')}",
            f"    doc: {_q(param.name + '的取值不在支持的范围之内。')}",
        ]
    lines += [
        "",
        "example:",
        "  tensors:",
    ]
    for param in tensors:
        data = "[-2, -1, 0, 3]"
        if param.output or param.name.startswith("grad"):
            data = "[0, 0, 0, 0]" if param.output else "[1, 1, 1, 1]"
        lines.append(f"    {param.name}: {{shape: [2, 2], dtype: FLOAT, data: {data}}}")
    scalars = [p for p in params if p.kind in ("scalar", "bool", "int64", "string")]
    if scalars:
        values = ", ".join(f"{p.name}: {p.default if p.default is not None else _example_value(p)}" for p in scalars)
        lines.append(f"  scalars: {{{values}}}")
    lines += [
        "",
        "golden:",
        "  value_range: [-10, 10]",
        "  # TODO: add every boundary point of the formula's branches (a threshold, +-lambd, +-3, ...)",
        "  special_values: [0.0, -0.0, inf, -inf, nan]",
        "  tolerance:",
        "    FLOAT16: {rtol: 1.0e-3, atol: 1.0e-3, max_fail_ratio: 1.0e-3, standard: 双千分之一}",
        "    FLOAT: {rtol: 1.0e-4, atol: 1.0e-4, max_fail_ratio: 1.0e-4, standard: 双万分之一}",
        "    BFLOAT16: {rtol: 4.0e-3, atol: 4.0e-3, max_fail_ratio: 4.0e-3}",
        "",
        "kernel:",
        "  # FLOAT16 and BFLOAT16 computed in float, as most ops-nn activation kernels do. Dropping FLOAT16 computes",
        "  # it natively (faster); `opgen check` then measures its precision and says if it misses its standard.",
        "  compute_in_float: [FLOAT16, BFLOAT16]",
    ]
    return "\n".join(lines) + "\n"


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _example_value(param: SkeletonParam) -> str:
    return {"bool": "false", "int64": "0", "string": "TODO"}.get(param.kind, "1.0")


def _stem_lines(directory: str) -> list[str]:
    """The kernel's entry function is named after the file stem (the directory by default): where that is a C
    library or Ascend C name (tanh, erf, exp), the operator gets a stem that is not, and keeps its directory."""
    reason = cpp.reserved_reason(directory)
    if reason is None:
        return []
    stem = f"{directory}_op"
    while cpp.reserved_reason(stem) is not None:
        stem += "_"
    return [
        f"  # the kernel's entry function takes the stem's name: '{directory}' {hash_comment(reason)}",
        f"  stem: {stem}",
    ]


def _function_text(op_type: str, aten_name: str | None, backward: bool) -> str:
    counterpart = f"（对应PyTorch的{aten_name}）" if aten_name else ""
    return f"完成{op_type}的{'反向' if backward else ''}计算{counterpart}。"


def _forward_of(op_type: str, aten_name: str | None, others: Sequence[FolderSpec]) -> tuple[str, FolderSpec | None]:
    """The forward operator a backward one differentiates: its aten name (or OpType), and its spec in the folder."""
    if aten_name:
        name = aten_name.removesuffix("_backward")
        return name, next((s for s in others if s.aten == name), None)
    forward_type = _GRAD_TYPE.sub("", op_type)
    return forward_type, next((s for s in others if s.op_type == forward_type), None)


def _derivative_lines(
    op_type: str, aten_name: str | None, params: list[SkeletonParam], others: Sequence[FolderSpec]
) -> list[str]:
    """`derivative_of` of a backward operator: `opgen check` then verifies the formula against the forward's.
    Active where the forward's spec is in the folder, else commented out until it is."""
    inputs = [p for p in params if p.kind == "tensor" and not p.output]
    grad = next((p for p in inputs if p.aten_name.startswith("grad")), inputs[0])
    held = [p for p in inputs if p is not grad]
    x = held[0] if held else grad
    fields = [f"grad: {grad.name}", f"input: {x.name}"]
    flag = next((p for p in params if p.kind == "bool" and p.aten_name.endswith("is_result")), None)
    if flag is not None:
        fields.append(f"result_flag: {flag.name}")
    elif x.aten_name in ("output", "result"):
        fields.append("holds: result")
    name, forward = _forward_of(op_type, aten_name, others)
    if forward is None:
        guess = name if aten_name else snake_case(name)
        return [
            f"# TODO: once the forward operator's spec ({hash_comment(name)}) is in this folder, link it (by its",
            "# file stem) so that `opgen check` verifies the formula against its derivative:",
            f"# derivative_of: {{{hash_comment(', '.join([f'forward: {guess}', *fields]))}}}",
        ]
    # the forward's parameters this spec spells otherwise (matched by their aten names)
    ours = {p.aten_name: p.name for p in params if p.kind != "tensor"}
    renamed = {theirs: ours[arg] for arg, theirs in forward.params.items() if ours.get(arg, theirs) != theirs}
    if renamed:
        fields.append("params: {" + ", ".join(f"{k}: {v}" for k, v in renamed.items()) + "}")
    return [
        f"# the forward operator ({hash_comment(forward.stem)}.yaml): `opgen check` verifies that the formula is "
        f"{grad.name} times its derivative",
        f"derivative_of: {{{', '.join([f'forward: {forward.stem}', *fields])}}}",
    ]


def _param_lines(param: SkeletonParam, inputs: list[SkeletonParam], output: SkeletonParam, op_type: str) -> list[str]:
    lines = [f"  - name: {param.name}"]
    if not param.kind:
        lines += [
            f"    # TODO: aten's `{hash_comment(param.aten_type)} {hash_comment(param.aten_name)}` needs a parameter "
            "kind opgen does not have yet",
            "    kind: TODO",
        ]
        return lines
    lines.append(f"    kind: {param.kind}")
    if param.output:
        lines.append("    direction: output")
    what = "输出" if param.output else "输入" if param.kind == "tensor" else "参数"
    lines.append(f"    description: {_q(f'表示{op_type}的{what}{param.name}。')}  # TODO: 参数说明 of the doc")
    if param.kind == "tensor":
        lines += [
            f"    dtypes: {_FLOAT_DTYPES}  # TODO: the doc's dtype column",
            "    formats: [ND]",
            "    rank: [0, 8]",
            "    non_contiguous: true",
        ]
        if not param.output:
            lines.append("    empty_tensor: true")
        if param.output:
            lines.append(f"    dtype: {{castable_from: [{', '.join(p.name for p in inputs)}]}}")
            lines.append(f"    shape: {{same_as: {inputs[0].name}}}" if inputs else "")
    elif param.kind == "scalar":
        lines.append("    dtype: {castable_to: FLOAT}")
        if param.default is not None:
            lines.append(f"    default: {param.default}")
    elif param.kind == "bool" and param.default is not None:
        lines.append(f"    default: {param.default}")
    elif param.kind == "int64":
        lines.append("    # values: [0, 1]  # TODO: when only some values are allowed (each selects a kernel mode)")
        if param.default is not None:
            lines.append(f"    default: {param.default}")
    elif param.kind == "string":
        first = param.default if param.default is not None else "TODO"
        lines.append(f"    values: [{first}]  # TODO: every value the API accepts (each selects a kernel mode)")
        lines.append("    ctype: const char*  # TODO: as the header spells it (char* in some ops-nn APIs)")
        if param.default is not None:
            lines.append(f"    default: {param.default}")
    if snake_case(param.name) != param.aten_name:
        lines.append(f"    py_name: {param.aten_name}")
    if param.keyword_only and not param.output:
        lines.append("    keyword_only: true  # after aten's `*`")
    return [line for line in lines if line]


def write_skeleton(path: Path, text: str, *, force: bool = False) -> None:
    if path.exists() and not force:
        raise SkeletonError(f"{path} exists (--force overwrites it)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
