"""l0op::ReduceSumOp on the twin (declared as ops-math's level0/reduce_sum_op.h): sums over the given axes of any
view (negative axes, keep_dims, 0-d, no axes), checked against numpy's sum; out-of-range or repeated axes refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opgen.twin.compiler import compile_program

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"
ACL = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(ml_dtypes.bfloat16): 27}

pytestmark = [pytest.mark.cxx]


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = tmp_path_factory.mktemp("reduce_sum_probe") / "reduce_sum_probe"
    compile_program([PROGRAMS / "reduce_sum_probe.cpp"], binary, ops_dirs=[])
    return binary


def _run(probe: Path, tmp: Path, x: np.ndarray, axes: list[int], keep: bool, transpose: bool = False):
    """(shape of the sum, the sum as float32) for x, viewed transposed when asked (strides, not a copy)."""
    storage = np.ascontiguousarray(x)
    shape, strides = list(x.shape), [s // x.itemsize for s in storage.strides]
    if transpose:
        shape, strides = shape[::-1], strides[::-1]
    (tmp / "in.bin").write_bytes(storage.tobytes())
    listed = lambda v: ",".join(map(str, v)) or "-"  # noqa: E731
    args = [ACL[x.dtype], tmp / "in.bin", tmp / "out.bin", listed(shape), listed(strides), x.size, listed(axes)]
    result = subprocess.run([str(probe), *map(str, args), str(int(keep))], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) if " " in line else (line, "") for line in result.stdout.splitlines())
    if lines["phase1"] == "0":
        return None
    assert lines["run"] == "0"
    dims = tuple(int(d) for d in lines["shape"].split())
    return dims, np.fromfile(tmp / "out.bin", np.float32).reshape(dims)


@pytest.mark.parametrize("dtype", list(ACL), ids=lambda d: d.name)
@pytest.mark.parametrize(
    ("shape", "axes", "keep"),
    [
        ((2, 3, 4, 5), [0, 2, 3], False),
        ((2, 3, 4, 5), [0, 2, 3], True),
        ((2, 3, 4, 5), [-1, 0], False),
        ((7, 3), [0], False),
        ((33,), [0], False),
        ((2, 3, 4), [0, 1, 2], False),
        ((), [0], False),
    ],
)
def test_sums_match_numpy(probe: Path, tmp_path: Path, dtype: np.dtype, shape, axes, keep) -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, shape).astype(np.float32).astype(dtype)
    got = _run(probe, tmp_path, x, axes, keep)
    assert got is not None
    dims, values = got
    axis = tuple(a % max(len(shape), 1) for a in axes) if shape else None
    want = np.sum(x.astype(np.float64), axis=axis, keepdims=keep)
    assert dims == np.shape(want)
    # summed in double and rounded once to the dtype
    np.testing.assert_array_equal(values, np.asarray(want).astype(dtype).astype(np.float32))


def test_a_strided_view_is_summed_by_its_view(probe: Path, tmp_path: Path) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    dims, values = _run(probe, tmp_path, x, [1], False, transpose=True)  # the view is x.T, shape (4, 3)
    assert dims == (4,)
    np.testing.assert_array_equal(values, x.T.sum(axis=1))


def test_no_axes_keeps_the_tensor(probe: Path, tmp_path: Path) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    dims, values = _run(probe, tmp_path, x, [], False)
    assert dims == (2, 3)
    np.testing.assert_array_equal(values, x)


@pytest.mark.parametrize("axes", [[2], [-3], [0, 0], [1, -1]])
def test_out_of_range_or_repeated_axes_are_refused(probe: Path, tmp_path: Path, axes) -> None:
    assert _run(probe, tmp_path, np.ones((2, 3), np.float32), axes, False) is None
