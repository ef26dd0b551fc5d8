"""aclnnSoftmaxBackward (specs/softmax_grad.yaml) and aclnnLogSoftmaxBackward (specs/log_softmax_grad.yaml), the
reduce_dim schedule with two inputs (gradOutput and output) streamed through the kernel, through the generated API
on the twin, against torch.ops.aten._softmax_backward_data / _log_softmax_backward_data: rows of one element, rows
just under and just over what fits in UB (found with the tiling model), a row of 100,000 elements, ±inf and NaN in
a row, empty tensors, negative dims; the twin's trace shows each input read once when rows fit and otherwise by the
passes that read it (the sum pass, then the output pass; LogSoftmaxGrad's sum reads the gradient alone), the result
written once; the generated kernel gives bit-identical results for 1, 8 and 48 cores. A reduced dim that is not the
last (the columns path, a0 > 1): every non-last dim of a 3-d and a 4-d tensor, positive and negative, columns that
fit and column chunks (found with the tiling model) with each input read once or by the passes reading it, ±inf and
NaN along a column, bit-identical for 1, 8 and 48 cores and equal to the plan's model."""

from __future__ import annotations

import numpy as np
import pytest
import softmax_family
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.reduce_dim_tiling import reduce_cost
from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import DType

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OPS = ("softmax_grad", "log_softmax_grad")
INPUTS = 2  # gradOutput and output, each read from GM
# a pass over chunks loads only the inputs its program reads: softmax's sum(gradOutput * output) and output pass read
# both (2 per element); log-softmax's sum(gradOutput) reads the gradient alone, its output pass both (1.5)
CHUNK_READS = {"softmax_grad": 2.0, "log_softmax_grad": 1.5}


def _spec(op: str):
    return specs()[op]


def _binding(op: str):
    return getattr(opgen_ops, _spec(op).api.binding_name)


def _variant(op: str, dtype: DType):
    return softmax_family.variant_of(_spec(op), dtype)


def _plan(op: str, rows: int, r: int, dtype: DType = DType.FLOAT, a0: int = 1):
    return softmax_family.tiling_plan(_spec(op), rows, r, dtype, a0)


def _forward(op: str, x: np.ndarray, dim: int) -> np.ndarray:
    """The forward's result, the `output` a caller hands the backward."""
    f = torch.nn.functional.softmax if op == "softmax_grad" else torch.nn.functional.log_softmax
    return f(torch.from_numpy(x), dim=dim).numpy()


