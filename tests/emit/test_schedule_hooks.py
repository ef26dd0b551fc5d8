"""The kernel and host emitters ask the operator's schedule what differs per schedule (its templates, the data they
read, whether the host sizes tiles by the elementwise UB cost, whether the kernel runs stages) instead of testing
its class: a schedule the emitters have never heard of, defined here, decides all of it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from opgen.emit import host, kernel
from opgen.lang import ident
from opgen.plan.kernel import KernelPlan
from opgen.plan.opdef import OpDefPlan
from opgen.plan.operator import OperatorPlan, plan_operator
from opgen.plan.schedules.elementwise import Elementwise
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class Marked(Elementwise):
    """An elementwise schedule with its own templates and template data, and its own UB model."""

    name = "marked"
    kernel_template = "marked/kernel.cpp.j2"
    tiling_data_template = "marked/tiling_data.h.j2"
    tiling_template = "marked/tiling.cpp.j2"
    tiling_header_template = "marked/tiling.h.j2"
    elementwise_ub = False

    def kernel_data(self, kernel: KernelPlan, opdef: OpDefPlan) -> dict:
        return super().kernel_data(kernel, opdef) | {"mark": ident(f"{kernel.inputs[0]}Marked")}

    def host_tiling_data(self, opdef: OpDefPlan, kernel: KernelPlan) -> dict:
        return {"mark": [v.mode_index for v in kernel.variants]}

    def shape_rule_data(self, opdef: OpDefPlan) -> dict:
        return {"mark": opdef.input_index(self.shape_sources[0])}


@dataclasses.dataclass(frozen=True)
class Staged(Marked):
    name = "staged"
    row_stages = True


def _plan(schedule: type[Elementwise]) -> tuple[OperatorPlan, OperatorPlan]:
    spec = load_spec(ROOT / "specs" / "leaky_relu.yaml").spec
    plan = plan_operator(spec, "specs/leaky_relu.yaml")
    assert type(plan.schedule) is Elementwise
    return plan, dataclasses.replace(plan, schedule=schedule.from_spec(spec))


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict]]:
    """Each template an emitter renders and the data it hands it, rendering nothing."""
    calls: list[tuple[str, dict]] = []

    def record(template: str, output_path: str, spec_name: object, **context: object) -> str:
        calls.append((template, context))
        return ""

    monkeypatch.setattr(kernel, "render", record)
    monkeypatch.setattr(host, "render", record)
    return calls


def test_the_kernel_renders_the_schedules_templates_with_its_data(rendered: list[tuple[str, dict]]) -> None:
    plan, marked = _plan(Marked)
    kernel.render_kernel(plan)
    kernel.render_kernel(marked)
    (base_kernel, base), (base_tiling, _), (template, context), (tiling, _) = rendered
    assert (base_kernel, base_tiling) == (Elementwise.kernel_template, Elementwise.tiling_data_template)
    assert (template, tiling) == ("marked/kernel.cpp.j2", "marked/tiling_data.h.j2")
    assert "mark" not in base and context["mark"] == "selfMarked"
    # the base's data (the outputs' queues) still comes with the schedule's, and the common data is the same
    assert context["outputs"] == base["outputs"] and context["variants"] == base["variants"]
    assert "reduce" not in context


def test_a_schedule_with_stages_gets_the_stages_programs_and_bare_variant_views(
    rendered: list[tuple[str, dict]],
) -> None:
    plan, staged = _plan(Staged)
    kernel.render_kernel(plan)
    kernel.render_kernel(staged)
    (_, base), _, (_, context), _ = rendered
    assert "reduce" not in base and context["reduce"]["stages"] == []  # leaky_relu's program has no stages
    assert any(v.slots for v in base["variants"])  # its negative_slope
    assert not any(v.slots for v in context["variants"])  # left to the stages' views


def test_the_host_renders_the_schedules_templates_with_its_data(rendered: list[tuple[str, dict]]) -> None:
    plan, marked = _plan(Marked)
    host.render_host(plan)
    host.render_host(marked)
    base = dict(rendered[:4])
    ours = dict(rendered[4:])
    assert set(base) - set(ours) == {Elementwise.tiling_template, Elementwise.tiling_header_template}
    assert set(ours) - set(base) == {"marked/tiling.cpp.j2", "marked/tiling.h.j2"}
    context = ours["marked/tiling.cpp.j2"]
    assert context["mark"] == [v.mode_index for v in plan.kernel.variants]
    assert "mark" not in base[Elementwise.tiling_template]
    assert context["shape"] == base["op/op_host/def.cpp.j2"]["shape"] | {"mark": 0}  # leaky_relu's self: input 0
    # its own UB model: no elementwise variant rows
    assert base[Elementwise.tiling_template]["variants"] and context["variants"] == []
