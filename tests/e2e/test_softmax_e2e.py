"""aclnnSoftmax (specs/softmax_v2.yaml, the reduce_dim schedule) through the generated API on the twin, against
torch's F.softmax: rows of one element, rows just under and just over what fits in UB (found with the tiling model),
a row of 100,000 elements, ±inf and NaN in a row, a row of all -inf, empty tensors; each row sums to 1 within the
bound the docs state; the twin's trace shows x read once when rows fit and at most three times otherwise, y written
once; the generated kernel gives bit-identical results for 1, 8 and 48 cores."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.kernel import kernel_plan
from opgen.plan.reduce_dim_tiling import plan_reduce, reduce_cost
from opgen.plan.reduce_model import SUM_WIDTH
from opgen.spec.dtypes import DType
from opgen.spec.socs import DEFAULT_SOC, get_soc

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OP = "softmax_v2"


def _spec():
    return specs()[OP]


def _variant(dtype: DType):
    plan = kernel_plan(_spec())
    return plan, next(v for v in plan.variants if v.storage is dtype)


def _plan(rows: int, r: int, dtype: DType = DType.FLOAT):
    """The tiling model's plan for (rows, r) on the SoC the binding runs on."""
    plan, variant = _variant(dtype)
    soc = get_soc(DEFAULT_SOC)
    cost = reduce_cost(variant, len(plan.program_inputs), len(plan.outputs))
    return plan_reduce(variant.key, cost, rows, r, 1, soc.vector_cores, soc.ub_usable_bytes)


def _longest_fitting_row(dtype: DType = DType.FLOAT) -> int:
    """The largest r whose (32-byte padded) row fits in one tile: the tile of a row too long to fit."""
    chunked = _plan(1, 10**7, dtype)
    assert chunked is not None and chunked.rows_per_tile == 0
    return chunked.tile_length  # a multiple of SUM_WIDTH, so of every dtype's block


def _torch_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    return torch.nn.functional.softmax(torch.from_numpy(x), dim=dim).numpy()


def _run(x: np.ndarray, dim: int, tmp_path, monkeypatch):
    """The binding's result and the kernel launch's GM bytes (read, written), from the twin's trace."""
    from opgen.twin.trace import read_trace

    trace = tmp_path / "trace.jsonl"
    trace.unlink(missing_ok=True)
    monkeypatch.setenv("OPGEN_TWIN_TRACE", str(trace))
    got = opgen_ops.softmax(x, dim)
    launches = [t for t in read_trace(trace) if t.kernel == _spec().operator.file_stem] if trace.exists() else []
    moved = [(t.totals().gm_to_ub_bytes, t.totals().ub_to_gm_bytes) for t in launches]
    return got, moved


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
    under = _longest_fitting_row()
    assert under % SUM_WIDTH == 0 and under > 1000
    assert _plan(3, under).rows_per_tile > 0
    assert _plan(3, under + 1).rows_per_tile == 0


@pytest.mark.parametrize(
    ("case", "dtype"),
    [
        ("rows_of_one", DType.FLOAT),
        ("rows_of_one", DType.FLOAT16),
        ("short_rows", DType.FLOAT),
        ("short_rows", DType.FLOAT16),
        ("short_rows", DType.BFLOAT16),
        ("just_under_ub", DType.FLOAT),
        ("just_over_ub", DType.FLOAT),
        ("just_under_ub", DType.FLOAT16),
        ("just_over_ub", DType.FLOAT16),
        ("row_of_100000", DType.FLOAT),
        ("row_of_100000", DType.FLOAT16),
    ],
)
def test_matches_torch_and_moves_each_element_once_or_thrice(case, dtype, tmp_path, monkeypatch):
    np_dtype = dtype.numpy
    r = {
        "rows_of_one": 1,
        "short_rows": 77,
        "just_under_ub": _longest_fitting_row(dtype),
        "just_over_ub": _longest_fitting_row(dtype) + 1,
        "row_of_100000": 100_000,
    }[case]
    rows = {"rows_of_one": 1001, "short_rows": 130, "row_of_100000": 2}.get(case, 3)
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
    assert (planned.rows_per_tile > 0) == (case not in ("just_over_ub", "row_of_100000"))


@pytest.mark.parametrize("dim", [-1, 1, 0, -3])
def test_other_dims_and_a_3d_tensor_match_torch(dim, tmp_path, monkeypatch):
    """The last dim along any spelling; a non-last dim (TODO(reduce-dim): no kernel path yet) is refused by the
    tiling, an error rather than a wrong result."""
    x = np.random.default_rng(5).uniform(-10, 10, (4, 5, 6)).astype(np.float32)
    if dim % 3 != 2:
        with pytest.raises(opgen_ops.AclnnError, match="561002"):  # the tiling refuses it
            opgen_ops.softmax(x, dim)
        return
    got, _ = _run(x, dim, tmp_path, monkeypatch)
    _check_rows(got, x, dim, DType.FLOAT)


def test_infinities_and_nan_in_a_row_as_torch(tmp_path, monkeypatch):
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
    got, _ = _run(x, -1, tmp_path, monkeypatch)
    want = _torch_softmax(x, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.isnan(got[2]).all()


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
    plan = kernel_plan(_spec())
    rng = np.random.default_rng(48)
    runs = []
    for dtype in (DType.FLOAT, DType.FLOAT16):
        variant = next(v for v in plan.variants if v.storage is dtype)
        for rows, r in ((200, 777), (5000, 3), (5, 20_000)):
            x = rng.uniform(-10, 10, rows * r).astype(dtype.numpy)
            runs.append((variant.storage, variant.mode_index, {"self": x}, {}, r))
    results = {cores: harness.run(DEFAULT_SOC, runs, cores=cores) for cores in (1, 8, 48)}
    for index, run in enumerate(results[48]):
        assert run.plan["blockDim"] > 1
        for cores in (1, 8):
            other = results[cores][index]
            assert other.plan["blockDim"] <= cores
            np.testing.assert_array_equal(other.output.view(np.uint8), run.output.view(np.uint8))