def _torch_backward(op: str, g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """aten's backward in float32 (its input_dtype: the float32 the inputs are widened to)."""
    aten = torch.ops.aten
    fn = aten._softmax_backward_data if op == "softmax_grad" else aten._log_softmax_backward_data
    g32, y32 = (torch.from_numpy(np.ascontiguousarray(a, np.float32)) for a in (g, y))
    return fn(g32, y32, dim, torch.float32).numpy()


def _run(op: str, g: np.ndarray, y: np.ndarray, dim: int, tmp_path, monkeypatch):
    """The binding's result and the kernel launches' GM bytes (read, written), from the twin's trace."""
    return softmax_family.run_traced(_spec(op), _binding(op), (g, y, dim), tmp_path, monkeypatch)


def _inputs(op: str, rows: int, r: int, dtype: DType, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A gradient and the forward's result of random logits, both stored in `dtype`."""
    return _inputs_along(op, (rows, r), -1, dtype, seed)


def _inputs_along(op: str, shape: tuple[int, ...], dim: int, dtype: DType, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A gradient and the forward's result along `dim` of random logits, both stored in `dtype`."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10, 10, shape).astype(np.float32)
    g = rng.uniform(-1, 1, shape).astype(dtype.numpy)
    return g, _forward(op, x, dim).astype(dtype.numpy)


@pytest.mark.parametrize("op", OPS)
def test_the_ub_boundary_is_where_the_tiling_model_puts_it(op):
    """Two inputs and their float copies share UB: the longest fitting row is shorter than softmax's."""
    softmax_family.assert_ub_boundary_is_the_models(_spec(op))
    plan, variant = _variant(op, DType.FLOAT)
    assert len(plan.program_inputs) == INPUTS
    assert reduce_cost(variant, len(plan.program_inputs), len(plan.outputs)).queues == INPUTS + 1


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(("case", "dtype"), softmax_family.ROW_CASES)
def test_matches_torch_and_reads_each_input_once_or_twice(op, case, dtype, tmp_path, monkeypatch):
    rows, r = softmax_family.row_case_shape(_spec(op), case, dtype)
    g, y = _inputs(op, rows, r, dtype, seed=r)
    got, moved = _run(op, g, y, -1, tmp_path, monkeypatch)
    assert got.dtype == dtype.numpy and got.shape == g.shape
    want = _torch_backward(op, g, y, -1)
    if case == "rows_of_one":  # y = 1 (softmax) or 0 (log-softmax): the gradient of a constant, exactly 0
        assert np.all(got == 0) and np.all(want == 0)
    tolerance = _spec(op).golden.tolerance[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)
    planned = _plan(op, rows, r, dtype)
    ((read, written),) = moved
    assert written == g.nbytes, "out written once"
    reads = read / (INPUTS * g.nbytes)
    if planned.rows_per_tile > 0:
        assert reads == 1, "rows in UB: gradOutput and output read once"
    else:
        assert reads == CHUNK_READS[op], "a row in chunks: read for the row's sum, then again for the output"
    assert (planned.rows_per_tile > 0) == (case not in softmax_family.CHUNKED_ROW_CASES)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(("shape", "dim"), [((4, 5, 6), -1), ((4, 5, 6), 2), ((7,), -1), ((), -1), ((), 0)])
def test_negative_and_last_dims_match_torch(op, shape, dim, tmp_path, monkeypatch):
    """The last dim by either spelling, a 1-d tensor (-1 is -n), a 0-d tensor (one row of one element, dim in
    [-1, 0]); dim == n is refused (LogSoftmaxBackward's doc gives [-n, n], its code [-n, n-1])."""
    rng = np.random.default_rng(10 * len(shape) + dim + 1)
    x = np.asarray(rng.uniform(-10, 10, shape), np.float32)
    g = np.asarray(rng.uniform(-1, 1, shape), np.float32)
    y = _forward(op, x, dim)
    got, _ = _run(op, g, y, dim, tmp_path, monkeypatch)
    assert got.shape == shape
    np.testing.assert_allclose(got, _torch_backward(op, g, y, dim), rtol=1e-5, atol=1e-6)
    with pytest.raises(opgen_ops.AclnnError, match="161002"):
        _binding(op)(g, y, max(len(shape), 1))
    with pytest.raises(opgen_ops.AclnnError, match="161002"):
        _binding(op)(g, y, -max(len(shape), 1) - 1)


def _check(op: str, got: np.ndarray, g: np.ndarray, y: np.ndarray, dim: int, dtype: DType) -> None:
    assert got.dtype == dtype.numpy and got.shape == g.shape
    want = _torch_backward(op, g, y, dim)
    tolerance = _spec(op).golden.tolerance[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tolerance.rtol, atol=tolerance.atol)


def _view(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """(a1, r, a0) of `shape` reduced along `dim`."""
    axis = dim % len(shape)
    return int(np.prod(shape[:axis])), shape[axis], int(np.prod(shape[axis + 1 :]))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dim", [1, 0, -2, -3])
@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16])
def test_non_last_dims_of_a_3d_tensor_match_torch(op, dim, dtype, tmp_path, monkeypatch):
    """The columns path (a0 > 1) along each non-last dim, positive and negative: small, so the columns fit and each
    input is read once."""
    g, y = _inputs_along(op, (4, 5, 6), dim, dtype, seed=20 + dim)
    a1, r, a0 = _view(g.shape, dim)
    assert a0 > 1 and _plan(op, a1, r, dtype, a0).rows_per_chunk == r
    got, moved = _run(op, g, y, dim, tmp_path, monkeypatch)
    _check(op, got, g, y, dim, dtype)
    ((read, written),) = moved
    assert read == INPUTS * g.nbytes and written == g.nbytes


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dim", [0, 1, 2, -2, -3, -4])
def test_non_last_dims_of_a_4d_tensor_match_torch(op, dim, tmp_path, monkeypatch):
    g, y = _inputs_along(op, (3, 70, 9, 11), dim, DType.FLOAT, seed=30 + dim)
    got, moved = _run(op, g, y, dim, tmp_path, monkeypatch)
    _check(op, got, g, y, dim, DType.FLOAT)
    ((read, written),) = moved
    assert read == INPUTS * g.nbytes and written == g.nbytes, "the columns fit: each input read once"


@pytest.mark.parametrize("op", OPS)
def test_the_column_chunk_boundary_is_where_the_tiling_model_puts_it(op):
    """Two inputs and their column buffers share UB: fewer rows of a block of columns fit than in softmax."""
    softmax_family.assert_column_chunk_boundary_is_the_models(_spec(op))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(("case", "dtype"), softmax_family.COLUMN_CASES)
def test_non_last_dim_columns_fit_or_chunk_and_read_each_input_once_or_twice(op, case, dtype, tmp_path, monkeypatch):
    """(a1, r, a0) reduced along r, as dim 1 or -2: columns whose r rows fit in UB (each input read once), and column
    chunks (a block of columns' rows too many for a tile, or more than one DataCopyPad moves: read for the sum, then
    for the output), vs torch."""
    a1, r, a0 = softmax_family.column_case_shape(_spec(op), case, dtype, a0=5, copies_a0=3)
    dim = -2 if case.startswith("just") else 1
    g, y = _inputs_along(op, (a1, r, a0), dim, dtype, seed=r)
    got, moved = _run(op, g, y, dim, tmp_path, monkeypatch)
    _check(op, got, g, y, dim, dtype)
    planned = _plan(op, a1, r, dtype, a0)
    ((read, written),) = moved
    assert written == g.nbytes, "out written once"
    fits = planned.rows_per_chunk == r
    assert fits == (case in softmax_family.FITTING_COLUMN_CASES), case
    _, variant = _variant(op, dtype)
    assert len(variant.stages) == 1  # one level: the row's sum
    assert read / (INPUTS * g.nbytes) == (1 if fits else CHUNK_READS[op]), (
        "columns in UB: once; chunks: the sum, the output"
    )


@pytest.mark.parametrize("op", OPS)
def test_non_last_dim_bit_identical_for_1_8_and_48_cores_and_equal_to_the_model(op, tmp_path, twin_lib):
    """The columns path through the kernel harness: units split over 1, 8 or 48 cores give the same bits, which are
    the plan's bit-exact model's (the rows path's sum order), for columns that fit and for column chunks."""
    harness = KernelHarness(_spec(op), twin_lib, tmp_path)
    schedule = schedule_for(_spec(op))
    runs, wants = [], []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec(op)):
        for a1, r, a0 in ((16, 300, 40), (4, 77, 700), (2, 3000, 20), (300, 130, 3)):
            g, y = _inputs_along(op, (a1, r, a0), 1, dtype, seed=a1 + r + a0)
            runs.append(
                (variant.storage, variant.mode_index, {"gradOutput": g.ravel(), "output": y.ravel()}, {}, (r, a0))
            )
            (want,) = schedule.kernel_outputs(variant, {"gradOutput": g, "output": y}, {}, {"dim": 1}).values()
            wants.append(want)
    assert _plan(op, 16, 300, DType.FLOAT, 40).rows_per_chunk == 300  # columns fit
    assert _plan(op, 2, 3000, DType.FLOAT, 20).rows_per_chunk < 3000  # column chunks
    on_48 = softmax_family.run_on_cores(harness, runs, wants)
    assert all(run.plan["blockDim"] > 1 for run in on_48)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("along", ["rows", "columns"])
def test_infinities_and_nan_in_a_row_as_torch(op, along, tmp_path, monkeypatch):
    """Each row below along the last dim, or as a column reduced along dim 0 (the columns path)."""
    inf, nan = np.inf, np.nan
    rows = [  # (g, y): softmax's y in [0, 1], log-softmax's in [-inf, 0], but any values reach the formula
        ([1.0, inf, 2.0, 3.0], [0.1, 0.2, 0.3, 0.4]),  # an infinite gradient
        ([1.0, -inf, 2.0, 3.0], [0.1, 0.2, 0.3, 0.4]),
        ([1.0, nan, 2.0, 3.0], [0.1, 0.2, 0.3, 0.4]),  # NaN in the gradient
        ([1.0, 2.0, 3.0, 4.0], [0.1, nan, 0.3, 0.4]),  # NaN in the result
        ([1.0, 2.0, 3.0, 4.0], [-inf, -inf, 0.0, -inf]),  # log-softmax of one finite logit
        ([1.0, 2.0, 3.0, 4.0], [inf, 0.0, 0.0, 0.0]),  # an infinite result
        ([inf, 2.0, 3.0, 4.0], [0.0, 0.5, 0.5, 0.0]),  # inf times a zero result
    ]
    g = np.array([r[0] for r in rows], np.float32)
    y = np.array([r[1] for r in rows], np.float32)
    if along == "columns":
        got, _ = _run(op, np.ascontiguousarray(g.T), np.ascontiguousarray(y.T), 0, tmp_path, monkeypatch)
        got = got.T
    else:
        got, _ = _run(op, g, y, -1, tmp_path, monkeypatch)
    want = _torch_backward(op, g, y, -1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)  # infinities equal, signs included


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0), (2, 0, 3)])
def test_empty_tensors_return_empty(op, shape, tmp_path, monkeypatch):
    g = np.zeros(shape, np.float32)
    got, moved = _run(op, g, g.copy(), -1, tmp_path, monkeypatch)
    assert got.shape == _torch_backward(op, g, g, -1).shape and moved == []


