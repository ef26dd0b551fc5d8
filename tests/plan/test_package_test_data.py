"""What the generated package tests (tests/ut/op_api, tests/golden) are rendered from is planned with the rest of the
operator: each success call's inputs and expectations (`opgen.plan.op_api_expectations`), the golden scripts'
settings and options and the half split the scripts make (the golden plan, `opgen.plan.golden`, which the golden tests
read too; the split from `Schedule.golden_split`), so the test emitter reads the plan alone."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from spec_list import GENERATED, every_operator

from opgen.dtypes import DType
from opgen.plan.op_api_expectations import sample_values
from opgen.plan.operator import OperatorPlan, plan_operator
from opgen.plan.schedules.half_split import HalfSplit
from opgen.types import Direction, ParamKind


@cache
def _plan(stem: str) -> OperatorPlan:
    spec = every_operator()[stem]
    siblings = [s for s in every_operator().values() if s.operator.dir == spec.operator.dir]
    return plan_operator(spec, f"specs/{spec.operator.dir}.yaml", siblings)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_success_data_follows_the_success_calls(stem: str) -> None:
    plan = _plan(stem)
    spec = plan.spec
    assert [data.call for data in plan.success_data] == list(plan.success_calls)
    for data in plan.success_data:
        # every tensor input, in its call's shape and storage dtype
        assert list(data.inputs) == [p.name for p in spec.tensor_inputs]
        for name, values in data.inputs.items():
            arg = data.call.args[name]
            assert arg.dtype is not None
            assert values.shape == arg.shape and values.dtype == np.dtype(arg.dtype.numpy)
        # every computed output, the first first, in its call's dtype with that dtype's tolerance
        assert [out.name for out in data.outputs] == [p.name for p in spec.outputs]
        for out in data.outputs:
            assert out.dtype is data.call.args[out.name].dtype
            assert out.values.dtype == np.dtype(out.dtype.numpy)
            given = spec.golden.tolerance[out.dtype]
            assert (out.tolerance.rtol, out.tolerance.atol) == (given.rtol, given.atol)
            assert (out.tolerance.max_fail_ratio, out.tolerance.standard) == (given.max_fail_ratio, given.standard)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_sample_values_lie_in_the_golden_range_or_are_special(stem: str) -> None:
    spec = every_operator()[stem]
    lo, hi = spec.golden.value_range
    specials = {float(v) for v in spec.golden.special_values}
    for dtype in (None, DType.INT8, DType.INT32):
        values = sample_values(spec, 1, 40, dtype)
        assert np.array_equal(values, sample_values(spec, 1, 40, dtype), equal_nan=True)  # deterministic
        ordinary = [v for v in values if v not in specials and not np.isnan(v)]  # (NaN is no member of a set)
        assert ordinary  # more values than special ones
        if dtype is None:  # quarter steps inside the range
            assert all(lo - 0.25 <= v <= hi + 0.25 and (v * 4).is_integer() for v in ordinary)
        else:  # integers of the dtype
            info = np.iinfo(dtype.numpy)
            assert all(float(v).is_integer() and info.min <= v <= info.max for v in values)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_golden_script_options_are_the_host_parameters_then_the_held_values(stem: str) -> None:
    plan = _plan(stem)
    spec = plan.spec
    inputs = [p for p in spec.params if p.direction is Direction.INPUT]
    host = [p for p in inputs if p.kind is not ParamKind.TENSOR]
    held = [p for p in inputs if p.shape.one_element]
    options = plan.golden.options
    assert [o.name for o in options] == [p.name for p in host + held]
    assert [o.held for o in options] == [False] * len(host) + [True] * len(held)
    for option in options:
        expected = spec.golden_scalar_values()[option.name][0] if option.held else spec.example.scalars[option.name]
        assert option.default == expected
    assert plan.golden.aten == spec.api.aten
    assert list(plan.golden.tolerance) == list(spec.golden.tolerance)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_the_scripts_split_what_the_half_split_schedule_splits(stem: str) -> None:
    plan = _plan(stem)
    schedule = plan.schedule
    tensors = [(p.name, p.python) for p in plan.tensor_inputs]
    split = plan.golden.split
    if not isinstance(schedule, HalfSplit):
        assert split is None  # every input takes --shape as it is
        assert plan.golden.script_shapes == plan.golden.shapes
        return
    assert split is not None
    assert split.tensor == plan.param(schedule.split_tensor).python
    named = isinstance(schedule.split_dim, str)
    assert (split.dim_python, split.dim) == ((schedule.dim_python, None) if named else (None, schedule.split_dim))
    assert split.example_dim == plan.spec.split_dim(plan.spec.example.scalars)
    assert set(split.half_inputs) == {python for name, python in tensors if name in schedule.half_size}
    assert set(split.full_outputs) == set(plan.spec.formula.per_half)
    # gen_data's --shape is the split tensor's in each golden case
    for half, full in zip(plan.golden.shapes, plan.golden.script_shapes, strict=True):
        assert full == plan.spec.input_shape(schedule.split_tensor, half, dim=split.example_dim)


@pytest.mark.parametrize("stem", list(every_operator()))
def test_each_api_has_its_op_api_test_named_after_it(stem: str) -> None:
    plan = _plan(stem)
    assert plan.main.snake == plan.spec.api.snake
    for sig in plan.signatures:
        assert sig.snake.islower() and sig.name.lower() == "aclnn" + sig.snake.replace("_", "")
        assert (GENERATED / plan.op / "tests" / "ut" / "op_api" / f"test_aclnn_{sig.snake}.cpp").is_file()
