"""Scalars meeting integer tensors through the generated aclnn API on the twin: the op_api truncates them to
integers (ops-nn converts them to tensors of self's dtype) without an undefined float-to-int conversion, and the
result is the aclnn path's model (opgen.plan.aclnn_path)."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import spec_of

from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.kernel import kernel_plan
from opgen.spec.dtypes import DType

opgen_ops = pytest.importorskip("opgen_ops")


@pytest.mark.parametrize("threshold", [-2.9, 2.9, float("nan"), 1e30, -1e30])
def test_threshold_on_int8_meets_its_scalars_as_integers(threshold):
    spec = spec_of("threshold")
    x = np.array([-128, -3, -2, -1, 0, 1, 2, 3, 127], np.int8)
    value = -7.8
    got = opgen_ops.threshold(x, threshold, value)
    scalars = {"threshold": threshold, "value": value}
    want = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": DType.INT8}, scalars, DType.INT8)
    assert got.dtype == np.int8 and got.tolist() == want.tolist()
    # independently: self > trunc(threshold) ? self : trunc(value), NaN as 0, huge thresholds beyond every int8
    limit = 0.0 if threshold != threshold else float(np.clip(np.trunc(threshold), -1e19, 1e19))
    assert got.tolist() == np.where(x > limit, x, -7).tolist()
