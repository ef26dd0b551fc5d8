"""Whole kernels on the twin: a multi-core, double-buffered TPipe/TQue kernel with a DataCopyPad tail, and
the LeakyRelu API example from the Ascend C documentation (seed 004)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def classic(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("classic") / "classic_kernels"
    compile_program([KERNELS / "classic_kernels.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


@pytest.mark.parametrize(
    "dtype, n, block_dim, tile",
    [
        ("half", 10007, 5, 512),  # 79 blocks of 128 halves over 5 cores; 10007 is not a whole 32-byte block
        ("float", 4099, 3, 256),
        ("float", 300, 8, 64),  # more cores than 256-byte blocks: three cores get no work
    ],
)
def test_multicore_double_buffered_add_with_tail(classic, tmp_path, dtype, n, block_dim, tile):
    np_dtype = np.float16 if dtype == "half" else np.float32
    x = RNG.normal(0, 10, n).astype(np_dtype)
    y = RNG.normal(0, 10, n).astype(np_dtype)
    x.tofile(tmp_path / "x.bin")
    y.tofile(tmp_path / "y.bin")
    subprocess.run(
        [str(classic), "add", dtype, str(n), str(block_dim), str(tile), str(tmp_path)], check=True, timeout=60
    )
    z = np.fromfile(tmp_path / "z.bin", dtype=np_dtype)
    expected = (x.astype(np.float64) + y.astype(np.float64)).astype(np_dtype)  # one rounding: exact for half/float
    np.testing.assert_array_equal(z, expected)


def test_leaky_relu_api_example(classic, tmp_path):
    # The documented example: scalar 2 on [-1 -2 3 ... 512] gives [-2 -4 3 ... 512].
    x = np.arange(1, 513, dtype=np.float16)
    x[:2] = -x[:2]
    x.tofile(tmp_path / "x.bin")
    subprocess.run([str(classic), "leaky", str(tmp_path)], check=True, timeout=60)
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float16)
    np.testing.assert_array_equal(y[:3], np.array([-2, -4, 3], np.float16))
    assert y[-1] == 512
    model = np.where(x < 0, (x.astype(np.float64) * 2).astype(np.float16), x)
    np.testing.assert_array_equal(y, model)
