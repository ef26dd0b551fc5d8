"""aclnnLogSoftmax (specs/log_softmax_v2.yaml, the reduce_dim schedule with ln of each row's sum computed per row on
the vector unit) through the generated API on the twin, against torch's F.log_softmax: rows of one element, short
rows, rows that fit in UB and rows in chunks, ±inf and NaN in a row, empty tensors; the generated kernel matches the
plan's numpy model bit for bit (the per-row Ln included) and gives the same bits for 1 and 48 cores."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.kernel import kernel_plan
from opgen.plan.reduce_model import run_reduce_outputs
from opgen.spec.dtypes import DType
from opgen.spec.socs import DEFAULT_SOC

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OP = "log_softmax_v2"


def _spec():
    return specs()[OP]


def _torch(x: np.ndarray, dim: int) -> np.ndarray:
    return torch.nn.functional.log_softmax(torch.from_numpy(x), dim=dim).numpy()


@pytest.mark.parametrize(
    ("rows", "r", "dtype"),
    [
        (1001, 1, DType.FLOAT),
        (130, 77, DType.FLOAT),
        (130, 77, DType.FLOAT16),
        (130, 77, DType.BFLOAT16),
        (3, 5000, DType.FLOAT),
        (2, 100_000, DType.FLOAT),  # a row in chunks
        (2, 100_000, DType.FLOAT16),
    ],
)
def test_matches_torch(rows, r, dtype):
    x = np.random.default_rng(r).uniform(-10, 10, (rows, r)).astype(dtype.numpy)
    got = opgen_ops.log_softmax(x, -1)
    assert got.dtype == x.dtype and got.shape == x.shape
    if r == 1:
        assert np.all(got == 0)
    want = _torch(x.astype(np.float32), -1)
    tolerance = _spec().golden.tolerance[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)


def test_a_3d_tensor_along_its_last_dim():
    x = np.random.default_rng(5).uniform(-10, 10, (4, 5, 6)).astype(np.float32)
    np.testing.assert_allclose(opgen_ops.log_softmax(x, 2), _torch(x, 2), rtol=1e-6, atol=1e-6)


def test_infinities_and_nan_in_a_row_as_torch():
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [1.0, inf, 2.0, 3.0],  # inf - inf: NaN everywhere
            [1.0, -inf, 2.0, 3.0],  # -inf stays -inf
            [-inf, -inf, -inf, -inf],  # all -inf: NaN
            [1.0, nan, 2.0, 3.0],  # NaN everywhere
            [-inf, 0.5, -inf, -inf],  # one finite value: 0 there
            [88.0, -88.0, 0.0, 88.0],  # no overflow
        ],
        np.float32,
    )
    got = opgen_ops.log_softmax(x, -1)
    want = _torch(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0)])
def test_empty_tensors_return_empty(shape):
    x = np.zeros(shape, np.float32)
    assert opgen_ops.log_softmax(x, -1).shape == shape


@pytest.mark.parametrize(
    ("shape", "dim"),
    [((1001, 1), -1), ((130, 77), -1), ((2, 100_000), -1), ((4, 5, 6), 0), ((4, 5, 6), 1), ((4, 5, 6), -1), ((), 0)],
)
def test_double_runs_on_aicpu_and_matches_torch_in_float64(shape, dim):
    """DOUBLE runs on the AICPU kernel (each row in double: its max, its sum of exp in order, ln of the sum once),
    which takes any dim, the non-last ones included."""
    x = np.random.default_rng(len(shape)).uniform(-10, 10, shape)
    got = opgen_ops.log_softmax(x, dim)
    assert got.dtype == np.float64 and got.shape == x.shape
    tolerance = _spec().golden.tolerance[DType.DOUBLE]
    np.testing.assert_allclose(got, _torch(x, dim), rtol=tolerance.rtol, atol=tolerance.atol)


def test_double_infinities_nan_and_empty_as_torch():
    inf, nan = np.inf, np.nan
    x = np.array(
        [[1.0, inf, 2.0], [1.0, -inf, 2.0], [-inf, -inf, -inf], [1.0, nan, 2.0], [-inf, 0.5, -inf], [700, -700, 0]]
    )
    got = opgen_ops.log_softmax(x, -1)
    want = _torch(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15)
    for shape in ((0,), (3, 0), (0, 4)):
        assert opgen_ops.log_softmax(np.zeros(shape), -1).shape == shape


@pytest.mark.parametrize(("rows", "r"), [(130, 77), (2, 100_000)])
def test_a_float16_self_with_a_float_out_runs_the_float_kernel(rows, r):
    """aclnnLogSoftmax casts self to out's dtype before the kernel (out's dtype.cast_inputs): a FLOAT16 self with a
    FLOAT out gives the FLOAT kernel's result on the float-cast self, bit for bit, not the FLOAT16 kernel's cast."""
    x = np.random.default_rng(r).uniform(-10, 10, (rows, r)).astype(np.float16)
    out = np.empty(x.shape, np.float32)
    got = opgen_ops.log_softmax(x, -1, out=out)
    assert got.dtype == np.float32
    widened = x.astype(np.float32)
    np.testing.assert_array_equal(got, opgen_ops.log_softmax(widened, -1))
    np.testing.assert_allclose(got, _torch(widened, -1), rtol=1e-5, atol=1e-5)
    # the FLOAT16 kernel's result cast after it (Softmax's rule) is off by FLOAT16's rounding
    assert np.abs(opgen_ops.log_softmax(x, -1).astype(np.float32) - got).max() > 1e-4


def test_the_kernel_matches_the_model_bit_for_bit_for_1_and_48_cores(tmp_path, twin_lib):
    """Rows that fit and a row in chunks, FLOAT and FLOAT16: the per-row Ln of the kernel (one element on the vector
    unit) and the model's (the API's model rounded to float) agree, whatever the core count."""
    harness = KernelHarness(_spec(), twin_lib, tmp_path)
    plan = kernel_plan(_spec())
    rng = np.random.default_rng(48)
    runs, wants = [], []
    for dtype in (DType.FLOAT, DType.FLOAT16):
        variant = next(v for v in plan.variants if v.storage is dtype)
        for rows, r in ((200, 777), (5000, 3), (3, 20_000)):
            x = rng.uniform(-10, 10, rows * r).astype(dtype.numpy)
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, r))
            (want,) = run_reduce_outputs(
                variant.program, variant.stages, {"self": x.reshape(rows, r)}, {}, variant.storage
            ).values()
            wants.append(want.reshape(-1))
    for cores in (1, 48):
        for run, want in zip(harness.run(DEFAULT_SOC, runs, cores=cores), wants, strict=True):
            np.testing.assert_array_equal(run.output.view(np.uint8), want.view(np.uint8))
