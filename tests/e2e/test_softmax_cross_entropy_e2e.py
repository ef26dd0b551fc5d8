"""aclnnSoftmaxCrossEntropyWithLogits (specs/softmax_cross_entropy_with_logits.yaml: the reduce_dim schedule with a
per-row output) through the generated API on the twin, against torch: loss against F.cross_entropy with soft labels
(reduction='none'), backprop against softmax(x) - labels. Rows of one element, rows just under and just over what fits
in UB (found with the tiling model), rows of 100,000 elements, ±inf and NaN, empty tensors, every error row, the
shape quirk, labels broadcast as ops-nn's tiling does ([1, C], [N, 1], [1, 1]; GM bytes from the trace) and the
labels shapes it refuses; the twin's trace shows each input read once when rows fit, otherwise features four times
(three levels and the output pass) and labels twice (the loss's level and the output pass), loss and backprop written
once; the generated kernel gives bit-identical results for 1, 8 and 48 cores and matches the plan's numpy model bit
for bit."""

from __future__ import annotations

import numpy as np
import pytest
import softmax_family
from kernel_harness import KernelHarness
from spec_list import specs

from opgen.plan.reduce_model import run_reduce_outputs
from opgen.spec.dtypes import DType

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

OP = "softmax_cross_entropy_with_logits"
LEVELS = 3  # the row's max, the sum of exp, the sum of labels * log-softmax: each a pass over a row in chunks


def _spec():
    return specs()[OP]


def _plan(rows: int, r: int, dtype: DType = DType.FLOAT):
    return softmax_family.tiling_plan(_spec(), rows, r, dtype)


def _longest_fitting_row(dtype: DType = DType.FLOAT) -> int:
    return softmax_family.longest_fitting_row(_spec(), dtype)


def _soft_labels(rng: np.random.Generator, rows: int, r: int) -> np.ndarray:
    p = rng.uniform(0.0, 1.0, (rows, r))
    return p / p.sum(axis=1, keepdims=True)


