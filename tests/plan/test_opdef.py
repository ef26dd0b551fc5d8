"""Each spec's OpDef (the graph interface: inputs, outputs, attributes in order) against ops-nn's, and pinned.

The facts come from ops-nn's `op_host/*_def.cpp` as `../shared/reference/ops-nn-opdefs.md` tabulates them
(skipped without it); `tests/fixtures/opdefs.md` pins every spec's OpDef in the same table form, so a change to
any graph interface shows in review. Before the `opdef` section, 24 of the 42 OpDefs ops-nn also defines differed
(names, order, GeluV2's approximate as Int, MishGrad's missing tanhx, LogSigmoidGrad's extra buffer, defaults).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from spec_list import ROOT, kernel_operators

from opgen.plan.opdef import OpDefPlan, opdef_plan

REFERENCES = (ROOT.parent / "shared" / "reference", Path("/work/shared/reference"))
PINNED = ROOT / "tests" / "fixtures" / "opdefs.md"

# OpDefs still apart from ops-nn's, and why (the test fails once one matches, so the list stays true).
KNOWN_DIFFERENCES: dict[str, str] = {}


@dataclass(frozen=True)
class Facts:
    """One OpDef as comparable values: ((name, optional), ...) per direction, attrs (name, required, kind, default)."""

    inputs: tuple[tuple[str, bool], ...]
    outputs: tuple[tuple[str, bool], ...]
    attrs: tuple[tuple[str, bool, str, object], ...]


_TENSOR = re.compile(r"^(in|out) `(\w+)`(?: \((OPTIONAL|REQUIRED)\))?$")
_ATTR = re.compile(r"^`(\w+)` (OPTIONAL|REQUIRED) (\w+)\((.*)\)$")


def _value(kind: str, text: str) -> object:
    """A C++ default literal as a value: floats rounded to float32 (`1.0f / 6.0f` divided), None when none."""
    text = text.strip()
    if not text:
        return None
    if re.fullmatch(r"[A-Za-z_:][A-Za-z0-9_:]*", text) and text not in ("true", "false"):
        return text  # a named constant (DEFAULT_ALPHA, ge::DT_INT8): compared as written
    if kind == "Float":
        parts = [float(part.strip().rstrip("f")) for part in text.split("/")]
        value = parts[0] / parts[1] if len(parts) == 2 else parts[0]
        return float(np.float32(value))
    if kind == "String":
        return text.strip('"')
    if kind == "Bool":
        return text == "true"
    return int(text) if kind == "Int" else text  # list kinds (ListInt({-1})): compared as written


def parse_row(io_cell: str, attrs_cell: str) -> Facts:
    ins, outs = [], []
    for item in io_cell.split("; "):
        match = _TENSOR.match(item.strip())
        assert match, f"unreadable tensor {item!r}"
        (ins if match[1] == "in" else outs).append((match[2], match[3] == "OPTIONAL"))
    attrs = []
    if attrs_cell.strip() not in ("—", "-", ""):
        for item in attrs_cell.split("; "):
            match = _ATTR.match(item.strip())
            assert match, f"unreadable attribute {item!r}"
            attrs.append((match[1], match[2] == "REQUIRED", match[3], _value(match[3], match[4])))
    return Facts(tuple(ins), tuple(outs), tuple(attrs))


def parse_table(path: Path) -> dict[str, Facts]:
    """OpType -> Facts from a markdown table whose columns start OpType | dir | inputs / outputs | attributes."""
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 4 or cells[0] in ("OpType",) or set(cells[0]) <= {"-"}:
            continue
        table[cells[0]] = parse_row(cells[2], cells[3])
    return table


def plan_facts(opdef: OpDefPlan) -> Facts:
    return Facts(
        tuple((str(i.name), i.optional) for i in opdef.inputs),
        tuple((str(o.name), o.optional) for o in opdef.outputs),
        tuple((str(a.name), a.required, str(a.kind), _value(str(a.kind), a.default or "")) for a in opdef.attrs),
    )


def pinned_row(op_type: str, directory: str, opdef: OpDefPlan) -> str:
    """The OpDef as a row of the reference's table (OpType | dir | inputs / outputs | attributes)."""
    tensors = [f"in `{i.name}`" + (" (OPTIONAL)" if i.optional else "") for i in opdef.inputs]
    tensors += [f"out `{o.name}`" + (" (OPTIONAL)" if o.optional else "") for o in opdef.outputs]
    attrs = [f"`{a.name}` {a.attr_type} {a.kind}({a.default or ''})" for a in opdef.attrs]
    return f"| {op_type} | {directory} | {'; '.join(tensors)} | {'; '.join(attrs) or '—'} |"


