"""Scalars keep their IEEE meaning through lowering: a fusion that is exact only for finite scalars is
guarded by an exact program the tiling selects when a scalar is NaN or infinite.

Before: `where(self > 0, self, self * negativeSlope)` always lowered to LeakyRelu, which takes the slope
branch by the sign bit, so with a NaN slope the AI Core kernel gave 0 at self = +0 while IEEE arithmetic,
torch and the operator's own AICPU path (DOUBLE) give NaN.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.kernel import kernel_plan
from opgen.spec.dtypes import DType
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "specs" / "leaky_relu.yaml").spec
X = np.array([0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan], dtype=np.float64)


def _ieee(slope: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where(X > 0, X, X * np.float32(slope))


@pytest.mark.parametrize("slope", [math.nan, math.inf, -math.inf, 0.25, -0.5])
@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE])
def test_every_path_follows_ieee_for_any_slope(slope: float, dtype: DType) -> None:
    plan = kernel_plan(SPEC)
    x = X.astype(np.float32).astype(dtype.numpy)
    got = aclnn_output(SPEC, plan, {"self": x}, {"self": dtype}, {"negativeSlope": slope}, dtype)
    want = _ieee(slope).astype(np.float32).astype(dtype.numpy)
    np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64)))
    finite = ~np.isnan(want.astype(np.float64))
    np.testing.assert_array_equal(got[finite], want[finite])


def test_the_fast_program_is_kept_for_finite_slopes() -> None:
    plan = kernel_plan(SPEC)
    assert plan.guards == ("negativeSlope",)
    assert "LeakyRelu" in plan.variant(DType.FLOAT, {}, {"negativeSlope": 0.1}).program.apis
    exact = plan.variant(DType.FLOAT, {}, {"negativeSlope": math.nan})
    assert exact.exact and "LeakyRelu" not in exact.program.apis