def _torch(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss = torch.nn.functional.cross_entropy(xt, yt, reduction="none")
    return loss.numpy(), (torch.nn.functional.softmax(xt, dim=-1) - yt).numpy()


def _run(x: np.ndarray, y: np.ndarray, tmp_path, monkeypatch):
    """(loss, backprop) from the binding, and each kernel launch's GM bytes (read, written) from the twin's trace."""
    binding = opgen_ops.softmax_cross_entropy_with_logits
    (loss, backprop), moved = softmax_family.run_traced(_spec(), binding, (x, y), tmp_path, monkeypatch)
    return loss, backprop, moved


def test_the_ub_boundary_is_where_the_tiling_model_puts_it():
    softmax_family.assert_ub_boundary_is_the_models(_spec())


# the shared row cases, the rows of 100,000 in BFLOAT16 rather than FLOAT16
@pytest.mark.parametrize(("case", "dtype"), softmax_family.ROW_CASES[:-1] + [("row_of_100000", DType.BFLOAT16)])
def test_matches_torch_and_reads_features_once_or_four_times_labels_once_or_twice(case, dtype, tmp_path, monkeypatch):
    rows, r = softmax_family.row_case_shape(_spec(), case, dtype)
    rng = np.random.default_rng(r)
    x = rng.uniform(-10, 10, (rows, r)).astype(dtype.numpy)
    y = _soft_labels(rng, rows, r).astype(dtype.numpy)
    loss, backprop, moved = _run(x, y, tmp_path, monkeypatch)
    assert loss.dtype == backprop.dtype == dtype.numpy
    assert loss.shape == (rows,) and backprop.shape == (rows, r)
    want_loss, want_backprop = _torch(x.astype(np.float32), y.astype(np.float32))
    if case == "rows_of_one":  # log-softmax of one element is 0: loss 0, backprop 1 - labels (0 here)
        assert np.all(loss == 0) and np.all(backprop == 1 - y)
    tolerance = _spec().golden.tolerance[dtype]
    np.testing.assert_allclose(loss.astype(np.float32), want_loss, rtol=tolerance.rtol, atol=tolerance.atol)
    np.testing.assert_allclose(backprop.astype(np.float32), want_backprop, rtol=tolerance.rtol, atol=tolerance.atol)
    planned = _plan(rows, r, dtype)
    ((read, written),) = moved
    assert written == loss.nbytes + backprop.nbytes, "loss and backprop written once"
    if planned.rows_per_tile > 0:
        assert read == x.nbytes + y.nbytes, "rows in UB: features and labels read once"
    else:
        # features by every level and the output pass; labels only by the loss's sum (the last level) and the output
        # pass: the max's and the exp-sum's passes do not load them
        assert read == (LEVELS + 1) * x.nbytes + 2 * y.nbytes, "a row in chunks: each pass loads what it reads"
    assert (planned.rows_per_tile > 0) == (case not in softmax_family.CHUNKED_ROW_CASES)


def test_infinities_and_nan_as_torch(tmp_path, monkeypatch):
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [1.0, inf, 2.0, 3.0],  # inf - inf: NaN everywhere
            [1.0, -inf, 2.0, 3.0],  # log-softmax -inf under a positive label: an infinite loss
            [-inf, -inf, -inf, -inf],  # all -inf: NaN
            [1.0, nan, 2.0, 3.0],  # NaN everywhere
            [-inf, 0.5, -inf, -inf],  # one finite value
            [88.0, -88.0, 0.0, 88.0],  # exp of offsets from the row's max: no overflow
            [1.0, 2.0, 3.0, 4.0],  # a NaN label: loss and that element's backprop NaN
        ],
        np.float32,
    )
    y = np.full(x.shape, 0.25, np.float32)
    y[4] = [0.0, 1.0, 0.0, 0.0]  # 0 * -inf: NaN in both
    y[6, 2] = nan
    loss, backprop, _ = _run(x, y, tmp_path, monkeypatch)
    want_loss, want_backprop = _torch(x, y)
    for got, want in ((loss, want_loss), (backprop, want_backprop)):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert loss[1] == inf and np.isnan(loss[[0, 2, 3, 4, 6]]).all()


def test_empty_tensors_launch_no_kernel(tmp_path, monkeypatch):
    loss, backprop, moved = _run(np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32), tmp_path, monkeypatch)
    assert loss.shape == (0,) and backprop.shape == (0, 5) and moved == []
    # rows of no element: the loss of each is the sum of nothing
    loss, backprop, moved = _run(np.zeros((3, 0), np.float32), np.zeros((3, 0), np.float32), tmp_path, monkeypatch)
    assert loss.shape == (3,) and np.all(loss == 0) and backprop.shape == (3, 0) and moved == []


def _refused(code: int, message: str, *args, **kwargs) -> None:
    with pytest.raises(opgen_ops.AclnnError) as caught:
        opgen_ops.softmax_cross_entropy_with_logits(*args, **kwargs)
    assert caught.value.status == code and message in str(caught.value), str(caught.value)


def test_every_error_row_in_the_codes_order():
    x = np.zeros((3, 5), np.float32)
    y = np.full((3, 5), 0.2, np.float32)
    rows = _spec().errors
    null, dtypes, same, max_rank, min_rank = rows
    _refused(161001, null.message, x, None)
    _refused(161002, dtypes.message, x.astype(np.int32), y)
    _refused(161002, dtypes.message, x, y.astype(np.int32))
    _refused(161002, dtypes.message, x, y, loss=np.zeros(3, np.float64))
    _refused(161002, same.message, x, y, loss=np.zeros(3, np.float16))
    _refused(161002, same.message, x, y, backprop=np.zeros((3, 5), np.float16))
    _refused(161002, max_rank.message, x, y, loss=np.zeros((1,) * 9, np.float32))
    _refused(161002, max_rank.message, x.reshape(3, 5, 1), y.reshape(3, 5, 1))  # above features' [2, 2]
    _refused(161002, min_rank.message, x.reshape(-1), y)
    _refused(161002, min_rank.message, x, y.reshape(-1))
    # a dtype row comes before a rank row, as the code checks them
    _refused(161002, dtypes.message, x.reshape(-1).astype(np.int32), y)