@pytest.mark.parametrize("op", OPS)
def test_bit_identical_for_1_8_and_48_cores(op, tmp_path, twin_lib):
    """The generated kernel and tiling (through the kernel harness, the tiling planning for the core count given):
    rows split over 1, 8 or 48 cores give the same bits, for rows that fit and for rows in chunks."""
    harness = KernelHarness(_spec(op), twin_lib, tmp_path)
    runs = []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec(op)):
        for rows, r in ((200, 777), (5000, 3), (5, 20_000)):
            g, y = _inputs(op, rows, r, dtype, seed=rows + r)
            runs.append((variant.storage, variant.mode_index, {"gradOutput": g.ravel(), "output": y.ravel()}, {}, r))
    on_48 = softmax_family.run_on_cores(harness, runs)
    assert all(run.plan["blockDim"] > 1 for run in on_48)


@pytest.mark.parametrize(
    ("op", "first"),
    [("softmax_grad", "dim is out of the range"), ("log_softmax_grad", "the shapes of output and out")],
)
def test_the_codes_order_decides_which_row_answers(op, first):
    """As ops-nn's CheckParams: the dtype rows before the dim and shape rows in both APIs; SoftmaxBackward checks
    dim before the shapes, LogSoftmaxBackward the shapes before dim."""
    g = np.zeros((2, 3), np.float32)
    with pytest.raises(opgen_ops.AclnnError, match=first):  # a bad dim and a mismatched output
        _binding(op)(g, np.zeros((3, 2), np.float32), 5)
    with pytest.raises(opgen_ops.AclnnError, match="the dtype"):  # and an output of another dtype
        _binding(op)(g, np.zeros((3, 2), np.float16), 5)