def _reference() -> dict[str, Facts]:
    for folder in REFERENCES:
        path = folder / "ops-nn-opdefs.md"
        if path.is_file():
            return parse_table(path)
    pytest.skip("ops-nn-opdefs.md is not here (../shared/reference)")


OPERATORS = kernel_operators()  # an operator running another's kernel (kernel.runs) has no OpDef of its own


def _pinned_types() -> set[str]:
    rows = [line for line in PINNED.read_text(encoding="utf-8").splitlines() if line.startswith("| ") and "`" in line]
    return {line.split(" | ")[0].removeprefix("| ") for line in rows}


# The shipped operators (those tests/fixtures/opdefs.md pins). A user's new spec whose OpType ops-nn also defines
# (relu6, softsign) is valid with its own graph interface: it must not fail the suite, so it is not held here.
SHIPPED = {stem: spec for stem, spec in OPERATORS.items() if spec.operator.type in _pinned_types()}


@pytest.mark.parametrize("stem", list(SHIPPED))
def test_opdef_equals_ops_nn(stem: str) -> None:
    spec = SHIPPED[stem]
    reference = _reference()
    op_type = spec.operator.type
    if op_type not in reference:
        pytest.skip(f"ops-nn defines no OpType {op_type}")
    if op_type in KNOWN_DIFFERENCES:
        pytest.xfail(KNOWN_DIFFERENCES[op_type])
    assert plan_facts(opdef_plan(spec)) == reference[op_type]


def test_known_differences_still_differ() -> None:
    """A known difference that no longer holds must leave the list (xfail above would hide the match)."""
    reference = _reference()
    by_type = {spec.operator.type: spec for spec in OPERATORS.values()}
    for op_type in KNOWN_DIFFERENCES:
        assert plan_facts(opdef_plan(by_type[op_type])) != reference[op_type], op_type


def test_every_opdef_is_pinned() -> None:
    """tests/fixtures/opdefs.md holds the OpDef of every operator it names, row for row as the plan makes it, and
    names no operator that is gone. An operator a user adds is not in it yet: its spec alone must not fail here."""
    pinned = [line for line in PINNED.read_text(encoding="utf-8").splitlines() if line.startswith("| ") and "`" in line]
    types = {spec.operator.type for spec in OPERATORS.values()}
    listed = _pinned_types()
    rows = [pinned_row(s.operator.type, s.operator.dir, opdef_plan(s)) for s in OPERATORS.values()]
    assert sorted(row for row in rows if row.split(" | ")[0].removeprefix("| ") in listed) == sorted(pinned)
    assert listed <= types


def test_pinned_rows_read_back() -> None:
    """The pinned table parses like the reference (one reader for both) into the plans' facts."""
    table = parse_table(PINNED)
    for spec in OPERATORS.values():
        if spec.operator.type in table:  # an operator a user adds is not pinned yet
            assert table[spec.operator.type] == plan_facts(opdef_plan(spec))


def test_reference_parser_reads_defaults() -> None:
    facts = parse_row("in `x`; in `t` (OPTIONAL); out `y`", "`a` OPTIONAL Float(1.0f / 6.0f); `m` REQUIRED Float()")
    assert facts.inputs == (("x", False), ("t", True))
    assert facts.attrs == (("a", False, "Float", float(np.float32(1 / 6))), ("m", True, "Float", None))