def test_the_op_api_does_not_compare_shapes_as_ops_nn():
    """ops-nn's op_api checks ranks only: labels of another shape pass it and the host tiling refuses them; a loss of
    another shape than [N] is refused by the ViewCopy of the kernel's result; labels of another dtype are cast."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-10, 10, (3, 5)).astype(np.float32)
    y = _soft_labels(rng, 3, 5).astype(np.float32)
    with pytest.raises(opgen_ops.AclnnError, match="561002"):  # the tiling: labels [2, 5] against features [3, 5]
        opgen_ops.softmax_cross_entropy_with_logits(x, y[:2])
    with pytest.raises(opgen_ops.AclnnError) as caught:
        opgen_ops.softmax_cross_entropy_with_logits(x, y, loss=np.zeros((3, 5), np.float32))
    assert caught.value.status == 561103 and "ViewCopy" in str(caught.value)
    loss, backprop = opgen_ops.softmax_cross_entropy_with_logits(x, y.astype(np.float16))
    want_loss, want_backprop = _torch(x, y.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(backprop, want_backprop, rtol=1e-5, atol=1e-6)


# (features, labels) shapes ops-nn's tiling refuses (GRAPH_FAILED, 561002; see the spec's header): a labels dim
# neither 1 nor features', or features broadcast against labels (through aclnn the kernel's outputs have features'
# shape).
REFUSED_BY_OPS_NN = [
    ((3, 5), (2, 5)),
    ((3, 5), (3, 4)),
    ((3, 5), (1, 4)),
    ((3, 5), (2, 1)),
    ((1, 5), (3, 5)),
    ((3, 1), (3, 5)),
    ((1, 1), (3, 5)),
]


@pytest.mark.parametrize(("features", "labels"), REFUSED_BY_OPS_NN)
def test_shapes_ops_nn_refuses_are_refused_by_the_tiling(features, labels, tmp_path, monkeypatch):
    rng = np.random.default_rng(20)
    x = rng.uniform(-10, 10, features).astype(np.float32)
    y = rng.uniform(0, 1, labels).astype(np.float32)
    with pytest.raises(opgen_ops.AclnnError) as caught:
        _run(x, y, tmp_path, monkeypatch)
    # the tiling's failure is logged as ACLNN_ERR_INNER_TILING_ERROR; the l0op then returns no result, which the op_api
    # answers with ACLNN_ERR_INNER_NULLPTR
    message = str(caught.value)
    assert caught.value.status == 561103 and "errno[561002]" in message and "tiling function returned" in message


def _fitting_and_chunked_rows() -> list[tuple[str, int, int]]:
    # rows that fit: one tile a core, many short rows, several tiles a core (the last one shorter); rows in chunks
    return [
        ("rows_fit", 130, 77),
        ("rows_fit_short_rows", 5000, 3),
        ("rows_fit_tiles_per_core", 20000, 77),
        ("chunked", 3, _longest_fitting_row() + 1),
    ]


BROADCAST_FORMS = {
    "row [1, C]": lambda n, c: (1, c),
    "column [N, 1]": lambda n, c: (n, 1),
    "one [1, 1]": lambda n, c: (1, 1),
}


def _broadcast_labels_reads(form: str, rows: int, r: int, item: int) -> int:
    """The labels bytes the kernel reads from GM for a broadcast form: what every tile reads the same stays in UB,
    read once per core (one row when rows fit; one value); one value per row is read with its row's tile (in chunks:
    by each of the two passes that read labels, per chunk); a row too long to fit, by those two passes."""
    planned = _plan(rows, r)
    cores = planned.block_dim
    if planned.rows_per_tile > 0:
        return {"row [1, C]": cores * r, "column [N, 1]": rows, "one [1, 1]": cores}[form] * item
    chunks = -(-r // planned.tile_length)
    return {"row [1, C]": 2 * rows * r, "column [N, 1]": 2 * rows * chunks, "one [1, 1]": cores}[form] * item


@pytest.mark.parametrize("form", list(BROADCAST_FORMS))
@pytest.mark.parametrize(("size", "rows", "r"), _fitting_and_chunked_rows(), ids=lambda v: str(v))
def test_labels_broadcast_as_ops_nn_against_torch(form, size, rows, r, tmp_path, monkeypatch):
    """The labels shapes ops-nn's tiling broadcasts against features [N, C] (labelsBrcDim 0 and 1, IS_SCALAR): loss
    and backprop as torch's on the expanded labels, the broadcast labels never expanded in GM."""
    rng = np.random.default_rng(rows + r)
    x = rng.uniform(-10, 10, (rows, r)).astype(np.float32)
    y = rng.uniform(0, 1, BROADCAST_FORMS[form](rows, r)).astype(np.float32)
    loss, backprop, moved = _run(x, y, tmp_path, monkeypatch)
    expanded = np.ascontiguousarray(np.broadcast_to(y, (rows, r)))
    want_loss, want_backprop = _torch(x, expanded)
    assert loss.shape == (rows,) and backprop.shape == (rows, r)
    tolerance = _spec().golden.tolerance[DType.FLOAT]
    np.testing.assert_allclose(loss, want_loss, rtol=tolerance.rtol, atol=tolerance.atol)
    np.testing.assert_allclose(backprop, want_backprop, rtol=tolerance.rtol, atol=tolerance.atol)
    # bit for bit what the same labels expanded give: the broadcast only changes where labels come from
    same_loss, same_backprop, _ = _run(x, expanded, tmp_path, monkeypatch)
    np.testing.assert_array_equal(loss.view(np.uint32), same_loss.view(np.uint32))
    np.testing.assert_array_equal(backprop.view(np.uint32), same_backprop.view(np.uint32))
    ((read, written),) = moved
    assert written == loss.nbytes + backprop.nbytes
    planned = _plan(rows, r)
    if size == "rows_fit_tiles_per_core":  # the row or value kept in UB serves a core's later tiles
        assert rows > 2 * planned.block_dim * planned.rows_per_tile
    features_reads = x.nbytes if planned.rows_per_tile > 0 else (LEVELS + 1) * x.nbytes
    assert read == features_reads + _broadcast_labels_reads(form, rows, r, 4)


