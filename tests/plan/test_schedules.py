"""Schedules: each operator's plan names one, chosen in one place (the most specific that applies); each is one
module of `opgen.plan.schedules`, found by the registry, so adding a schedule is adding a module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from spec_list import every_operator

from opgen.plan import schedules
from opgen.plan.operator import plan_operator
from opgen.plan.schedules.channel_broadcast import ChannelBroadcast
from opgen.plan.schedules.channel_sum import ChannelSummed
from opgen.plan.schedules.elementwise import Elementwise
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_registers_its_schedule_by_rank():
    found = schedules.registered()
    modules = sorted(p.stem for p in Path(schedules.__file__).parent.glob("*.py") if p.stem not in ("__init__", "base"))
    assert sorted(s.name for s in found) == modules
    assert [s.rank for s in found] == sorted({s.rank for s in found})  # distinct, ascending
    assert {Elementwise, ChannelBroadcast, ChannelSummed} <= set(found)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_the_chosen_schedule_is_the_most_specific_that_applies(stem):
    spec = every_operator()[stem]
    chosen = schedules.schedule_for(spec)
    applying = [s for s in schedules.registered() if s.applies(spec)]
    assert type(chosen) is applying[-1]
    assert chosen.outputs == tuple(p.name for p in spec.outputs)
    # a schedule's data follows the spec fields it owns: channel inputs, per-channel sums
    assert {c.name for c in chosen.channel_inputs} == {p.name for p in spec.tensor_inputs if p.shape.channel_of}
    assert {s.output for s in chosen.sums} == set(spec.formula.reduce)


def test_the_plan_names_its_schedule():
    prelu = plan_operator(load_spec(ROOT / "specs" / "p_relu.yaml").spec, "specs/p_relu.yaml")
    assert prelu.schedule.name == "channel_broadcast"
    assert [c.name for c in prelu.schedule.channel_inputs] == ["weight"]
    assert prelu.schedule.aten_arg("weight", "w") == "channel_view(w, self)"
    assert prelu.schedule.aten_arg("self", "x") == "x"
    assert prelu.schedule.expands_inputs and not prelu.schedule.sums
    leaky = plan_operator(load_spec(ROOT / "specs" / "leaky_relu.yaml").spec, "specs/leaky_relu.yaml")
    assert leaky.schedule.name == "elementwise" and not leaky.schedule.expands_inputs


def test_a_new_schedule_is_one_module(tmp_path, monkeypatch):
    """A module dropped into the package (here through its search path) is registered and chosen where it
    applies, with nothing else changed."""
    (tmp_path / "everything_twice.py").write_text(
        "from opgen.plan.schedules.elementwise import Elementwise\n\n\n"
        "class EverythingTwice(Elementwise):\n"
        "    name = 'everything_twice'\n"
        "    rank = 99\n\n"
        "    @classmethod\n"
        "    def applies(cls, spec):\n"
        "        return spec.operator.dir == 'leaky_relu'\n\n\n"
        "SCHEDULE = EverythingTwice\n"
    )
    monkeypatch.setattr(schedules, "__path__", [*schedules.__path__, str(tmp_path)])
    schedules.registered.cache_clear()
    try:
        assert "everything_twice" in [s.name for s in schedules.registered()]
        leaky = load_spec(ROOT / "specs" / "leaky_relu.yaml").spec
        prelu = load_spec(ROOT / "specs" / "p_relu.yaml").spec
        assert schedules.schedule_for(leaky).name == "everything_twice"
        assert schedules.schedule_for(prelu).name == "channel_broadcast"
    finally:
        monkeypatch.undo()
        schedules.registered.cache_clear()
        sys.modules.pop("opgen.plan.schedules.everything_twice", None)
    assert "everything_twice" not in [s.name for s in schedules.registered()]


def test_a_one_element_input_follows_no_half_split():
    """FatreluMul's threshold (one element, read by the scalar unit) is neither a half-size stream nor a full-size
    one: the kernel reads the input's two halves and writes out; the threshold is a GM scalar read once."""
    from opgen.plan.schedules.half_split import HalfSplit, SplitStream

    operator = plan_operator(load_spec(ROOT / "specs" / "fatrelu_mul.yaml").spec, "specs/fatrelu_mul.yaml")
    schedule = operator.schedule
    assert isinstance(schedule, HalfSplit)
    assert schedule.in_streams == (SplitStream("x1", "input", 0), SplitStream("x2", "input", 1))
    assert schedule.half_size == ("out",)
    assert operator.kernel.gm_scalars == ("threshold",)


