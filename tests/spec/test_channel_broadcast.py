"""Channel broadcast (`shape: {channel_of: self}`, check `channel_size`): validation points at the exact file:line,
the check agrees with PyTorch on which weights fit, its negative case trips its row alone, and the references
(the plan's model of the API, the numpy reference) lay the values along dim 1 as torch's prelu does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.cases import first_failing_row, negative_calls, valid_call
from opgen.plan.kernel import kernel_plan
from opgen.plan.precision import sweep_inputs
from opgen.spec.channel_broadcast import channel_values, channel_view
from opgen.spec.checks import Arg, CheckChannelSize
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
PRELU = "specs/p_relu.yaml"


@dataclass(frozen=True)
class Case:
    id: str
    old: str
    new: str
    marker: str  # text on the line the diagnostic must point at
    fragment: str


WEIGHT_SHAPE = "    shape: {channel_of: self}\n"
CHANNEL_ROW = "    check: {channel_size: [weight]}\n"

CASES = [
    Case("undefined", WEIGHT_SHAPE, "    shape: {channel_of: selff}\n", "channel_of: selff", "undefined parameter"),
    Case("itself", WEIGHT_SHAPE, "    shape: {channel_of: weight}\n", "channel_of: weight", "channels of itself"),
    Case(
        "of-an-output",
        WEIGHT_SHAPE,
        "    shape: {channel_of: out}\n",
        "channel_of: out",
        "must be an input tensor",
    ),
    Case(
        "not-with-broadcast",
        WEIGHT_SHAPE,
        "    shape: {channel_of: self, broadcast_with: [self]}\n",
        "broadcast_with: [self]}",
        "cannot also have 'broadcast_with'",
    ),
    Case(
        "on-an-output",
        "    shape: {same_as: self}\n",
        "    shape: {same_as: self, channel_of: self}\n",
        "channel_of: self}\n    opdef_name: y",
        "applies to input tensors",
    ),
    Case(
        "needs-a-channel-size-row",
        CHANNEL_ROW,
        "    check: {same_shape: [self, out]}\n",
        "channel_of: self",
        "name it in a channel_size error row",
    ),
    Case(
        "channel-size-needs-channel-of",
        CHANNEL_ROW,
        "    check: {channel_size: [weight, self]}\n",
        "channel_size: [weight, self]",
        "has no 'shape.channel_of'",
    ),
    Case(
        "channel-size-needs-a-tensor",
        CHANNEL_ROW,
        "    check: {channel_size: [workspaceSize]}\n",
        "channel_size: [workspaceSize]",
        "undefined parameter",
    ),
    Case(
        "output-shape-from-a-channel-input",
        "    shape: {same_as: self}\n",
        "    shape: {same_as: weight}\n",
        "shape: {same_as: weight}",
        "would take its shape from the channel input 'weight'",
    ),
    Case(
        "example-weight-size",
        "weight: {shape: [3], dtype: FLOAT, data: [0.25, 0.5, 2]}",
        "weight: {shape: [2], dtype: FLOAT, data: [0.25, 0.5]}",
        "weight: {shape: [2]",
        "holds 1 value or one per channel of 'self' (3)",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_channel_errors_point_at_their_line(case: Case):
    original = (ROOT / PRELU).read_text(encoding="utf-8")
    assert original.count(case.old) == 1, f"case {case.id} no longer applies to {PRELU}"
    mutated = original.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, PRELU)
    found = [d for d in info.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.file == PRELU
    assert found[0].location.line == line_of(mutated, case.marker), str(found[0])


@pytest.fixture(scope="module")
def spec():
    return load_spec(ROOT / PRELU).spec


SHAPES = [(), (4,), (2, 3), (2, 3, 4), (5, 1, 2), (3, 0, 2)]


@pytest.mark.parametrize("self_shape", SHAPES, ids=str)
def test_the_check_refuses_what_torch_refuses(spec, self_shape):
    torch = pytest.importorskip("torch")
    check = CheckChannelSize(channel_size=["weight"])
    for numel in (0, 1, 2, 3, 4):
        args = {"self": Arg("tensor", self_shape, DType.FLOAT), "weight": Arg("tensor", (numel,), DType.FLOAT)}
        try:
            torch.ops.aten.prelu(torch.zeros(self_shape), torch.ones(numel))
            refused = False
        except RuntimeError:
            refused = True
        assert check.fails(spec, args, (), "ascend910b") == refused, (self_shape, numel)


def test_the_check_counts_elements_not_dims(spec):
    # ops-nn (and the check) take a weight of any shape whose element count fits; torch asks for 1-d
    check = CheckChannelSize(channel_size=["weight"])
    fits = {"self": Arg("tensor", (2, 6), DType.FLOAT), "weight": Arg("tensor", (2, 3), DType.FLOAT)}
    assert not check.fails(spec, fits, (), "ascend910b")
    assert check.fails(spec, {**fits, "weight": Arg("tensor", (2, 2), DType.FLOAT)}, (), "ascend910b")


def test_the_negative_case_trips_the_channel_row_alone(spec):
    row = next(i for i, r in enumerate(spec.errors) if isinstance(r.check, CheckChannelSize))
    (call,) = [c for c in negative_calls(spec) if c.row == row]
    assert first_failing_row(spec, call.args) == row
    self_shape, weight_shape = call.args["self"].shape, call.args["weight"].shape
    assert np.prod(weight_shape) not in (1, self_shape[1] if len(self_shape) >= 2 else 1)
    # the valid call it was mutated from passes every row, its weight holding one value per channel
    base = valid_call(spec, DType.FLOAT)
    assert first_failing_row(spec, base.args) is None
    assert base.args["weight"].shape == (base.args["self"].shape[1],)


def test_the_channel_row_is_a_cpp_condition_on_the_element_count(spec):
    row = next(i for i, r in enumerate(spec.errors) if isinstance(r.check, CheckChannelSize))
    condition = spec.errors[row].check.cpp(spec, row).condition
    assert "weight->GetViewShape().GetShapeSize() != 1" in condition
    assert "self->GetViewShape().GetDimNum() < 2 ? 1 : self->GetViewShape().GetDim(1)" in condition


@pytest.mark.parametrize("weights", [3, 1], ids=["per-channel", "one-value"])
def test_the_api_model_and_reference_lay_weight_along_dim_1(spec, weights):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, (2, 3, 4)).astype(np.float32)
    w = np.array([0.5, -2.0, np.nan], np.float32)[:weights]
    want = torch.ops.aten.prelu(torch.from_numpy(x), torch.from_numpy(w)).numpy()
    inputs = {"self": x, "weight": w}
    model = aclnn_output(spec, kernel_plan(spec), inputs, dict.fromkeys(inputs, DType.FLOAT), {}, DType.FLOAT)
    np.testing.assert_array_equal(model, want)
    np.testing.assert_array_equal(evaluate_reference(spec, inputs, np.float32), want)


def test_channel_view_and_values_follow_dim_1():
    of = np.zeros((2, 3, 4))
    assert channel_view(np.arange(3.0), of).shape == (1, 3, 1)
    assert channel_view(np.arange(6.0).reshape(2, 3), np.zeros((1, 6))).shape == (1, 6)
    assert channel_view(np.ones(1), np.float64(2.0)).shape == ()
    assert channel_view(np.ones((1, 1)), np.zeros(5)).shape == (1,)
    values = np.arange(24.0).reshape(of.shape)
    assert channel_values(values, of, one_value=False).shape == (3,)
    assert channel_values(values, of, one_value=True).shape == (1,)
    assert channel_values(values, np.zeros(5), one_value=False).shape == (1,)


def test_precision_points_meet_point_by_point(spec):
    # every weight value meets the self value at its position: self's points are its channels
    inputs = sweep_inputs(spec, DType.FLOAT)
    assert inputs["self"].shape == (1, inputs["weight"].size)
    out = evaluate_reference(spec, inputs, None)
    assert out.shape == inputs["self"].shape
