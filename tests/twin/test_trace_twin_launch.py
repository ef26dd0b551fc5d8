"""The per-launch trace: bytes moved and vector work per core, written as JSON lines and read back with
opgen.twin.trace, plus the C++ accessors (LastLaunch, AllLaunches, ClearTraces)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from support.programs import clean_env

from opgen.twin.compiler import compile_program
from opgen.twin.trace import ApiCount, LaunchTrace, read_trace

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("trace_programs")
    built = {}
    for name in ("classic_kernels", "faulty_kernels"):
        built[name] = directory / name
        compile_program([KERNELS / f"{name}.cpp"], built[name], ops_dirs=[])
    return built


def core_ranges(n: int, block_dim: int, element_bytes: int) -> list[tuple[int, int]]:
    """The classic split: 256-byte blocks, blocks // cores each, the first blocks % cores one more."""
    per_block = 256 // element_bytes
    blocks = -(-n // per_block)
    base, rest = divmod(blocks, block_dim)
    ranges = []
    for core in range(block_dim):
        first = core * base + min(core, rest)
        count = base + (1 if core < rest else 0)
        ranges.append((min(first * per_block, n), min((first + count) * per_block, n)))
    return ranges


def test_add_kernel_trace(programs, tmp_path):
    n, block_dim, tile = 10007, 5, 512
    np.ones(n, np.float16).tofile(tmp_path / "x.bin")
    np.ones(n, np.float16).tofile(tmp_path / "y.bin")
    trace_file = tmp_path / "trace.jsonl"
    subprocess.run(
        [str(programs["classic_kernels"]), "add", "half", str(n), str(block_dim), str(tile), str(tmp_path)],
        check=True,
        env=clean_env(OPGEN_TWIN_TRACE=str(trace_file)),
        timeout=60,
    )
    (launch,) = read_trace(trace_file)
    assert isinstance(launch, LaunchTrace)
    assert (launch.kernel, launch.block_dim, launch.tiling_key, launch.soc, launch.ok) == (
        "add_custom",
        block_dim,
        1,
        "ascend910b",
        True,
    )
    assert [core.core for core in launch.cores] == list(range(block_dim))
    # Three double-buffered queues of one tile each: 3 * 2 * 512 halves.
    high_water = 3 * 2 * tile * 2
    for index, (start, end) in enumerate(core_ranges(n, block_dim, 2)):
        core = launch.core(index)
        length = end - start
        assert core.gm_to_ub_bytes == 2 * length * 2  # x and y, exact bytes (DataCopyPad moves no padding)
        assert core.ub_to_gm_bytes == length * 2
        assert core.ub_to_ub_bytes == 0
        assert core.vector == {"Add": ApiCount(calls=-(-length // tile), elements=length)}
        assert core.ub_high_water == high_water
        # x, y in and z out per tile, each one copy; a tile's UB blocks end at the next 32-byte boundary
        tiles = [min(tile, length - first) for first in range(0, length, tile)]
        assert core.copies == 3 * len(tiles)
        assert core.ub_copy_bytes == 3 * sum(-(-count * 2 // 32) * 32 for count in tiles)
    totals = launch.totals()
    assert totals.gm_to_ub_bytes == 2 * n * 2 and totals.ub_to_gm_bytes == n * 2 and totals.gm_bytes == 3 * n * 2
    assert totals.elements("Add") == n and totals.ub_high_water == high_water


def test_trace_appends_one_line_per_launch_with_soc(programs, tmp_path):
    np.ones(512, np.float16).tofile(tmp_path / "x.bin")
    trace_file = tmp_path / "trace.jsonl"
    for soc in ("ascend910b", "ascend950"):
        subprocess.run(
            [str(programs["classic_kernels"]), "leaky", str(tmp_path)],
            check=True,
            env=clean_env(OPGEN_TWIN_TRACE=str(trace_file), OPGEN_SOC=soc),
            timeout=60,
        )
    lines = trace_file.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["kernel"] == "leaky_relu_example" for line in lines)
    launches = read_trace(trace_file)
    assert [launch.soc for launch in launches] == ["ascend910b", "ascend950"]
    for launch in launches:
        core = launch.core(0)
        assert (core.gm_to_ub_bytes, core.ub_to_gm_bytes, core.ub_high_water) == (1024, 1024, 2048)
        assert core.vector == {"LeakyRelu": ApiCount(1, 512)}


def test_failed_launch_is_traced_with_its_check(programs, tmp_path):
    trace_file = tmp_path / "trace.jsonl"
    result = subprocess.run(
        [str(programs["faulty_kernels"]), "overlap"],
        capture_output=True,
        text=True,
        env=clean_env(OPGEN_TWIN_TRACE=str(trace_file)),
        timeout=60,
    )
    assert result.returncode == 3
    (launch,) = read_trace(trace_file)
    assert (launch.kernel, launch.block_dim, launch.status, launch.ok) == (
        "overlap_kernel",
        4,
        "GM_WRITE_OVERLAP",
        False,
    )
    assert [core.core for core in launch.cores] == [0, 1, 2]  # core 2 failed at its end; core 3 never ran
    assert all(core.ub_to_gm_bytes == 64 * 4 and core.calls("Duplicate") == 1 for core in launch.cores)


def test_cpp_trace_accessors(programs):
    result = subprocess.run(
        [str(programs["classic_kernels"]), "trace_api"],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=True,
        timeout=60,
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "before=0 last_kernel=''"
    assert lines[1] == "launches=2 kernel=leaky_relu_example block_dim=1 tiling_key=7 soc=ascend910b status=ok"
    assert lines[2] == "gm_to_ub=1024 ub_to_gm=1024 ub_high_water=2048 leaky_calls=1 leaky_elements=512"
    assert lines[3] == "after_clear=0"


def test_read_trace_rejects_other_files(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"kernel": "k"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        read_trace(path)
