"""An API that runs another operator's kernel (`kernel.runs`), as ops-nn's op_api calls another OpType's L0 op:
aclnnSilu launches Swish with scale 1.0, aclnnLogSigmoidForward launches LogSigmoid. Such an operator has no OpDef,
tiling or kernel of its own; its op_api calls the other operator's L0 op, which the same spec file generates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from opgen.lang import Code, cpp
from opgen.plan.kernel import aicore_dtypes
from opgen.plan.opdef import OpDefAttr, opdef_plan
from opgen.spec.base import ParamKind
from opgen.spec.diagnostics import FieldPath
from opgen.spec.model import OpSpec

# The Python values an attribute of each kind takes (a bool is no Float or Int).
_VALUES = {"Float": (int, float), "Int": (int,), "Bool": (bool,), "String": (str,)}


@dataclass(frozen=True)
class RunsPlan:
    op_type: str  # the OpType whose L0 op the op_api calls
    l0_header: str  # that operator's L0 header, e.g. swish.h
    args: tuple[Code, ...]  # the values passed for its L0 op's attribute parameters, in their order


@dataclass(frozen=True)
class RunsProblem:
    path: FieldPath
    message: str


def l0_attrs(spec: OpSpec) -> list[OpDefAttr]:
    """The attributes an operator's L0 op takes as parameters (those an API parameter carries), in order."""
    return [a for a in opdef_plan(spec).attrs if a.param is not None]


def runs_plan(spec: OpSpec, siblings: Sequence[OpSpec]) -> tuple[RunsPlan | None, list[RunsProblem]]:
    """The other operator's L0 call, or the problems with `kernel.runs` (file-level: the target is a sibling)."""
    runs = spec.kernel.runs
    if runs is None:
        return None, []
    here: FieldPath = ("kernel", "runs", "type")
    others = [s for s in siblings if s.operator.type != spec.operator.type]
    target = next((s for s in others if s.operator.type == runs.type), None)
    if target is None:
        names = ", ".join(s.operator.type for s in others) or "none"
        return None, [RunsProblem(here, f"no other operator of this spec file has OpType {runs.type} ({names})")]
    problems = []
    if target.kernel.runs is not None:
        problems.append(RunsProblem(here, f"{runs.type} runs {target.kernel.runs.type}'s kernel: name that one"))
    if spec.opdef.model_fields_set:
        problems.append(RunsProblem(("opdef",), "an operator that runs another's kernel has no OpDef of its own"))
    mine, theirs = opdef_plan(spec), opdef_plan(target)
    for what, count, wanted in (
        ("tensor inputs", len(mine.read_inputs), len(theirs.read_inputs)),
        ("computed outputs", len(mine.outputs), len(theirs.outputs)),
    ):
        if count != wanted:
            message = f"{runs.type}'s L0 op takes {wanted} {what}, in order; this API has {count}"
            problems.append(RunsProblem(here, message))
    missing = [d.name for d in aicore_dtypes(spec) if d not in aicore_dtypes(target)]
    if missing:
        problems.append(RunsProblem(here, f"{runs.type}'s kernel has no {', '.join(missing)}"))
    attrs = l0_attrs(target)
    by_name = {str(a.name): a for a in attrs}
    for name, value in runs.attrs.items():
        attr = by_name.get(name)
        if attr is None:
            listed = ", ".join(by_name) or "none"
            message = f"'{name}' is not an attribute {runs.type}'s L0 op takes ({listed})"
            problems.append(RunsProblem(("kernel", "runs", "attrs", name), message))
        elif type(value) not in _VALUES[str(attr.kind)]:
            message = f"{value!r} is not a value of {runs.type}'s {attr.kind} attribute {name}"
            problems.append(RunsProblem(("kernel", "runs", "attrs", name), message))
    passed = {str(a.name): str(a.param) for a in attrs if str(a.name) not in runs.attrs and _passes(spec, target, a)}
    absent = [name for name in by_name if name not in runs.attrs and name not in passed]
    if absent:
        message = f"give the value of {runs.type}'s attribute {', '.join(absent)} (its L0 op takes it)"
        problems.append(RunsProblem(("kernel", "runs"), message))
    if problems:
        return None, problems
    args = tuple(
        Code(passed[str(a.name)]) if str(a.name) in passed else _literal(str(a.kind), runs.attrs[str(a.name)])
        for a in attrs
    )
    return RunsPlan(runs.type, f"{target.operator.file_stem}.h", args), []


# The parameter kinds an attribute passes through as the plain value the L0 op takes.
_PASSED_KINDS = (ParamKind.INT64, ParamKind.BOOL)


def _passes(spec: OpSpec, target: OpSpec, attr: OpDefAttr) -> bool:
    """Whether this API has the parameter the other operator's attribute carries, of the same kind, passed as is."""
    theirs = target.param(str(attr.param))
    mine = next((p for p in spec.params if p.name == theirs.name), None)
    return mine is not None and mine.kind is theirs.kind and theirs.kind in _PASSED_KINDS and not attr.texts


def _literal(kind: str, value: bool | int | float | str) -> Code:
    if kind == "Float":
        return cpp.float_literal(float(value))
    if kind == "Int":
        return Code(f"static_cast<int64_t>({int(value)})")
    if kind == "Bool":
        return Code("true" if value else "false")
    return cpp.string(str(value))
