"""formula.reduce (an output summed per channel after the kernel, aclnnPreluBackward's gradWeight): each mistake is
reported at its own line of the spec file; the real spec validates and plans with the sum's facts.

Every case edits the real `specs/p_relu_grad_update.yaml`; the expected line is where the edit's marker lands."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from opgen.build import plan_specs_of
from opgen.plan.aclnn_path import aclnn_output
from opgen.spec.channel_broadcast import channel_sum
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference, reduction_of
from opgen.spec.loader import load_spec, load_spec_text_documents

SPEC = Path(__file__).resolve().parents[2] / "specs" / "p_relu_grad_update.yaml"
TEXT = SPEC.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Case:
    id: str
    old: str
    new: str
    marker: str
    fragment: str


CASES = [
    Case(
        "not-an-output-of-formula-outputs",
        "    gradWeight: {sum_over_channels_of: self}",
        "    gradInputs: {sum_over_channels_of: self}",
        "gradInputs: {sum",
        "'gradInputs' is not one of formula.outputs",
    ),
    Case(
        "unknown-tensor",
        "    gradWeight: {sum_over_channels_of: self}",
        "    gradWeight: {sum_over_channels_of: selff}",
        "gradWeight: {sum_over_channels_of: selff}",
        "undefined parameter 'selff'",
    ),
    Case(
        "an-output-tensor",
        "    gradWeight: {sum_over_channels_of: self}",
        "    gradWeight: {sum_over_channels_of: gradInput}",
        "gradWeight: {sum_over_channels_of: gradInput}",
        "'gradInput' must be an input tensor",
    ),
    Case(
        "not-shaped-like-a-channel-input",
        "    shape: {same_as: weight}\n    opdef_name: update",
        "    shape: {same_as: self}\n    opdef_name: update",
        "    gradWeight: {sum_over_channels_of: self}",
        "'gradWeight' holds one value per channel of 'self': give it the shape of a channel input of 'self'",
    ),
    Case(
        "sum-over-channels-of-another-tensor",
        "    gradWeight: {sum_over_channels_of: self}",
        "    gradWeight: {sum_over_channels_of: gradOutput}",
        "gradWeight: {sum_over_channels_of: gradOutput}",
        "give it the shape of a channel input of 'gradOutput'",
    ),
    Case(
        "sum-shape-check-of-an-elementwise-output",
        "    check: {channel_sum_shape: [gradWeight]}",
        "    check: {channel_sum_shape: [gradInput]}",
        "check: {channel_sum_shape: [gradInput]}",
        "'gradInput' is not a per-channel sum (formula.reduce): it has no channel shape",
    ),
    Case(
        "a-channel-shaped-output-without-reduce",
        "  reduce:\n    gradWeight: {sum_over_channels_of: self}\n",
        "",
        "    shape: {same_as: weight}\n    opdef_name: update",
        "'gradWeight' would take its shape from the channel input 'weight'",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_mistake_is_reported_at_its_line(case: Case) -> None:
    assert case.old in TEXT, f"case {case.id} no longer applies to {SPEC.name}"
    text = TEXT.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as caught:
        plan_specs_of(
            load_spec_text_documents(text, "specs/p_relu_grad_update.yaml", SPEC), "specs/p_relu_grad_update.yaml"
        )
    found = [d for d in caught.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    line = text.count("\n", 0, text.index(case.marker)) + 1
    assert str(found[0]).startswith(f"specs/p_relu_grad_update.yaml:{line}:"), str(found[0])


def test_the_sum_keeps_dim_1_or_sums_everything() -> None:
    rng = np.random.default_rng(1)
    values = rng.uniform(-1, 1, (2, 3, 4))
    np.testing.assert_allclose(channel_sum(values, values, np.zeros(3)), values.sum(axis=(0, 2)))
    np.testing.assert_allclose(channel_sum(values, values, np.zeros((1, 1))), [[values.sum()]])
    one_d = rng.uniform(-1, 1, 5)
    np.testing.assert_allclose(channel_sum(one_d, one_d, np.zeros(1)), [one_d.sum()])
    assert channel_sum(np.float64(2.5), np.float64(0.0), np.zeros(())).shape == ()


def test_the_reference_and_the_api_model_sum_per_channel() -> None:
    spec = load_spec(SPEC).spec
    assert reduction_of(spec, "gradWeight") == ("self", "weight") and reduction_of(spec, "gradInput") is None
    rng = np.random.default_rng(2)
    grad, x = rng.uniform(-4, 4, (2, 3, 5)), rng.uniform(-4, 4, (2, 3, 5))
    weight = np.array([0.25, -0.5, 2.0])
    values = {"gradOutput": grad, "self": x, "weight": weight}
    want = np.where(x > 0, 0.0, grad * x).sum(axis=(0, 2))  # independent of the spec's formula text
    np.testing.assert_allclose(evaluate_reference(spec, values, None, "gradWeight"), want)
    [plan] = plan_specs_of([load_spec(SPEC)], "specs/p_relu_grad_update.yaml")
    inputs = {k: v.astype(np.float32) for k, v in values.items()}
    model = aclnn_output(spec, plan.kernel, inputs, dict.fromkeys(inputs, DType.FLOAT), {}, DType.FLOAT, "gradWeight")
    assert model.shape == (3,) and model.dtype == np.float32
    np.testing.assert_allclose(model, want, rtol=1e-5)
    # the docs' precision rows are of the elementwise output only: a sum's error depends on the shape summed
    assert {row.output for row in plan.precision} == {"gradInput"}
