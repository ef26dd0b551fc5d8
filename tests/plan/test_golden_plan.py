"""The golden plan (`opgen.plan.golden`): the golden facts the generated golden tests check and the golden scripts
(gen_data.py, compare_data.py) print, decided from the spec once, so both emitters read nothing but the one plan."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from spec_list import GENERATED, every_operator

from opgen.emit import golden_tests, tests
from opgen.plan.golden import GoldenSplit
from opgen.plan.op_api_expectations import Tolerance
from opgen.plan.operator import OperatorPlan, plan_operator


@cache
def _plan(stem: str) -> OperatorPlan:
    return plan_operator(every_operator()[stem], f"specs/{stem}.yaml")


def test_one_output_is_the_n_equals_one_case_of_several():
    """Each computed output is compared at its position among the binding's results: None where the binding returns
    the one array, its index in aten's tuple where it returns several."""
    assert _plan("leaky_relu").golden.results == (("out", None),)
    assert _plan("ge_glu_v2").golden.results == (("out", 0), ("outGelu", 1))


def test_the_formulas_branch_points_follow_the_declared_special_values():
    """gen_data's inputs are led by the declared special values; the golden tests' by those, then the branch
    points."""
    golden = _plan("leaky_relu").golden
    declared = [float(v) for v in every_operator()["leaky_relu"].golden.special_values]
    assert repr(list(golden.special_values)) == repr(declared)  # NaN among them
    assert golden.branch_points == (0.0,)  # self > 0
    assert repr(golden.leading_values) == repr((*declared, 0.0))


def test_the_half_split_schedule_says_how_golden_cases_are_cut():
    """The split is asked of the schedule (its golden_split hook), not of the schedule's class: the split tensor and
    its halves' names, a dim parameter or a literal dim, the example's dim, the half-size inputs by Python name, the
    outputs written per half; gen_data's --shape is the split tensor's (a golden case's half shape doubled along the
    example's dim)."""
    plain = _plan("leaky_relu").golden
    assert plain.split is None and plain.script_shapes == plain.shapes
    grad = _plan("ge_glu_grad_v2").golden
    dim = every_operator()["ge_glu_grad_v2"].example.scalars["dim"]
    assert grad.split == GoldenSplit("self", ("A", "B"), "dim", None, dim, ("grad_output", "gelu"), ("gradInput",))
    assert _plan("fatrelu_mul").golden.split == GoldenSplit("input", ("x1", "x2"), None, -1, -1, (), ())
    for half, full in zip(grad.shapes, grad.script_shapes, strict=True):
        axis = dim % len(half)
        assert full == tuple(2 * n if i == axis else n for i, n in enumerate(half))


def test_both_emitters_print_the_one_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden tests and the golden scripts render what the one golden plan holds: a changed value range,
    tolerance or split in the plan changes both files (neither reads its own copy of the spec's golden section)."""
    plan = _plan("ge_glu_grad_v2")
    assert plan.golden.split is not None
    golden = dataclasses.replace(
        plan.golden,
        value_range=(-2.5, 7.25),
        tolerance={d: Tolerance(0.125, 0.375, 0.0625, "x") for d in plan.golden.tolerance},
        split=dataclasses.replace(plan.golden.split, half_inputs=("grad_output",)),
    )
    changed = dataclasses.replace(plan, golden=golden)
    rendered = []

    def record(template: str, output_path: str, spec_name: object, **context: object) -> str:
        rendered.append((template, context))
        return ""

    monkeypatch.setattr(golden_tests, "render", record)
    monkeypatch.setattr(tests, "render", record)
    golden_tests.render_golden_tests(changed)
    tests.render_tests(changed)
    contexts = dict(rendered)
    ours, script = contexts["op/tests/test_golden_op.py.j2"], contexts["op/tests/golden/gen_data.py.j2"]
    assert ours["value_range"] == script["value_range"] == "(-2.5, 7.25)"
    assert '(0.125, 0.375, 0.0625, "x")' in ours["tolerance"]
    assert '(0.125, 0.375, 0.0625, "x")' in next(iter(script["tolerance"].values()))
    assert ours["split"]["half_inputs"] == ["grad_output"] and script["split"]["half_literal"] == '["grad_output"]'


def test_a_binding_without_out_gets_only_the_error_rows_it_can_reach():
    """aten's selu has no out overload: the binding allocates out, so a row tripped by a wrong out is left to the
    C++ op_api tests and the others pass no out."""
    plan = _plan("selu")
    assert not plan.binding_out
    assert len(plan.golden.errors) < len(plan.negative_calls)
    assert {e.out.kind for e in plan.golden.errors} == {"null"}
    with_out = _plan("leaky_relu").golden.errors
    assert with_out and all(e.out.kind == "tensor" for e in with_out)


def test_a_derived_input_of_the_halves_is_made_per_case():
    """ge_glu_grad_v2's gelu reads the gate half B and approximate: derived per golden case, not with the inputs
    (which are drawn before a case's values are chosen and the split tensor is cut)."""
    plan = _plan("ge_glu_grad_v2")
    assert [name for name, _ in plan.golden.case_derived] == ["gelu"]
    assert plan.golden.derived_inputs == ()
    logsigmoid = _plan("logsigmoid_grad").golden  # buffer = exp(-abs(self)): made with the inputs
    assert [name for name, _ in logsigmoid.derived_inputs] == ["buffer"] and not logsigmoid.case_derived


def test_the_dtypes_aten_rounds_each_step_in_reach_the_generated_golden_test():
    """golden.aten_rounds_each_step goes through the plan; the generated test, which compares with aten in float for
    every 16-bit dtype, says why for those (the reason text stays in the spec)."""
    glu_grad = _plan("glu_grad")
    declared = every_operator()["glu_grad"].golden.aten_rounds_each_step
    assert declared is not None and glu_grad.golden.aten_rounds_each_step == tuple(declared.dtypes)
    assert _plan("leaky_relu").golden.aten_rounds_each_step == ()
    generated = GENERATED / "glu_grad" / "tests" / "test_golden_glu_grad.py"
    dtypes = ", ".join(d.value for d in declared.dtypes)
    assert f"# (aten's own kernel rounds each step in {dtypes}, missing" in generated.read_text(encoding="utf-8")
    leaky = (GENERATED / "leaky_relu" / "tests" / "test_golden_leaky_relu.py").read_text(encoding="utf-8")
    assert "rounds each step" not in leaky
