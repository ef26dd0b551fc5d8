"""Dtypes ops-nn's op_api serves where the A2/A3 vector unit cannot compute them directly (issue 17, item 3),
through the generated APIs on the twin, against torch: Sigmoid's integer self (cast to FLOAT first) and DOUBLE
(AICPU kernel), COMPLEX64 and COMPLEX128 (AICPU kernel, in std::complex<double>), Threshold's UINT8 (its scalars
wrapped into UINT8, as torch converts them), ThresholdBackward's INT8 and UINT8 (threshold in self's dtype). Integer
results must equal torch's exactly."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
opgen_ops = pytest.importorskip("opgen_ops")

pytestmark = pytest.mark.cxx


def _integers(dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return (
        np.array([info.min, info.min + 1, -3, -1, 0, 1, 2, 3, 100, info.max - 1, info.max], dtype=np.int64)
        .clip(info.min, info.max)
        .astype(dtype)
    )


@pytest.mark.parametrize("self_dtype", [np.int16, np.int8, np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("out_dtype", [np.float32, np.float16, np.float64])
def test_sigmoid_of_an_integer_self_into_a_floating_out(self_dtype, out_dtype):
    x = np.array([False, True, True]) if self_dtype == np.bool_ else _integers(self_dtype)
    out = np.zeros(x.shape, out_dtype)
    got = opgen_ops.sigmoid(x, out=out)
    assert got is out
    want = torch.sigmoid(torch.from_numpy(x).double()).numpy().astype(out_dtype)
    np.testing.assert_allclose(got, want, rtol=1e-3 if out_dtype == np.float16 else 1e-6, atol=1e-7)


def test_sigmoid_of_an_integer_self_refuses_an_integer_out():
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.sigmoid(_integers(np.int16), out=np.zeros(11, np.int16))
    assert info.value.status == 161002


def test_sigmoid_in_double_on_the_aicpu_kernel():
    x = np.array([-800.0, -40.0, -1.0, -1e-300, 0.0, 1e-9, 0.5, 37.0, 800.0, np.inf, -np.inf, np.nan])
    want = torch.sigmoid(torch.from_numpy(x)).numpy()
    got = opgen_ops.sigmoid(x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    inplace = x.copy()
    opgen_ops.sigmoid_(inplace)
    np.testing.assert_allclose(inplace, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize(("threshold", "value"), [(0, 20), (1, 0), (100, -1), (-1, 7), (2.9, -2.5)])
def test_threshold_on_uint8_equals_torch(threshold, value):
    x = _integers(np.uint8)
    want = torch.ops.aten.threshold(torch.from_numpy(x), int(threshold), int(value)).numpy()
    got = opgen_ops.threshold(x, threshold, value)
    assert got.dtype == np.uint8 and got.tolist() == want.tolist()
    inplace = x.copy()
    opgen_ops.threshold_(inplace, threshold, value)
    assert inplace.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("threshold", [0, -0.5, 1, 2.5, -1])
def test_threshold_backward_on_small_integers_equals_torch(dtype, threshold):
    x = _integers(dtype)
    grad = x[::-1].copy()
    want = torch.ops.aten.threshold_backward(torch.from_numpy(grad), torch.from_numpy(x), int(threshold)).numpy()
    got = opgen_ops.threshold_backward(grad, x, threshold)
    assert got.dtype == dtype and got.tolist() == want.tolist()


# The AICPU kernel's integer dtypes: computed in the integer itself, each step wrapping as ops-nn's integer
# arithmetic and torch do (a float carrier would saturate INT8 sums and round INT32/INT64 above 2**24).


def _wide_integers(dtype) -> np.ndarray:
    """The dtype's extremes and small values, plus values a float32 carrier would round (above 2**24)."""
    info = np.iinfo(dtype)
    big = [2**24 + 1, -(2**24) - 1, 2**31 - 1, -(2**31), 2**53 + 1, -(2**53) - 3]
    values = [int(v) for v in _integers(dtype)] + [v for v in big if info.min <= v <= info.max]
    return np.array(values, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64])
@pytest.mark.parametrize("alpha", [1, 2, -1, 3])
def test_add_relu_on_aicpu_integers_wraps_as_torch(dtype, alpha):
    x = _wide_integers(dtype)
    rng = np.random.default_rng(len(x) + alpha)
    y = np.concatenate([x[::-1], rng.permutation(x)])
    x = np.concatenate([x, x])
    want = torch.relu(torch.from_numpy(x) + alpha * torch.from_numpy(y)).numpy()
    got = opgen_ops.add_relu(x, y, alpha)
    assert got.dtype == dtype and got.tolist() == want.tolist()
    inplace = x.copy()
    opgen_ops.inplace_add_relu(inplace, y, alpha)
    assert inplace.tolist() == want.tolist()


