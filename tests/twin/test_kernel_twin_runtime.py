"""Runtime behaviour of the twin: each core gets a fresh UB filled with NaN bytes, SetAtomicAdd
accumulation across cores, tiling macros and keys through the kernel registry, TPipe::Reset, TQueBind."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.programs import run_program

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="module")
def features(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("features") / "runtime_features"
    compile_program([KERNELS / "runtime_features.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


def test_cores_run_in_order_each_with_fresh_poisoned_ub(features):
    # GmAlloc memory and fresh UB hold 0xFF bytes (NaN as float); core 1 does not see core 0's UB data.
    assert run_program(features, "fresh_ub", check=True).stdout.splitlines() == [
        "gm_alloc_bytes=ffffffff",
        "core0=5 core1_nan=1",
    ]


def test_atomic_add_accumulates_without_overlap_error(features):
    assert run_program(features, "atomic", check=True).stdout.strip() == "sum=10 10 status=ok"  # 1 + 2 + 3 + 4


def test_tiling_macros_and_keys(features):
    assert run_program(features, "tiling", check=True).stdout.splitlines() == [
        "key5 11 7 0.25 4",
        "key6 -1 tiling_key=6",
    ]


def test_pipe_reset_releases_buffers_and_invalidates_tensors(features):
    # After Reset the 2048-byte buffer starts again at 0, so the high-water mark is 2048, not 3072.
    assert (
        run_program(features, "reset", check=True).stdout.strip()
        == "after_reset=2 check=TENSOR_INVALID high_water=2048"
    )


def test_tque_bind_moves_vecin_to_vecout(features):
    assert run_program(features, "bind", check=True).stdout.strip() == "copied -100 0 3869"
