"""The error rows the generated host tiling checks: those of status ACLNN_ERR_INNER_TILING_ERROR (561002).

CANN generates the aclnn API of an operator without a hand-written op_api from its OpDef (`ACLNNTYPE aclnn`); that
API passes the caller's tensors to the operator as they are, and what its infershape and tiling refuse comes back
from phase one as ACLNN_ERR_INNER_TILING_ERROR. opgen keeps one op_api for every operator, but a row of that status
is not checked there: its check kind's predicate (the same `CheckKind.cpp`, spelled with `TILING_ACCESS`) runs in
the tiling, over the shapes of the launched operands and the attributes, logs the row's message and fails the
tiling; the launcher turns that into the status (the twin's `CreatAiCoreKernelLauncher`), the L0 op hands its
launch's status back and the op_api returns it. The L0 op allocates each output with the caller's output shape, so
the tiling sees it as the OpDef-generated API's does (emit/op_api.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.lang import Code, code, cpp
from opgen.plan.opdef import OpDefPlan
from opgen.spec.checks import TILING_ACCESS, cpp_shape
from opgen.spec.model import OpSpec, ParamKind


@dataclass(frozen=True)
class TilingRow:
    condition: Code  # true when the row fails
    setup: tuple[Code, ...]  # statements computing what the condition reads
    message: Code  # a printf format literal printing the row's message


@dataclass(frozen=True)
class TilingDeclarations:
    lines: tuple[Code, ...]  # pointer declarations
    null: Code  # true when one of them is null


@dataclass(frozen=True)
class TilingChecks:
    """The tiling's check function: the operands and attributes its rows read, then the rows in table order."""

    pointers: tuple[TilingDeclarations, ...]  # the context's operands and attributes, then attribute values
    locals: tuple[Code, ...]  # the names the rows read: `<tensor>Shape`, and host values under their API names
    rows: tuple[TilingRow, ...]
    strings: bool  # a row compares strings (std::strcmp)


def tiling_rows_of(spec: OpSpec) -> list[int]:
    return [i for i, row in enumerate(spec.errors) if row.in_tiling]


def tiling_checks(spec: OpSpec, opdef: OpDefPlan) -> TilingChecks | None:
    """The tiling's checks, or None when no row is the tiling's."""
    indices = tiling_rows_of(spec)
    if not indices:
        return None
    rows = []
    for i in indices:
        check = spec.errors[i].check.cpp(spec, i, TILING_ACCESS)
        rows.append(
            TilingRow(
                code(cpp.without_outer_parentheses(check.condition)),
                tuple(code(line) for line in check.setup),
                cpp.format_string(spec.errors[i].message),
            )
        )
    text = "\n".join([*(r.condition for r in rows), *(line for r in rows for line in r.setup)])
    # the context's operands (and its attributes), then the attribute values: each group declared, then null-checked
    groups: tuple[list[str], list[str]] = ([], [])
    nulls: tuple[list[str], list[str]] = ([], [])
    locals_: list[str] = []
    inputs = {str(i.param): i.index for i in opdef.inputs if i.param is not None}
    outputs = {str(o.param): o.index for o in opdef.outputs if o.param is not None}
    attrs = {str(a.param): a for a in opdef.attrs if a.param is not None}
    strings = False
    for param in spec.params:
        name = param.name
        if param.kind is ParamKind.TENSOR and cpp.reads(text, cpp_shape(name, TILING_ACCESS)):
            if name in inputs:
                getter = f"context->GetInputShape({inputs[name]})"
            else:
                assert name in outputs, f"{spec.operator.type}: the tiling has no operand carrying '{name}'"
                getter = f"context->GetOutputShape({outputs[name]})"
            groups[0].append(f"const gert::StorageShape* {name}Storage = {getter};")
            nulls[0].append(f"{name}Storage == nullptr")
            locals_.append(f"const gert::Shape& {cpp_shape(name, TILING_ACCESS)} = {name}Storage->GetStorageShape();")
        elif param.kind in (ParamKind.INT64, ParamKind.STRING) and cpp.reads(text, name):
            assert name in attrs, f"{spec.operator.type}: no OpDef attribute carries '{name}'"
            attr = attrs[name]
            if param.kind is ParamKind.STRING:
                strings = True
                groups[1].append(f"const char* {name} = attrs->GetStr({attr.index});")
                nulls[1].append(f"{name} == nullptr")
            else:
                groups[1].append(f"const int64_t* {name}Value = attrs->GetAttrPointer<int64_t>({attr.index});")
                nulls[1].append(f"{name}Value == nullptr")
                locals_.append(f"const int64_t {name} = *{name}Value;")
        else:
            assert param.kind is ParamKind.TENSOR or not cpp.reads(text, name), (
                f"{spec.operator.type}: the tiling cannot read the {param.kind.value} '{name}'"
            )
    if groups[1]:
        groups[0].append("const gert::RuntimeAttrs* attrs = context->GetAttrs();")
        nulls[0].append("attrs == nullptr")
    return TilingChecks(
        tuple(
            TilingDeclarations(tuple(code(line) for line in group), code(" || ".join(null)))
            for group, null in zip(groups, nulls, strict=True)
            if group
        ),
        tuple(code(line) for line in locals_),
        tuple(rows),
        strings,
    )
