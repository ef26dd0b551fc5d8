"""One-element tensors (`shape: {one_element: true}`, ops-nn's FatreluMul threshold): mistakes reported at their
file:line, the `one_element` check kind (C++ predicate, evaluation, negative case), and the plan they make (an OpDef
input read from GM, not a kernel tensor; a scalar in the formula; a 0-d value in the references)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.plan.cases import negative_calls, valid_call
from opgen.spec.checks import Arg, CheckOneElement
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference, formula_symbols, reference_names

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "one_element" / "fatrelu.yaml"
TEXT = FIXTURE.read_text(encoding="utf-8")
THRESHOLD = "    shape: {one_element: true}\n    dtype: {same_as: self}\n"


@dataclass(frozen=True)
class Case:
    id: str
    old: str  # text of the fixture the mistake replaces
    new: str
    marker: str  # text on the line the diagnostic must point at
    fragment: str  # part of the message


CASES = [
    Case(
        "output-cannot-be-one-element",
        "    dtype: {same_as: self}\n    shape: {same_as: self}\n",
        "    dtype: {same_as: self}\n    shape: {one_element: true}\n",
        "    shape: {one_element: true}\n\nformula",
        "'one_element' applies to input tensors",
    ),
    Case(
        "no-other-shape-relation",
        THRESHOLD,
        "    shape: {one_element: true, broadcast_with: [self]}\n    dtype: {same_as: self}\n",
        "one_element: true, broadcast_with",
        "a one-element tensor is read as a scalar: it has no other shape relation",
    ),
    Case(
        "dtype-of-the-kernel",
        THRESHOLD,
        "    shape: {one_element: true}\n",
        "    shape: {one_element: true}\n  - name: out",
        "a one-element tensor is read in the kernel's dtype: give it dtype: {same_as: self}",
    ),
    Case(
        "never-empty",
        THRESHOLD,
        THRESHOLD + "    empty_tensor: true\n",
        "    empty_tensor: true\n  - name: out",
        "a one-element tensor holds one value: it is never empty",
    ),
    Case(
        "needs-its-row",
        "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {one_element: [threshold]}\n",
        "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {max_rank: [threshold]}\n",
        "    shape: {one_element: true}",
        "'threshold' holds one element: name it in a one_element error row",
    ),
    Case(
        "needs-a-same-dtype-row",
        "check: {same_dtype: [self, threshold, out]}",
        "check: {same_dtype: [self, out]}",
        "    dtype: {same_as: self}\n  - name: out",
        "'threshold' is read in the kernel's dtype: name it in a same_dtype error row",
    ),
    Case(
        "row-names-a-one-element-tensor",
        "check: {one_element: [threshold]}",
        "check: {one_element: [threshold, self]}",
        "check: {one_element: [threshold, self]}",
        "'self' has no 'shape.one_element'",
    ),
    Case(
        "golden-values-are-numbers",
        "    threshold: [0.5, -1.0, 0.0, .nan, .inf, -.inf]",
        "    threshold: [0.5, high]",
        "    threshold: [0.5, high]",
        "'threshold' holds one number",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_element_mistakes_point_at_their_line(case: Case) -> None:
    assert case.old in TEXT, f"case {case.id} no longer applies to the fixture"
    mutated = TEXT.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, "tests/fixtures/one_element/fatrelu.yaml", FIXTURE.parent)
    found = [d for d in info.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(mutated, case.marker), str(found[0])


@pytest.fixture(scope="module")
def plan():
    return check_spec_text(TEXT, "tests/fixtures/one_element/fatrelu.yaml", FIXTURE.parent)


def test_the_formula_reads_it_as_a_scalar_and_the_references_as_0d(plan) -> None:
    spec = plan.spec
    assert formula_symbols(spec)["threshold"].kind.value == "scalar"
    assert reference_names(spec)["threshold"] == "np.reshape(threshold, ())"
    x = np.array([[-1.0, 0.5], [1.0, np.nan]])
    for held in (np.full((), 0.5), np.full((1,), 0.5), np.full((1, 1), 0.5)):
        got = evaluate_reference(spec, {"self": x, "threshold": held}, None)
        assert got.shape == x.shape  # the one element shapes nothing
        np.testing.assert_array_equal(got, [[0.0, 0.0], [1.0, 0.0]])


def test_the_opdef_input_is_read_from_gm(plan) -> None:
    inputs = plan.opdef.inputs
    assert [(str(i.name), i.param, i.scalar, i.one_element) for i in inputs] == [
        ("self", "self", False, False),
        ("threshold", "threshold", True, True),
    ]
    assert [str(i.param) for i in plan.opdef.read_inputs] == ["self"]
    assert plan.kernel.inputs == ("self",) and plan.kernel.gm_scalars == ("threshold",)
    assert plan.kernel.scalars == ()  # not in the tiling data: the kernel reads it from GM


def test_the_check_kind_refuses_any_count_but_one(plan) -> None:
    spec = plan.spec
    check = CheckOneElement(one_element=["threshold"])
    assert check.cpp(spec, 0).condition == "threshold->GetViewShape().GetShapeSize() != 1"
    base = valid_call(spec, DType.FLOAT).args
    assert base["threshold"].shape == (1,)
    for shape, fails in (((), False), ((1,), False), ((1, 1, 1), False), ((2,), True), ((0,), True)):
        args = {**base, "threshold": replace(base["threshold"], shape=shape)}
        assert check.fails(spec, args, (), "ascend910b") is fails, shape
    [row] = [c for c in negative_calls(spec) if c.name.endswith("oneelement")]
    assert row.status == 161002 and math_prod(row.args["threshold"]) != 1


def math_prod(arg: Arg) -> int:
    return int(np.prod(arg.shape))


def test_a_program_chosen_by_its_value_is_refused_at_its_line() -> None:
    """LeakyRelu fuses where(x > 0, x, x * slope) only for a finite slope: the tiling would have to see the value,
    which a one-element tensor keeps on the device."""
    mutated = TEXT.replace("expr: where(self > threshold, self, 0)", "expr: where(self > 0, self, self * threshold)")
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, "tests/fixtures/one_element/fatrelu.yaml", FIXTURE.parent)
    found = [d for d in info.value.diagnostics if "the tiling never sees the value" in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(mutated, "    shape: {one_element: true}"), str(found[0])