@pytest.mark.parametrize("dtype", [DType.FLOAT16, DType.BFLOAT16])
@pytest.mark.parametrize("form", list(BROADCAST_FORMS))
def test_labels_broadcast_in_half_dtypes_as_the_expanded_labels(form, dtype, tmp_path, monkeypatch):
    """Half dtypes: the broadcast labels Cast once, then spread: bit for bit the expanded labels' results; with -0,
    ±inf and NaN among the labels (-0 stays -0 when a row is copied)."""
    rng = np.random.default_rng(16)
    rows, r = 37, 50
    x = rng.uniform(-10, 10, (rows, r)).astype(dtype.numpy)
    y = rng.uniform(0, 1, BROADCAST_FORMS[form](rows, r)).astype(dtype.numpy)
    flat = y.reshape(-1)
    flat[: min(4, flat.size)] = np.array([-0.0, np.inf, -np.inf, np.nan], dtype.numpy)[: min(4, flat.size)]
    loss, backprop, _ = _run(x, y, tmp_path, monkeypatch)
    same_loss, same_backprop, _ = _run(x, np.ascontiguousarray(np.broadcast_to(y, (rows, r))), tmp_path, monkeypatch)
    np.testing.assert_array_equal(loss.view(np.uint16), same_loss.view(np.uint16))
    np.testing.assert_array_equal(backprop.view(np.uint16), same_backprop.view(np.uint16))


