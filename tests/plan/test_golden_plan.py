"""The golden tests' plan (`opgen.plan.golden`): what the generated golden tests check, decided from the spec once, so
their emitter reads nothing but the plan."""

from __future__ import annotations

from functools import cache

from spec_list import GENERATED, every_operator

from opgen.plan.golden import GoldenSplit
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
    golden = _plan("leaky_relu").golden
    declared = [float(v) for v in every_operator()["leaky_relu"].golden.special_values]
    assert repr(list(golden.special_values[: len(declared)])) == repr(declared)  # NaN among them
    assert golden.special_values[len(declared) :] == (0.0,)  # self > 0


def test_the_half_split_schedule_says_how_golden_cases_are_cut():
    """The split is asked of the schedule (its golden_split hook), not of the schedule's class: a dim parameter or a
    literal dim, the half-size inputs by Python name, the outputs written per half."""
    assert _plan("leaky_relu").golden.split is None
    assert _plan("ge_glu_grad_v2").golden.split == GoldenSplit("dim", None, ("grad_output", "gelu"), ("gradInput",))
    assert _plan("fatrelu_mul").golden.split == GoldenSplit(None, -1, (), ())


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
    assert plan.derived_inputs == ()
    logsigmoid = _plan("logsigmoid_grad")  # buffer = exp(-abs(self)): made with the inputs
    assert [name for name, _ in logsigmoid.derived_inputs] == ["buffer"] and not logsigmoid.golden.case_derived


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
