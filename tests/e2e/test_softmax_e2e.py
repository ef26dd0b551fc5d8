"""aclnnSoftmax (specs/softmax_v2.yaml, the reduce_dim schedule) through the generated API on the twin, against
torch's F.softmax: rows of one element, rows just under and just over what fits in UB (found with the tiling model),
a row of 100,000 elements, ±inf and NaN in a row, a row of all -inf, empty tensors; each row sums to 1 within the
bound the docs state; the twin's trace shows x read once when rows fit and at most three times otherwise, y written
once; the generated kernel gives bit-identical results for 1, 8 and 48 cores. A reduced dim that is not the last (the
columns path, a0 > 1): non-last and negative dims, columns that fit and column chunks (found with the tiling model),
x read once or three times, bit-identical for 1, 8 and 48 cores and equal to the plan's model bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
import softmax_family
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.reduce_model import SUM_WIDTH
from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import DType

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OP = "softmax_v2"
LARGER_UB_SOC = "ascend950"  # 253,952 bytes of UB to the default SoC's 188,160


def _spec():
    return specs()[OP]


def _plan(rows: int, r: int, dtype: DType = DType.FLOAT, a0: int = 1):
    return softmax_family.tiling_plan(_spec(), rows, r, dtype, a0)


def _torch_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    return torch.nn.functional.softmax(torch.from_numpy(x), dim=dim).numpy()


def _run(x: np.ndarray, dim: int, tmp_path, monkeypatch):
    """The binding's result and the kernel launch's GM bytes (read, written), from the twin's trace."""
    return softmax_family.run_traced(_spec(), opgen_ops.softmax, (x, dim), tmp_path, monkeypatch)


def sum_bound(r: int, dtype: DType) -> float:
    """The bound the docs state (specs/softmax_v2.yaml, constraints.notes) on |a row's sum - 1|: the float sum's
    depth d = 7 + 2 * ceil(log2(ceil(r / 64))) roundings of 2^-24 (the 64-lane tree, the binary counter over the
    group sums and its blocks, the division), plus each output's rounding into the dtype (FLOAT16: 2^-11 relative
    and 2^-25 absolute below its smallest normal, per element; BFLOAT16: 2^-8)."""
    groups = -(-r // SUM_WIDTH)
    depth = 7 + 2 * math.ceil(math.log2(groups)) if groups > 1 else 7
    bound = depth * 2.0**-24
    if dtype is DType.FLOAT16:
        bound += 2.0**-11 + r * 2.0**-25
    elif dtype is DType.BFLOAT16:
        bound += 2.0**-8
    return bound


def _check_rows(got: np.ndarray, x: np.ndarray, dim: int, dtype: DType) -> None:
    want = _torch_softmax(x.astype(np.float32), dim)
    tolerance = _spec().golden.tolerance[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)
    finite = np.isfinite(x).all(axis=dim)
    sums = got.astype(np.float64).sum(axis=dim)
    assert np.all(np.abs(sums[finite] - 1.0) <= sum_bound(x.shape[dim], dtype)), np.abs(sums[finite] - 1).max()


def test_the_ub_boundary_is_where_the_tiling_model_puts_it():
    softmax_family.assert_ub_boundary_is_the_models(_spec())


@pytest.mark.parametrize(("case", "dtype"), softmax_family.ROW_CASES)
def test_matches_torch_and_moves_each_element_once_or_thrice(case, dtype, tmp_path, monkeypatch):
    np_dtype = dtype.numpy
    rows, r = softmax_family.row_case_shape(_spec(), case, dtype)
    x = np.random.default_rng(r).uniform(-10, 10, (rows, r)).astype(np_dtype)
    got, moved = _run(x, -1, tmp_path, monkeypatch)
    assert got.dtype == np_dtype and got.shape == x.shape
    if case == "rows_of_one":
        assert np.all(got == 1)
    _check_rows(got, x, -1, dtype)
    planned = _plan(rows, r, dtype)
    ((read, written),) = moved
    assert written == x.nbytes, "y written once"
    reads = read / x.nbytes
    if planned.rows_per_tile > 0:
        assert reads == 1, "rows in UB: x read once"
    else:
        assert reads == 3, "a row in chunks: the max, the sum of exp, the output"
    assert (planned.rows_per_tile > 0) == (case not in softmax_family.CHUNKED_ROW_CASES)


@pytest.mark.parametrize("dim", [-1, 2, 1, 0, -2, -3])
@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16])
def test_every_dim_of_a_3d_tensor_matches_torch(dim, dtype, tmp_path, monkeypatch):
    """The last dim along any spelling, and the non-last ones (the columns path), positive and negative."""
    x = np.random.default_rng(5).uniform(-10, 10, (4, 5, 6)).astype(dtype.numpy)
    got, moved = _run(x, dim, tmp_path, monkeypatch)
    assert got.dtype == x.dtype and got.shape == x.shape
    _check_rows(got, x, dim, dtype)
    ((read, written),) = moved
    assert read == written == x.nbytes