def test_add_relu_promotes_int8_with_int64_onto_the_aicpu_kernel():
    x = _wide_integers(np.int8)
    y = _wide_integers(np.int64)[: len(x)]
    want = torch.relu(torch.from_numpy(x) + torch.from_numpy(y)).numpy()
    got = opgen_ops.add_relu(x, y, 1)
    assert got.dtype == np.int64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize(("threshold", "value"), [(0, 20), (1, 0), (100, -1), (-1, 7), (2.9, -2.5), (2**24, -(2**23))])
def test_threshold_on_aicpu_integers_equals_torch(dtype, threshold, value):
    x = _wide_integers(dtype)
    want = torch.ops.aten.threshold(torch.from_numpy(x), int(threshold), int(value)).numpy()
    got = opgen_ops.threshold(x, threshold, value)
    assert got.dtype == dtype and got.tolist() == want.tolist()
    inplace = x.copy()
    opgen_ops.threshold_(inplace, threshold, value)
    assert inplace.tolist() == want.tolist()


@pytest.mark.parametrize("threshold", [0, -0.5, 1, 2.5, -1, 2**24])
def test_threshold_backward_on_int32_equals_torch(threshold):
    x = _wide_integers(np.int32)
    grad = x[::-1].copy()
    want = torch.ops.aten.threshold_backward(torch.from_numpy(grad), torch.from_numpy(x), int(threshold)).numpy()
    got = opgen_ops.threshold_backward(grad, x, threshold)
    assert got.dtype == np.int32 and got.tolist() == want.tolist()


def _complex_points(dtype) -> np.ndarray:
    """Every pairing of real and imaginary parts among finite values and signed zeros (torch's result is defined
    there), large ones included (exp(-z) overflows or vanishes)."""
    parts = [-90.0, -20.0, -1.5, -0.0, 0.0, 0.25, 1.0, 3.0, 20.0, 90.0]
    values = np.empty((len(parts), len(parts)), np.complex128)
    values.real, values.imag = np.meshgrid(parts, parts)
    return values.reshape(-1).astype(dtype)


@pytest.mark.parametrize(("dtype", "tolerance"), [(np.complex64, 1e-6), (np.complex128, 1e-14)])
def test_sigmoid_of_a_complex_self_on_the_aicpu_kernel_equals_torch(dtype, tolerance):
    z = _complex_points(dtype)
    got = opgen_ops.sigmoid(z)
    assert got.dtype == dtype
    # the kernel computes in complex128 (as DOUBLE in double): aten in complex128 everywhere, and aten in the dtype
    # itself where its result is finite (in complex64, exp(90 + 90i) overflows and aten's reciprocal makes NaN)
    wide = torch.sigmoid(torch.from_numpy(z.astype(np.complex128))).numpy().astype(dtype)
    own = torch.sigmoid(torch.from_numpy(z)).numpy()
    finite = np.isfinite(own)
    assert finite.mean() > 0.9
    for want, where in ((wide, np.ones(z.shape, bool)), (own, finite)):
        for part in (np.real, np.imag):  # each part within the dtype's tolerance
            np.testing.assert_allclose(part(got)[where], part(want)[where], rtol=tolerance, atol=tolerance)
    out = np.zeros(z.shape, dtype)
    assert opgen_ops.sigmoid(z, out=out) is out
    np.testing.assert_array_equal(out, got)
    inplace = z.copy()
    opgen_ops.sigmoid_(inplace)
    np.testing.assert_array_equal(inplace, got)


def test_sigmoid_casts_a_real_result_into_a_complex_out_and_refuses_a_complex_result_into_a_real_out():
    x = np.array([-3.0, -0.5, 0.0, 2.0], np.float32)
    out = np.zeros(4, np.complex64)
    opgen_ops.sigmoid(x, out=out)
    np.testing.assert_allclose(out, torch.sigmoid(torch.from_numpy(x)).numpy().astype(np.complex64), rtol=1e-6)
    with pytest.raises(RuntimeError):  # torch's canCast refuses complex -> float
        torch.sigmoid(torch.from_numpy(x.astype(np.complex64)), out=torch.zeros(4))
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.sigmoid(x.astype(np.complex64), out=np.zeros(4, np.float32))
    assert info.value.status == 161002
