"""aclnnSoftmin (specs/softmin.yaml: opgen's own operator on the reduce_dim schedule, softmax of -x) through the
generated API on the twin, against torch's F.softmin: rows of one element, short rows, rows just under and just over
what fits in UB (found with the tiling model), a row of 100,000 elements, ±inf and NaN in a row, empty tensors, and
DOUBLE on the AICPU kernel along any dim; each row sums to 1; x is read once from GM when rows fit, three times
otherwise."""

from __future__ import annotations

import numpy as np
import pytest
import softmax_family
from spec_list import specs

from opgen.spec.dtypes import DType

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OP = "softmin"


def _spec():
    return specs()[OP]


def _plan(rows: int, r: int, dtype: DType):
    return softmax_family.tiling_plan(_spec(), rows, r, dtype)


def _torch(x: np.ndarray, dim: int) -> np.ndarray:
    return torch.nn.functional.softmin(torch.from_numpy(x), dim=dim).numpy()


def _run(x: np.ndarray, dim: int, tmp_path, monkeypatch):
    """The binding's result and the AI Core launches' GM bytes (read, written), from the twin's trace."""
    return softmax_family.run_traced(_spec(), opgen_ops.softmin, (x, dim), tmp_path, monkeypatch)


# the shared row cases but FLOAT16's rows of one and UB boundary
@pytest.mark.parametrize(
    ("case", "dtype"),
    [c for c in softmax_family.ROW_CASES if c[1] is not DType.FLOAT16 or c[0] in ("short_rows", "row_of_100000")],
)
def test_matches_torch_and_reads_x_once_or_thrice(case, dtype, tmp_path, monkeypatch):
    rows, r = softmax_family.row_case_shape(_spec(), case, dtype)
    x = np.random.default_rng(r).uniform(-10, 10, (rows, r)).astype(dtype.numpy)
    got, moved = _run(x, -1, tmp_path, monkeypatch)
    assert got.dtype == x.dtype and got.shape == x.shape
    if case == "rows_of_one":
        assert np.all(got == 1)
    tolerance = _spec().golden.tolerance[dtype]
    want = _torch(x.astype(np.float32), -1)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)
    assert np.abs(got.astype(np.float64).sum(axis=-1) - 1).max() < (1e-5 if dtype is DType.FLOAT else 2e-2)
    ((read, written),) = moved
    assert written == x.nbytes
    fits = _plan(rows, r, dtype).rows_per_tile > 0
    assert fits == (case not in softmax_family.CHUNKED_ROW_CASES)
    assert read == (1 if fits else 3) * x.nbytes


def test_softmin_is_not_softmax():
    """The formula negates x: the smallest element of a row gets the largest weight."""
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    got = opgen_ops.softmin(x, -1)
    assert got[0].argmax() == 0
    np.testing.assert_allclose(got, opgen_ops.softmax(-x, -1), rtol=1e-6, atol=1e-7)


def test_infinities_and_nan_in_a_row_as_torch():
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [1.0, -inf, 2.0, 3.0],  # -x = inf: inf - inf, NaN everywhere
            [1.0, inf, 2.0, 3.0],  # -x = -inf contributes 0
            [inf, inf, inf, inf],  # all -x = -inf: NaN
            [1.0, nan, 2.0, 3.0],  # NaN everywhere
            [inf, 0.5, inf, inf],  # one finite value: 1 there
            [-88.0, 88.0, 0.0, -88.0],  # no overflow
        ],
        np.float32,
    )
    got = opgen_ops.softmin(x, -1)
    want = _torch(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.isnan(got[2]).all() and got[4, 1] == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0), (2, 0, 3)])
def test_empty_tensors_return_empty(shape, dtype, tmp_path, monkeypatch):
    x = np.zeros(shape, dtype)
    got, moved = _run(x, -1, tmp_path, monkeypatch)
    assert got.shape == _torch(x, -1).shape and got.dtype == dtype and moved == []


@pytest.mark.parametrize(
    ("shape", "dim"), [((1001, 1), -1), ((130, 77), -1), ((2, 100_000), -1), ((4, 5, 6), 0), ((4, 5, 6), 1), ((), 0)]
)
def test_double_runs_on_aicpu_and_matches_torch_in_float64(shape, dim, tmp_path, monkeypatch):
    x = np.random.default_rng(len(shape)).uniform(-10, 10, shape)
    got, moved = _run(x, dim, tmp_path, monkeypatch)
    assert got.dtype == np.float64 and got.shape == x.shape and moved == []
    tolerance = _spec().golden.tolerance[DType.DOUBLE]
    np.testing.assert_allclose(got, _torch(x, dim), rtol=tolerance.rtol, atol=tolerance.atol)


def test_double_infinities_and_nan_as_torch():
    inf, nan = np.inf, np.nan
    x = np.array([[1.0, -inf, 2.0], [1.0, inf, 2.0], [inf, inf, inf], [1.0, nan, 2.0], [-700.0, 700.0, 0.0]])
    got = opgen_ops.softmin(x, -1)
    want = _torch(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300)


@pytest.mark.parametrize(softmax_family.ARGS, softmax_family.CASES, ids=softmax_family.IDS)
def test_an_empty_self_returns_before_every_row_but_the_null_check(kind, self_shape, out_shape, out_dtype, dim):
    """The API returns success on an empty self right after the null check, as ops-nn's aclnnSoftmax does: an out
    of another shape, dtype or rank, or a dim past self's dims, is not looked at, and out is left as it is."""
    softmax_family.assert_empty_self_returns_out(
        _spec(), opgen_ops.softmin, kind, self_shape, out_shape, out_dtype, dim
    )
