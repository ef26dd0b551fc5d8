"""The plan of an operator with a channel input (aclnnPrelu's weight): its calls hold one value per channel, the
aclnn API lays the values along dim 1 before expanding them to out's shape (so the AI Core kernel and its tiling
stay elementwise over out's elements), and an operator without one keeps its op_api as it was."""

from __future__ import annotations

from pathlib import Path

from opgen.emit.op_api import render_op_api
from opgen.plan.operator import plan_operator
from opgen.plan.tiling import plan_tiling
from opgen.spec.loader import load_spec
from opgen.spec.socs import get_soc

ROOT = Path(__file__).resolve().parents[2]


def _plan(name: str):
    return plan_operator(load_spec(ROOT / "specs" / name).spec, f"specs/{name}")


def test_calls_hold_one_value_per_channel():
    plan = _plan("p_relu.yaml")
    for call in plan.valid_calls:
        assert call.args["weight"].shape == (call.args["self"].shape[1],)
        assert call.args["out"].shape == call.args["self"].shape
    assert [rule.shape_sources for rule in plan.outputs] == [("self",)]


def test_the_api_reshapes_then_expands_the_channel_input():
    plan = _plan("p_relu.yaml")
    source = next(text for name, text in render_op_api(plan).items() if name.endswith("aclnn_prelu.cpp"))
    assert '#include "aclnn_kernels/reshape.h"' in source
    reshape = source.index("weightCasted = l0op::Reshape(weightCasted, weightChannelShape")
    expand = source.index("weightCasted = l0op::BroadcastTo(weightCasted, outShapeArray")
    cast = source.index("auto weightCasted = l0op::Cast(weightContiguous")
    assert cast < reshape < expand < source.index("l0op::PRelu(selfCasted, weightCasted")
    # laid along dim 1 of self: self's rank, weight's element count at dim 1, ones elsewhere
    assert "op::Shape weightChannelShape = self->GetViewShape();" in source
    assert "axis == 1 ? weightCasted->GetViewShape().GetShapeSize() : 1" in source


def test_the_kernel_and_tiling_run_over_out_elements():
    plan = _plan("p_relu.yaml")
    assert plan.kernel.inputs == ("self", "weight")  # weight reaches the kernel expanded to out's shape
    variant = plan.kernel.variants[0]
    soc = get_soc("ascend910b")
    total = 2 * 70 * 130
    tiling = plan_tiling(total, variant, soc)
    assert tiling is not None
    assert tiling.block_dim * tiling.per_core_length >= total > (tiling.block_dim - 1) * tiling.per_core_length


def test_an_operator_without_channel_inputs_needs_no_reshape():
    plan = _plan("heaviside.yaml")
    source = next(text for name, text in render_op_api(plan).items() if name.endswith(".cpp") and "aclnn_" in name)
    assert "reshape.h" not in source and "ChannelShape" not in source