def test_bit_identical_for_1_8_and_48_cores_and_with_the_model(tmp_path, twin_lib):
    """The generated kernel and tiling through the kernel harness (the tiling planning for the core count given):
    rows that fit and rows in chunks give the same bits of loss and backprop on 1, 8 or 48 cores, those of the plan's
    numpy model."""
    harness = KernelHarness(_spec(), twin_lib, tmp_path)
    rng = np.random.default_rng(48)
    runs, wants = [], []
    for dtype, variant in softmax_family.float_and_float16_variants(_spec()):
        for rows, r in ((200, 777), (5000, 3), (5, 20_000)):
            x = rng.uniform(-10, 10, rows * r).astype(dtype.numpy)
            y = _soft_labels(rng, rows, r).astype(dtype.numpy).reshape(-1)
            runs.append((variant.storage, variant.mode_index, {"features": x, "labels": y}, {}, r))
            model = run_reduce_outputs(
                variant.program,
                variant.stages,
                {"features": x.reshape(rows, r), "labels": y.reshape(rows, r)},
                {},
                variant.storage,
            )
            wants.append([model["loss"].reshape(-1), model["backprop"].reshape(-1)])
    on_48 = softmax_family.run_on_cores(harness, runs, wants)
    assert all(run.plan["blockDim"] > 1 for run in on_48)


_SOC_RUN = """
import sys
import numpy as np
import opgen_ops

x = np.load(sys.argv[1])
out = {}
for name in sys.argv[3:]:
    loss, backprop = opgen_ops.softmax_cross_entropy_with_logits(x, np.load(name))
    out[name + ".loss"], out[name + ".backprop"] = loss, backprop
np.savez(sys.argv[2], **out)
"""


def test_labels_broadcast_bit_identical_on_socs_of_48_and_56_cores(tmp_path):
    """The broadcast forms on A2, A3 (48 vector cores) and ascend950 (56, another UB size: other tiles and row splits):
    the same bits everywhere, those of the expanded labels (the SoC is picked when the twin starts, so a process
    each). ascend910 and ascend310p are left out: the reduce_dim kernel's DataCopyPad is not on them (the twin
    refuses every reduce_dim kernel there, labels broadcast or not)."""
    import os
    import subprocess
    import sys

    rng = np.random.default_rng(56)
    rows, r = 300, 211
    x = rng.uniform(-10, 10, (rows, r)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    names = []
    for form, shape in BROADCAST_FORMS.items():
        y = rng.uniform(0, 1, shape(rows, r)).astype(np.float32)
        for kind, labels in (("brc", y), ("full", np.ascontiguousarray(np.broadcast_to(y, (rows, r))))):
            names.append(str(tmp_path / f"{form[:3]}_{kind}.npy"))
            np.save(names[-1], labels)
    script = tmp_path / "run.py"
    script.write_text(_SOC_RUN)
    results = {}
    for soc in ("ascend910b", "ascend910_93", "ascend950"):
        out = tmp_path / f"{soc}.npz"
        env = {**os.environ, "OPGEN_SOC": soc}
        proc = subprocess.run(
            [sys.executable, str(script), str(tmp_path / "x.npy"), str(out), *names],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        results[soc] = dict(np.load(out))
    first = results["ascend910b"]
    for soc, got in results.items():
        for key, value in got.items():
            np.testing.assert_array_equal(value.view(np.uint32), first[key].view(np.uint32), err_msg=f"{soc} {key}")
    for name in names[::2]:  # each broadcast form against its expanded labels
        for output in ("loss", "backprop"):
            brc, full = first[f"{name}.{output}"], first[f"{name.replace('_brc', '_full')}.{output}"]
            np.testing.assert_array_equal(brc.view(np.uint32), full.view(np.uint32))
