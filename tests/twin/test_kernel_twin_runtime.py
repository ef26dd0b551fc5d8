"""Runtime behaviour of the twin: each core gets a fresh UB filled with NaN bytes, SetAtomicAdd
accumulation across cores, tiling macros and keys through the kernel registry, TPipe::Reset, TQueBind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="module")
def features(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("features") / "runtime_features"
    compile_program([KERNELS / "runtime_features.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


def run(program: Path, case: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("OPGEN_SOC", "OPGEN_TWIN_ON_ERROR", "OPGEN_TWIN_TRACE")}
    result = subprocess.run([str(program), case], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_cores_run_in_order_each_with_fresh_poisoned_ub(features):
    # GmAlloc memory and fresh UB hold 0xFF bytes (NaN as float); core 1 does not see core 0's UB data.
    assert run(features, "fresh_ub").splitlines() == ["gm_alloc_bytes=ffffffff", "core0=5 core1_nan=1"]


def test_atomic_add_accumulates_without_overlap_error(features):
    assert run(features, "atomic").strip() == "sum=10 10 status=ok"  # 1 + 2 + 3 + 4


def test_tiling_macros_and_keys(features):
    assert run(features, "tiling").splitlines() == ["key5 11 7 0.25 4", "key6 -1 tiling_key=6"]


def test_pipe_reset_releases_buffers_and_invalidates_tensors(features):
    # After Reset the 2048-byte buffer starts again at 0, so the high-water mark is 2048, not 3072.
    assert run(features, "reset").strip() == "after_reset=2 check=TENSOR_INVALID high_water=2048"


def test_tque_bind_moves_vecin_to_vecout(features):
    assert run(features, "bind").strip() == "copied -100 0 3869"
