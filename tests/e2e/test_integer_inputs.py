"""Integer inputs through the generated aclnn API on the twin, where the golden tests (every input in one dtype)
do not reach: scalars meeting integer tensors are truncated to integers without an undefined float-to-int
conversion, by the op_api or, where the OpDef takes them as tensors (Threshold), by ConvertToTensor; an integer
input next to a floating one is cast to FLOAT first where the spec says so (kernel.integers_as). Results are the
aclnn path's model (opgen.plan.aclnn_path) and, independently, torch."""

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
    # independently: self > threshold ? self : value, each a one-element INT8 tensor (ops-nn's ConvertToTensor, as
    # the twin converts): toward zero, NaN as 0, saturated at int64's range, then wrapped (1e30 -> -1, -1e30 -> 0)
    if threshold != threshold:
        whole = 0
    elif abs(threshold) < 2.0**63:
        whole = int(np.trunc(threshold))
    else:
        whole = 2**63 - 1 if threshold > 0 else -(2**63)
    limit = (whole + 128) % 256 - 128
    assert got.tolist() == np.where(x > limit, x, -7).tolist()


@pytest.mark.parametrize("grad_dtype", [np.float16, np.float32])
@pytest.mark.parametrize("self_dtype", [np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_softplus_backward_takes_an_integer_self_in_float(grad_dtype, self_dtype, torch):
    spec = spec_of("softplus_v2_grad")
    grad = np.array([1, 2, -3, 0.5, 1, 1, 0.25], grad_dtype)
    x = np.array([-3, -1, 0, 1, 30, 100, 7], self_dtype) if self_dtype != np.uint8 else np.arange(7, dtype=np.uint8)
    if self_dtype == np.bool_:
        x = np.array([False, True, False, True, True, False, True])
    got = opgen_ops.softplus_backward(grad, x, 1.0, 20.0)
    assert got.dtype == np.float32  # ops-nn casts both to FLOAT: an integer self never meets half precision
    dtypes = {"gradOutput": DType.FLOAT16 if grad_dtype == np.float16 else DType.FLOAT, "self": _dtype(self_dtype)}
    scalars = {"beta": 1.0, "threshold": 20.0}
    want = aclnn_output(spec, kernel_plan(spec), {"gradOutput": grad, "self": x}, dtypes, scalars, DType.FLOAT)
    np.testing.assert_array_equal(got, want)
    theirs = torch.ops.aten.softplus_backward(torch.from_numpy(grad).float(), torch.from_numpy(x).float(), 1.0, 20.0)
    np.testing.assert_allclose(got, theirs.numpy(), rtol=1e-6, atol=1e-7)


def _dtype(numpy_dtype) -> DType:
    return next(d for d in DType if d is not DType.BFLOAT16 and d.numpy == np.dtype(numpy_dtype))


def test_threshold_meets_its_scalars_in_selfs_dtype():
    """ops-nn's L0 op passes threshold and value to ThresholdV2 as one-element tensors of self's dtype: a BFLOAT16
    self meets threshold 0.1 as BFLOAT16's 0.10009765625 (compared in float). Before, the kernel compared with the
    float 0.1 from the tiling data, and kept the element equal to BFLOAT16's 0.1."""
    import ml_dtypes

    spec = spec_of("threshold")
    x = np.array([0.1, 0.25, -1.0, 0.1001], np.float32).astype(ml_dtypes.bfloat16)
    got = opgen_ops.threshold(x, 0.1, 0.3)
    scalars = {"threshold": 0.1, "value": 0.3}
    want = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": DType.BFLOAT16}, scalars, DType.BFLOAT16)
    assert got.astype(np.float32).tolist() == want.astype(np.float32).tolist()
    value = float(np.float32(0.3).astype(ml_dtypes.bfloat16))  # value in BFLOAT16 too
    assert got.astype(np.float32).tolist() == [value, 0.25, value, value]
