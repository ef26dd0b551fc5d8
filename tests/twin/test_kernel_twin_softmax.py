"""The softmax design for A2/A3 proved on the twin with a hand-written Ascend C kernel
(tests/twin/kernels/softmax_kernels.cpp), before opgen generates it: the shape merged to (a1, r, a0) and reduced
over r; whole rows per tile when a row fits in UB, a three-pass row (max, sum of exp(x - max), output) when it
does not; a non-last reduced dim tiled over a0 columns and reduced row against row, in one load or three passes;
sums in a fixed order, so results are bit-identical whatever the core count, the tile size or the path. Checked
against numpy in float64 (and torch for the special values), with the GM traffic and UB use from the twin's trace.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from support.programs import run_program

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
DTYPES = {"half": np.float16, "float": np.float32}
A2_USABLE_UB = 188_160  # A2/A3 UB bytes TPipe may hand out (ascend910b's row of the SoC table)
# Passes over x per path: x is read once when the reduced rows fit in UB, three times otherwise.
READS = {"rows_fit": 1, "columns_fit": 1, "row_chunks": 3, "column_chunks": 3}


@pytest.fixture(scope="module")
def softmax(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("softmax_kernels") / "softmax_kernels"
    flags = ["-Wall", "-Wextra", "-Werror"]
    compile_program([KERNELS / "softmax_kernels.cpp"], program, ops_dirs=[], flags=flags)
    return program


def _fields(stdout: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", stdout))


def _tiling(program: Path, dtype: str, a1: int, r: int, a0: int, **keys: int) -> dict[str, str]:
    args = [f"{k}={v}" for k, v in keys.items()]
    return _fields(run_program(program, "tiling", dtype, str(a1), str(r), str(a0), *args, check=True).stdout)


def _run(program: Path, tmp_path: Path, x: np.ndarray, cores: int, log: bool = False, **keys: int):
    """Runs the kernel on x of shape (a1, r, a0): y and the fields it printed (tiling, GM bytes, UB)."""
    dtype = "half" if x.dtype == np.float16 else "float"
    a1, r, a0 = x.shape
    x.tofile(tmp_path / "x.bin")
    args = [f"log={int(log)}", *(f"{k}={v}" for k, v in keys.items())]
    result = run_program(
        program, "run", dtype, str(a1), str(r), str(a0), str(cores), str(tmp_path), *args, check=True, timeout=300
    )
    return np.fromfile(tmp_path / "y.bin", dtype=x.dtype).reshape(x.shape), _fields(result.stdout)


def reference(x: np.ndarray, log: bool) -> np.ndarray:
    """Softmax / log-softmax over axis 1 in float64, as the kernel computes it: exp(x - max) / sum, so a row
    with NaN, +inf or only -inf gives NaN throughout (as torch does)."""
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = xd.max(axis=1, keepdims=True)
        shifted = xd - m
        s = np.exp(shifted).sum(axis=1, keepdims=True)
        return shifted - np.log(s) if log else np.exp(shifted) / s


def _check(y: np.ndarray, x: np.ndarray, log: bool) -> None:
    # float: the kernel's float arithmetic (x - max rounded, exp, the sum, 1 / sum); half: the output rounding.
    if x.dtype == np.float16:
        rtol, atol = 2.0**-10, (2.0**-9 if log else 2.0**-24)
    else:
        rtol, atol = 2.0**-18, (2.0**-20 if log else 2.0**-40)
    with np.errstate(over="ignore"):  # a log-softmax beyond half's range is -inf in half
        expected = reference(x, log).astype(x.dtype).astype(np.float64)
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=rtol, atol=atol)


def _check_traffic(info: dict[str, str], x: np.ndarray) -> None:
    """GM bytes from the trace: x read once (or three times for a chunked path), y written once; the UB the
    kernel took is what the tiling planned and fits the A2/A3 usable UB."""
    assert int(info["gm_to_ub"]) == READS[info["path"]] * x.nbytes
    assert int(info["ub_to_gm"]) == x.nbytes
    assert int(info["ub_high_water"]) == int(info["ub_planned"]) <= A2_USABLE_UB


def _data(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(DTYPES[dtype])


# dtype, (a1, r, a0), cores, tiling keys, path
CASES = [
    ("float", (1001, 1, 1), 3, {}, "rows_fit"),  # rows of one element, odd row counts per core
    ("half", (517, 1, 1), 2, {}, "rows_fit"),
    ("float", (37, 13, 1), 8, {}, "rows_fit"),  # 52-byte rows, 64 bytes apart in UB
    ("half", (50, 200, 1), 3, {"tile": 1024}, "rows_fit"),  # several tiles per core, a tail group of 8
    ("float", (7, 1000, 1), 2, {"tile": 256}, "row_chunks"),  # chunks of 256 and a tail of 232
    ("half", (3, 1000, 1), 1, {"tile": 512}, "row_chunks"),
    ("float", (2, 100_000, 1), 2, {}, "row_chunks"),  # a row of 100,000 elements: chunks from the UB size
    ("float", (3, 7, 5), 4, {}, "columns_fit"),  # the reduced dim not the last one
    ("half", (2, 300, 40), 3, {"a0_tile": 16}, "columns_fit"),  # column tiles of 16, 16 and 8
    ("float", (2, 300, 40), 3, {"a0_tile": 16, "r_chunk": 64}, "column_chunks"),
    ("half", (2, 5000, 3), 2, {}, "column_chunks"),  # r beyond one DataCopyPad's 4095 rows, and beyond the UB
]


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize(
    "dtype, shape, cores, keys, path", CASES, ids=[f"{c[0]}-{'x'.join(map(str, c[1]))}-{c[4]}" for c in CASES]
)
def test_softmax_matches_numpy_and_moves_x_at_most_three_times(softmax, tmp_path, dtype, shape, cores, keys, path, log):
    x = _data(shape, dtype, seed=sum(shape))
    y, info = _run(softmax, tmp_path, x, cores, log, **keys)
    assert info["path"] == path
    _check(y, x, log)
    _check_traffic(info, x)


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_rows_just_under_and_over_what_fits(softmax, tmp_path, dtype):
    tile = int(_tiling(softmax, dtype, 3, 1, 1)["tile"])  # elements of a tile buffer in the UB
    for r, path in [(tile, "rows_fit"), (tile + 1, "row_chunks")]:
        x = _data((3, r, 1), dtype, seed=r)
        y, info = _run(softmax, tmp_path, x, 2)
        assert (info["path"], int(info["tile"])) == (path, tile)
        _check(y, x, False)
        _check_traffic(info, x)


def _special_rows(width: int, dtype: str) -> np.ndarray:
    """Rows with ±inf and NaN, one of only -inf, one of only +inf and one with a large spread; elsewhere data."""
    x = _data((8, width), dtype, seed=width)
    big = 60000.0 if dtype == "half" else 1e30
    x[0, width - 2] = np.inf
    x[1, width - 1] = -np.inf
    x[2, width // 2] = np.nan
    x[3, :] = -np.inf
    x[4, :] = np.inf
    x[5, 0], x[5, width - 1] = np.inf, -np.inf
    x[6, 1], x[6, width - 3] = big, -big
    return x


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize(
    "dtype, width, keys",
    [("float", 150, {}), ("float", 150, {"tile": 64}), ("half", 40, {}), ("half", 40, {"tile": 64})],
    ids=["float-rows_fit", "float-row_chunks", "half-rows_fit", "half-row_chunks"],
)
def test_inf_and_nan_as_torch(softmax, tmp_path, dtype, width, keys, log):
    torch = pytest.importorskip("torch")
    x = _special_rows(width, dtype)
    y, _ = _run(softmax, tmp_path, x.reshape(8, width, 1), 3, log, **keys)
    y = y.reshape(8, width)
    function = torch.nn.functional.log_softmax if log else torch.nn.functional.softmax
    expected = function(torch.from_numpy(x.astype(np.float32)), dim=1).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    assert np.isnan(y[3]).all() and np.isnan(y[4]).all()  # only -inf, only +inf: NaN, as torch gives
    assert not np.isnan(y[1]).any() and y[1, width - 1] == (-np.inf if log else 0.0)
    _check(y.reshape(8, width, 1), x.reshape(8, width, 1), log)


def test_inf_and_nan_in_a_non_last_dim(softmax, tmp_path):
    x = np.ascontiguousarray(_special_rows(150, "float").T.reshape(1, 150, 8))  # the rows become columns
    for keys in [{}, {"r_chunk": 64}]:
        y, _ = _run(softmax, tmp_path, x, 2, **keys)
        _check(y, x, False)
        assert np.isnan(y[0, :, 3]).all() and np.isnan(y[0, :, 4]).all()


def _bits(y: np.ndarray) -> np.ndarray:
    return y.view(np.uint16 if y.dtype == np.float16 else np.uint32)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float", "half"])
def test_last_dim_bit_identical_across_cores_tiles_and_paths(softmax, tmp_path, dtype, log):
    # Whole rows (one row per tile or many), and the same rows in chunks of 15 and 8 groups of 64 elements:
    # every group is summed by the same tree and the group sums are folded in the same binary-counter order.
    # (Chunks of a power of two of groups would agree even with per-chunk totals; 15 would not.)
    x = _data((50, 3000, 1), dtype, seed=3)
    runs = [(1, {}), (8, {}), (48, {}), (8, {"tile": 3072}), (8, {"tile": 960}), (48, {"tile": 512})]
    results = []
    for cores, keys in runs:
        y, info = _run(softmax, tmp_path, x, cores, log, **keys)
        results.append((info["path"], _bits(y)))
    assert [path for path, _ in results] == ["rows_fit"] * 4 + ["row_chunks"] * 2
    for _, bits in results[1:]:
        np.testing.assert_array_equal(bits, results[0][1])
    _check(x=x, y=y, log=log)


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_non_last_dim_bit_identical_across_cores_tiles_and_paths(softmax, tmp_path, dtype):
    x = _data((3, 500, 40), dtype, seed=5)
    runs = [
        (1, {}),
        (8, {}),
        (48, {}),
        (8, {"a0_tile": 16}),
        (48, {"a0_tile": 16, "r_chunk": 100}),
        (8, {"r_chunk": 37}),
    ]
    results = []
    for cores, keys in runs:
        y, info = _run(softmax, tmp_path, x, cores, **keys)
        results.append((info["path"], _bits(y)))
    assert [path for path, _ in results] == ["columns_fit"] * 4 + ["column_chunks"] * 2
    for _, bits in results[1:]:
        np.testing.assert_array_equal(bits, results[0][1])
    _check(y, x, False)


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("r, keys", [(7, {}), (1000, {}), (1000, {"tile": 256}), (100_000, {})])
def test_rows_sum_to_one_within_the_stated_bound(softmax, tmp_path, dtype, r, keys):
    """|sum(y) - 1| <= (ceil(log2 r) + 4) * 2^-24 in float: the pairwise sum of exp(x - max) has depth
    ceil(log2 r) + 1 (a 64-lane tree per group, then the binary counter), 1 / sum and each product add one
    rounding each. Half adds its output rounding: 2^-11 relative per element, at most 2^-25 absolute for a
    subnormal, so 2^-11 + r * 2^-25 more."""
    x = _data((4, r, 1), dtype, seed=r)
    y, _ = _run(softmax, tmp_path, x, 2, **keys)
    error = np.abs(y.astype(np.float64).sum(axis=1) - 1.0).max()
    bound = (math.ceil(math.log2(r)) + 4) * 2.0**-24
    if dtype == "half":
        bound += 2.0**-11 + r * 2.0**-25
    assert error <= bound, (error, bound)


# Row-length classes: (a1, r, a0) and the tiling keys that force a class where the UB would not.
CLASSES = [
    ("row of 1", (4096, 1, 1), {}),
    ("row of 64", (512, 64, 1), {}),
    ("row of 1000", (64, 1000, 1), {}),
    ("row of 15,000", (4, 15_000, 1), {}),
    ("row of 100,000", (2, 100_000, 1), {}),
    ("column r=300 a0=40", (2, 300, 40), {}),
    ("column r=5000 a0=3", (2, 5000, 3), {}),
]


def test_gm_bytes_per_element_and_ub_per_row_length_class(softmax, tmp_path, capsys):
    lines = []
    for dtype in ["float", "half"]:
        for name, shape, keys in CLASSES:
            x = _data(shape, dtype, seed=1)
            _, info = _run(softmax, tmp_path, x, 8, **keys)
            _check_traffic(info, x)
            read = int(info["gm_to_ub"]) / x.nbytes
            written = int(info["ub_to_gm"]) / x.nbytes
            assert written == 1 and read == (1 if info["path"].endswith("fit") else 3)
            lines.append(
                f"{dtype:5} {name:20} {info['path']:13} read/elem={read:.2f} written/elem={written:.2f} "
                f"ub={int(info['ub_high_water']):,} B (tile {info['tile']})"
            )
    with capsys.disabled():
        print("\nsoftmax GM traffic and UB per row-length class (8 cores, A2/A3 usable UB 188,160 B):")
        print("\n".join(lines))