def test_swap_when_moves_each_half_stream_to_the_offset_the_tiling_gives():
    from opgen.plan.schedules.half_split import HalfSplit

    fixture = "tests/fixtures/half_split/glu_swap.yaml"
    swapped = plan_operator(load_spec(ROOT / fixture).spec, fixture).schedule
    plain = plan_operator(load_spec(ROOT / "specs" / "glu.yaml").spec, "specs/glu.yaml").schedule
    assert isinstance(swapped, HalfSplit) and isinstance(plain, HalfSplit)
    assert [swapped.stream_layout(s) for s in swapped.in_streams] == [
        ("2 * ny_", "halfBase_[0]"),
        ("2 * ny_", "halfBase_[1]"),
    ]
    assert [plain.stream_layout(s) for s in plain.in_streams] == [("2 * ny_", "0"), ("2 * ny_", "ny_")]


def test_the_aicpu_loop_writes_each_output_half_where_its_split_half_lies():
    """Before: the AICPU element loop wrote a full-size output's halves unswapped while it read the split tensor's
    halves swapped, so DOUBLE's gradients of a and b traded places when swapHalves held. Now it writes each half at
    the offset it reads the half of that name from, as the AI Core kernel (halfBase_) does."""
    from opgen.plan.schedules.half_split import HalfSplit

    fixture = "tests/fixtures/half_split/glu_swap_grad.yaml"
    schedule = plan_operator(load_spec(ROOT / fixture).spec, fixture).schedule
    assert isinstance(schedule, HalfSplit)
    loop = schedule.element_loop(("gradOut", "self"), "out")
    reads, writes = dict(loop.reads), dict(loop.writes)
    assert writes == {"outFirst": reads["a"].removeprefix("selfData[")[:-1], "outSecond": reads["b"][9:-1]}
    assert writes["outFirst"] == "(swapHalves ? r * 2 * ny + ny + j : r * 2 * ny + j)"
    # the references join the halves the same way
    assert schedule.joined("first", "second") == "join_halves(first, second, dim, swap_halves)"


def test_the_reduce_dim_aicpu_loop_computes_each_rows_values_before_its_elements():
    """Before, the AICPU element loop was per element only, so a formula reducing along dim had no DOUBLE kernel.
    The reduce_dim schedule's loop walks rows (outer, inner) with the row innermost, and row_steps cut log-softmax
    into the row's max, its sum of exp (reading the max), ln of the sum, then the output reading all three."""
    from opgen import formula as F
    from opgen.plan.schedules.reduce_dim import ReduceDim

    spec = load_spec(ROOT / "specs" / "log_softmax_v2.yaml").spec
    operator = plan_operator(spec, "specs/log_softmax_v2.yaml")
    schedule = operator.schedule
    assert isinstance(schedule, ReduceDim)
    loop = schedule.element_loop(("self",), "out")
    assert loop.along_row and [index for index, _ in loop.loops] == ["r", "c", "k"]
    assert dict(loop.reads) == {"self": "selfData[(r * rowSize + k) * innerSize + c]"}
    steps, outputs = schedule.row_steps(operator.formulas.over_params)
    assert [(s.name, s.op) for s in steps] == [("row0", "max"), ("row1", "sum"), ("row2", "value")]
    assert set(F.free_names(steps[1].arg)) == {"self", "row0"} and F.to_cpp(steps[2].arg) == "std::log(row1)"
    assert set(F.free_names(outputs["out"])) == {"self", "row0", "row2"}
    # an elementwise schedule has no row values: its formula stays whole
    glu = plan_operator(load_spec(ROOT / "specs" / "glu.yaml").spec, "specs/glu.yaml")
    assert glu.schedule.row_steps(glu.formulas.over_params) == ((), dict(glu.formulas.over_params))