@pytest.mark.parametrize("dim", [1, -3, 0])
def test_non_last_dims_of_a_4d_tensor_match_torch(dim, tmp_path, monkeypatch):
    x = np.random.default_rng(6).uniform(-30, 30, (3, 70, 9, 11)).astype(np.float32)
    got, _ = _run(x, dim, tmp_path, monkeypatch)
    _check_rows(got, x, dim, DType.FLOAT)


def test_the_column_chunk_boundary_is_where_the_tiling_model_puts_it():
    softmax_family.assert_column_chunk_boundary_is_the_models(_spec())


# the shared column cases but FLOAT16's just_under_a_tile
@pytest.mark.parametrize(
    ("case", "dtype"), [c for c in softmax_family.COLUMN_CASES if c != ("just_under_a_tile", DType.FLOAT16)]
)
def test_non_last_dim_columns_fit_or_chunk_and_move_x_once_or_thrice(case, dtype, tmp_path, monkeypatch):
    """(a1, r, a0) reduced along r: columns whose r rows fit in UB (x read once), and column chunks (a block of
    columns' rows too many for a tile, or more than one DataCopyPad moves: x read three times), vs torch."""
    a1, r, a0 = softmax_family.column_case_shape(_spec(), case, dtype, a0=5, copies_a0=3)
    x = np.random.default_rng(r).uniform(-10, 10, (a1, r, a0)).astype(dtype.numpy)
    got, moved = _run(x, 1, tmp_path, monkeypatch)
    assert got.dtype == x.dtype and got.shape == x.shape
    _check_rows(got, x, 1, dtype)
    planned = _plan(a1, r, dtype, a0)
    ((read, written),) = moved
    assert written == x.nbytes, "y written once"
    fits = planned.rows_per_chunk == r
    assert fits == (case in softmax_family.FITTING_COLUMN_CASES), case
    assert read / x.nbytes == (1 if fits else 3), "columns in UB: once; chunks: the max, the sum of exp, the output"


def test_non_last_dim_bit_identical_for_1_8_and_48_cores_and_equal_to_the_model(tmp_path, twin_lib):
    """The columns path through the kernel harness: units split over 1, 8 or 48 cores, and the tiles of a larger UB,
    give the same bits, which are the plan's bit-exact model's (the rows path's sum order), for columns that fit and
    for column chunks."""
    harness = KernelHarness(_spec(), twin_lib, tmp_path)
    schedule = schedule_for(_spec())
    rng = np.random.default_rng(49)
    runs, wants = [], []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec()):
        for a1, r, a0 in ((16, 300, 40), (4, 77, 700), (2, 6000, 20), (300, 130, 3)):
            x = rng.uniform(-10, 10, a1 * r * a0).astype(dtype.numpy)
            x[: r * a0 : 7] = -0.0  # zeros of either sign in the sums
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, (r, a0)))
            (want,) = schedule.kernel_outputs(variant, {"self": x.reshape(a1, r, a0)}, {}, {"dim": 1}).values()
            wants.append(want)
    on_48 = softmax_family.run_on_cores(harness, runs, wants)
    larger_ub = harness.run(LARGER_UB_SOC, runs, cores=48)  # other tiles: more columns or rows per load
    assert any(a.plan["tile"] != b.plan["tile"] for a, b in zip(larger_ub, on_48, strict=True))
    for larger, run in zip(larger_ub, on_48, strict=True):
        softmax_family.same_bits(larger.outputs, run.outputs)
        assert run.plan["blockDim"] > 1


