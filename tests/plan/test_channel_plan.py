"""The plan of an operator with a channel input (aclnnPrelu's weight): its calls hold one value per channel; the aclnn
API lays the values along dim 1 and expands them to out's shape only where runs of one value are short; the kernel
fills the tiles of a long run with its value (read from GM by the scalar unit) and never lets a tile cross a run; the
tiling tells it the run length; an operator without channel inputs keeps its sources as they were."""

from __future__ import annotations

from pathlib import Path

from opgen.emit.host import render_host
from opgen.emit.kernel import render_kernel
from opgen.emit.op_api import render_op_api
from opgen.plan.operator import plan_operator
from opgen.plan.tiling import MIN_CHANNEL_RUN, plan_tiling
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


def test_the_api_expands_only_short_runs():
    plan = _plan("p_relu.yaml")
    source = next(text for name, text in render_op_api(plan).items() if name.endswith("aclnn_prelu.cpp"))
    assert f"if (weightRun < {MIN_CHANNEL_RUN} && weightCasted->GetViewShape() != outShape)" in source
    # one value: a single run of every element
    assert "int64_t weightRun = outShape.GetShapeSize();" in source


def test_the_kernel_fills_tiles_of_a_run_and_the_tiling_gives_the_run():
    plan = _plan("p_relu.yaml")
    files = {**render_kernel(plan), **render_host(plan)}
    kernel = files["op_kernel/p_relu.cpp"]
    assert (
        "const T value = weightGm_.GetValue(static_cast<uint64_t>((start_ + offset) / weightRun_ % weightCount_));"
        in (kernel)
    )
    assert "Duplicate(weightLocal, value, static_cast<int32_t>(len));" in kernel
    assert "const int64_t runLeft = weightRun_ - (start_ + offset) % weightRun_;" in kernel
    data = files["op_kernel/p_relu_tiling_data.h"]
    assert "int64_t weightRun;" in data and "int64_t weightCount;" in data
    tiling = files["op_host/p_relu_tiling.cpp"]
    assert "context->GetInputShape(1)" in tiling  # weight, the second input
    assert "weightRun = weightCount == 1 ? total : weightRun;" in tiling
    # the UB plan is the elementwise one: weight keeps its tile-sized queue
    assert plan.kernel.inputs == ("self", "weight")
    tile = plan_tiling(2 * 70 * 130, plan.kernel.variants[0], get_soc("ascend910b"))
    assert tile is not None and tile.tile_length > 0


def test_an_operator_without_channel_inputs_needs_no_reshape_nor_runs():
    plan = _plan("heaviside.yaml")
    source = next(text for name, text in render_op_api(plan).items() if name.endswith(".cpp") and "aclnn_" in name)
    assert "reshape.h" not in source and "ChannelShape" not in source
    kernel = render_kernel(plan)["op_kernel/heaviside.cpp"]
    assert "Run_" not in kernel and "GetValue(" not in kernel and "start_" not in kernel
