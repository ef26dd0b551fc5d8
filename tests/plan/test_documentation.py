"""The docs' plan (`OperatorPlan.docs`): what the README and API docs state, decided once as plain frozen data, the
notes a schedule owns (channel inputs, per-channel sums) asked of the schedule rather than read from spec fields."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from opgen.plan.documentation import docs_plan
from opgen.plan.operator import OperatorPlan, plan_operator
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
CHANNEL_NOTE = "元素个数需要为1或等于self的通道数"
CHANNEL_CONSTRAINT = "- 通道广播：weight不按broadcast关系与self广播"


def _plan(name: str) -> OperatorPlan:
    return plan_operator(load_spec(ROOT / "specs" / name).spec, f"specs/{name}")


def _redone(plan: OperatorPlan, **schedule_fields: tuple) -> OperatorPlan:
    """The plan's docs decided again over its schedule with `schedule_fields` replaced."""
    schedule = dataclasses.replace(plan.schedule, **schedule_fields)
    docs = docs_plan(plan.spec, schedule, plan.signatures, plan.kernel, plan.precision)
    return dataclasses.replace(plan, schedule=schedule, docs=docs)


def test_the_docs_plan_is_frozen_data_with_one_entry_per_api() -> None:
    plan = _plan("elu.yaml")
    hash(plan.docs)  # tuples and frozen records all the way down: nothing an emitter could change
    assert len(plan.docs.apis) == len(plan.signatures) == 2
    main, inplace = plan.docs.apis
    assert [p.direction for p in inplace.params if p.name == "selfRef"] == ["输入/输出"]
    assert all("selfRef" not in e.text for e in main.errors)
    assert any("selfRef" in e.text for e in inplace.errors)  # the in-place API names its own tensor


def test_a_channel_inputs_notes_are_the_schedules() -> None:
    plan = _plan("p_relu.yaml")
    weight = next(p for p in plan.docs.apis[0].params if p.name == "weight")
    assert any(note.startswith(CHANNEL_NOTE) for note in weight.notes)
    assert any(line.startswith(CHANNEL_CONSTRAINT) for line in plan.docs.constraints)
    without = _redone(plan, channel_inputs=())  # the same spec, a schedule with no channel inputs: no such notes
    weight = next(p for p in without.docs.apis[0].params if p.name == "weight")
    assert not any(note.startswith(CHANNEL_NOTE) for note in weight.notes)
    assert not any(line.startswith(CHANNEL_CONSTRAINT) for line in without.docs.constraints)


def test_an_elementwise_schedule_adds_no_constraint() -> None:
    assert _plan("elu.yaml").schedule.constraint_notes() == ()


def test_a_summed_output_is_shown_as_the_schedules_per_channel_sum() -> None:
    plan = _plan("p_relu_grad_update.yaml")
    latex = [str(block.latex) for block in plan.docs.formulas]
    assert latex[0].startswith("gradInput = ") and "\\sum" not in latex[0]
    assert latex[1].startswith("gradWeight_{c} = \\sum_{i \\in c} \\left(")
    unsummed = [str(block.latex) for block in _redone(plan, sums=()).docs.formulas]
    assert unsummed[1].startswith("gradWeight = ") and "\\sum" not in unsummed[1]
