"""aclnnLogSoftmax (specs/log_softmax_v2.yaml, the reduce_dim schedule with ln of each row's sum computed per row on
the vector unit) through the generated API on the twin, against torch's F.log_softmax: rows of one element, short
rows, rows that fit in UB and rows in chunks, ±inf and NaN in a row, empty tensors; the generated kernel matches the
plan's numpy model bit for bit (the per-row Ln included) and gives the same bits for 1 and 48 cores. A reduced dim
that is not the last (the columns path: Ln of a column of sums): non-last and negative dims vs F.log_softmax, columns
that fit and column chunks (found with the tiling model; x read once / three times by the twin's trace),
bit-identical for 1, 8 and 48 cores and equal to the model."""

from __future__ import annotations

import numpy as np
import pytest
import softmax_family
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.reduce_model import run_reduce_outputs
from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import DType

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


def _plan(rows: int, r: int, a0: int, dtype: DType = DType.FLOAT):
    return softmax_family.tiling_plan(_spec(), rows, r, dtype, a0)


def _run(x: np.ndarray, dim: int, tmp_path, monkeypatch):
    """The binding's result and the kernel launch's GM bytes (read, written), from the twin's trace."""
    return softmax_family.run_traced(_spec(), opgen_ops.log_softmax, (x, dim), tmp_path, monkeypatch)


def _check(got: np.ndarray, x: np.ndarray, dim: int, dtype: DType) -> None:
    assert got.dtype == x.dtype and got.shape == x.shape
    tolerance = _spec().golden.tolerance[dtype]
    want = _torch(x.astype(np.float32), dim)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)


@pytest.mark.parametrize("dim", [2, -1, 1, 0, -2, -3])
@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16])
def test_every_dim_of_a_3d_tensor_matches_torch(dim, dtype, tmp_path, monkeypatch):
    """The last dim, and the non-last ones (the columns path), positive and negative."""
    x = np.random.default_rng(5).uniform(-10, 10, (4, 5, 6)).astype(dtype.numpy)
    got, moved = _run(x, dim, tmp_path, monkeypatch)
    _check(got, x, dim, dtype)
    assert moved == [(x.nbytes, x.nbytes)]


# the shared column cases but FLOAT16's just_under_a_tile, and the wide columns in BFLOAT16
@pytest.mark.parametrize(
    ("case", "dtype"),
    [
        ("wide_columns_fit", DType.BFLOAT16) if case == "wide_columns_fit" else (case, dtype)
        for case, dtype in softmax_family.COLUMN_CASES
        if (case, dtype) != ("just_under_a_tile", DType.FLOAT16)
    ],
)
def test_non_last_dim_columns_fit_or_chunk_and_move_x_once_or_thrice(case, dtype, tmp_path, monkeypatch):
    a1, r, a0 = softmax_family.column_case_shape(_spec(), case, dtype, a0=6, copies_a0=2)
    x = np.random.default_rng(r).uniform(-10, 10, (a1, r, a0)).astype(dtype.numpy)
    got, moved = _run(x, -2, tmp_path, monkeypatch)
    _check(got, x, -2, dtype)
    fits = _plan(a1, r, a0, dtype).rows_per_chunk == r
    assert fits == (case in softmax_family.FITTING_COLUMN_CASES), case
    ((read, written),) = moved
    assert written == x.nbytes
    assert read / x.nbytes == (1 if fits else 3), "columns in UB: once; chunks: the max, the sum of exp, the output"


def test_non_last_dim_bit_identical_for_1_8_and_48_cores_and_equal_to_the_model(tmp_path, twin_lib):
    """The columns path's Ln of a column of sums and its sums in the rows path's order: the model's bits, whatever
    the core count, for columns that fit and for column chunks."""
    harness = KernelHarness(_spec(), twin_lib, tmp_path)
    schedule = schedule_for(_spec())
    rng = np.random.default_rng(50)
    runs, wants = [], []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec()):
        for a1, r, a0 in ((16, 300, 40), (4, 128, 700), (2, 6000, 20), (300, 130, 3)):
            x = rng.uniform(-10, 10, a1 * r * a0).astype(dtype.numpy)
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, (r, a0)))
            (want,) = schedule.kernel_outputs(variant, {"self": x.reshape(a1, r, a0)}, {}, {"dim": 1}).values()
            wants.append(want)
    softmax_family.run_on_cores(harness, runs, wants)


@pytest.mark.parametrize("along", ["rows", "columns"])
def test_infinities_and_nan_in_a_row_as_torch(along):
    """Each row below along the last dim, or as a column reduced along dim 0 (the columns path)."""
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
    got = opgen_ops.log_softmax(np.ascontiguousarray(x.T), 0).T if along == "columns" else opgen_ops.log_softmax(x, -1)
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
    rng = np.random.default_rng(48)
    runs, wants = [], []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec()):
        for rows, r in ((200, 777), (5000, 3), (3, 20_000)):
            x = rng.uniform(-10, 10, rows * r).astype(dtype.numpy)
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, r))
            (want,) = run_reduce_outputs(
                variant.program, variant.stages, {"self": x.reshape(rows, r)}, {}, variant.storage
            ).values()
            wants.append(want.reshape(-1))
    softmax_family.run_on_cores(harness, runs, wants, cores=(1, 48))


@pytest.mark.parametrize(softmax_family.ARGS, softmax_family.CASES, ids=softmax_family.IDS)
def test_an_empty_self_is_refused_by_every_row(kind, self_shape, out_shape, out_dtype, dim):
    """ops-nn's aclnnLogSoftmax returns on an empty self only after its last check (CheckLogSoftmaxParams runs
    first): an empty self with an out of another shape, dtype or rank, or a dim past its dims, fails that row."""
    row = next(r for r in _spec().errors if r.check.kind == kind)
    x, out = softmax_family.arrays(self_shape, out_shape, out_dtype)
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.log_softmax(x, dim, out=out)
    assert info.value.status == row.code and row.message in info.value.message


@pytest.mark.parametrize("soc", ["ascend910", "ascend310p"])
def test_bfloat16_is_refused_on_a_soc_without_it(soc):
    """The dtype row's list is the SoC's (socs.exclude_dtypes): 910 and 310P take no BFLOAT16, as ops-nn's list for
    a SoC outside 910B..910E and regbase; FLOAT passes the row there (the twin then stops at the kernel, which needs
    DataCopyPad those parts lack: ops-nn serves them from built-in kernels)."""
    softmax_family.assert_bfloat16_refused_on(_spec(), soc, "log_softmax")
