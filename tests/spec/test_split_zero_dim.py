"""split.zero_dim_as_one (ops-nn's GeGlu op_apis): the checks count a 0-d split tensor as 1-d, so dim -1 and 0 pass
the dim row, and the shape row refuses it (its half has no valid size along dim); without the flag a 0-d tensor
fails the dim row for every dim (GLU)."""

from __future__ import annotations

import pytest
from spec_list import specs

from opgen.spec.checks import Arg, CheckDimRange, CheckSplitEven, CheckSplitShape
from opgen.spec.dtypes import DType


def _call(spec, shape: tuple[int, ...], dim: int) -> dict[str, Arg]:
    args = {p.name: Arg("tensor", shape=shape, dtype=DType.FLOAT) for p in spec.params if p.is_tensor}
    return {**args, "dim": Arg("int64", value=dim), "approximate": Arg("int64", value=1)}


def _row(spec, kind):
    return next(row.check for row in spec.errors if isinstance(row.check, kind))


@pytest.mark.parametrize("dim", [-1, 0])
def test_a_0d_self_passes_the_dim_row_and_fails_the_shape_row(dim):
    spec = specs()["ge_glu_v2"]
    args = _call(spec, (), dim)
    assert not _row(spec, CheckDimRange).fails(spec, args, (), "ascend910b")
    assert not _row(spec, CheckSplitEven).fails(spec, args, (), "ascend910b")
    assert _row(spec, CheckSplitShape).fails(spec, args, (), "ascend910b")


@pytest.mark.parametrize("dim", [1, -2])
def test_a_0d_self_fails_the_dim_row_outside_minus_one_to_zero(dim):
    spec = specs()["ge_glu_v2"]
    assert _row(spec, CheckDimRange).fails(spec, _call(spec, (), dim), (), "ascend910b")


def test_the_op_api_counts_a_0d_self_as_1d():
    spec = specs()["ge_glu_v2"]
    assert "== 0 ? int64_t{1}" in _row(spec, CheckDimRange).cpp(spec, 4).condition


def test_without_the_flag_a_0d_self_fails_the_dim_row():
    spec = specs()["glu"]
    args = {"self": Arg("tensor", shape=(), dtype=DType.FLOAT), "dim": Arg("int64", value=-1)}
    assert _row(spec, CheckDimRange).fails(spec, args, (), "ascend910b")