@pytest.mark.parametrize("along", ["rows", "columns"])
def test_infinities_and_nan_in_a_row_as_torch(along, tmp_path, monkeypatch):
    """Each row below along the last dim, or as a column reduced along dim 0 (the columns path)."""
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [1.0, inf, 2.0, 3.0],  # inf - inf: NaN everywhere
            [1.0, -inf, 2.0, 3.0],  # -inf contributes 0
            [-inf, -inf, -inf, -inf],  # all -inf: NaN (torch's -inf - -inf)
            [1.0, nan, 2.0, 3.0],  # NaN everywhere
            [-inf, 0.5, -inf, -inf],  # one finite value: 1 there
            [88.0, -88.0, 0.0, 88.0],  # exp of the row max's offsets, no overflow
        ],
        np.float32,
    )
    if along == "columns":
        got, _ = _run(np.ascontiguousarray(x.T), 0, tmp_path, monkeypatch)
        got = got.T
    else:
        got, _ = _run(x, -1, tmp_path, monkeypatch)
    want = _torch_softmax(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.isnan(got[2]).all()


@pytest.mark.parametrize(("shape", "dim"), [((2, 0, 3), 0), ((2, 0, 3), 1), ((0, 4, 5), -2)])
def test_empty_tensors_along_a_non_last_dim_return_empty(shape, dim, tmp_path, monkeypatch):
    x = np.zeros(shape, np.float32)
    got, moved = _run(x, dim, tmp_path, monkeypatch)
    assert got.shape == shape and moved == []


@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0), (2, 0, 3)])
def test_empty_tensors_return_empty(shape, tmp_path, monkeypatch):
    x = np.zeros(shape, np.float32)
    got, moved = _run(x, -1, tmp_path, monkeypatch)
    assert got.shape == _torch_softmax(x, -1).shape and moved == []


@pytest.mark.parametrize(
    ("shape", "dim"),
    [((1001, 1), -1), ((130, 77), -1), ((2, 100_000), -1), ((4, 5, 6), 0), ((4, 5, 6), 1), ((4, 5, 6), -1), ((), 0)],
)
def test_double_runs_on_aicpu_and_matches_torch_in_float64(shape, dim, tmp_path, monkeypatch):
    """DOUBLE is routed to the AICPU kernel (each row in double: its max, its sum of exp in order, the outputs),
    which takes any dim, the non-last ones included, and launches no AI Core kernel."""
    x = np.random.default_rng(len(shape)).uniform(-10, 10, shape)
    got, moved = _run(x, dim, tmp_path, monkeypatch)
    assert got.dtype == np.float64 and got.shape == x.shape and moved == []
    tolerance = _spec().golden.tolerance[DType.DOUBLE]
    np.testing.assert_allclose(got, _torch_softmax(x, dim), rtol=tolerance.rtol, atol=tolerance.atol)
    if x.size > 1:
        assert np.abs(got.sum(axis=dim) - 1).max() < 1e-12


def test_double_infinities_nan_and_empty_as_torch(tmp_path, monkeypatch):
    inf, nan = np.inf, np.nan
    x = np.array(
        [[1.0, inf, 2.0], [1.0, -inf, 2.0], [-inf, -inf, -inf], [1.0, nan, 2.0], [-inf, 0.5, -inf], [700, -700, 0]]
    )
    got, _ = _run(x, -1, tmp_path, monkeypatch)
    want = _torch_softmax(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300)
    for shape in ((0,), (3, 0), (0, 4)):
        assert opgen_ops.softmax(np.zeros(shape), -1).shape == shape


def test_bit_identical_for_1_8_and_48_cores(tmp_path, twin_lib):
    """The generated kernel and tiling (through the kernel harness, the tiling planning for the core count given):
    rows split over 1, 8 or 48 cores give the same bits, for rows that fit and for rows in chunks."""
    harness = KernelHarness(_spec(), twin_lib, tmp_path)
    rng = np.random.default_rng(48)
    runs = []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec()):
        for rows, r in ((200, 777), (5000, 3), (5, 20_000)):
            x = rng.uniform(-10, 10, rows * r).astype(dtype.numpy)
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, r))
    on_48 = softmax_family.run_on_cores(harness, runs)
    assert all(run.plan["blockDim"] > 1 for run in on_48)


@pytest.mark.parametrize(softmax_family.ARGS, softmax_family.CASES, ids=softmax_family.IDS)
def test_an_empty_self_returns_before_every_row_but_the_null_check(kind, self_shape, out_shape, out_dtype, dim):
    """The API returns success on an empty self right after the null check, as ops-nn's aclnnSoftmax does: an out
    of another shape, dtype or rank, or a dim past self's dims, is not looked at, and out is left as it is."""
    softmax_family.assert_empty_self_returns_out(
        _spec(), opgen_ops.softmax, kind, self_shape, out_shape, out_dtype, dim
    )


@pytest.mark.parametrize("soc", ["ascend910", "ascend310p"])
def test_bfloat16_is_refused_on_a_soc_without_it(soc):
    """The dtype row's list is the SoC's (socs.exclude_dtypes): 910 and 310P take no BFLOAT16, as ops-nn's list for
    a SoC outside 910B..910E and regbase; FLOAT passes the row there (the twin then stops at the kernel, which needs
    DataCopyPad those parts lack: ops-nn serves them from built-in kernels)."""
    softmax_family.assert_bfloat16_refused_on(_spec(), soc, "softmax")
