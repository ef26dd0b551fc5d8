"""The APIs a gated (GLU-family) kernel needs on A2/A3, as ops-nn tiles them (tests/twin/kernels/gated_kernels.cpp):
the input viewed as (rows, 2, ny); strided DataCopyPad moving several rows of one half per instruction; halves
cut in chunks when a row exceeds the tile; GatherMask separating the halves when ny = 1. Also GatherMask's user
patterns against a numpy model of its documented addressing, the documented DataCopy/DataCopyPad/GatherMask
limits (tests/twin/kernels/copy_limit_kernels.cpp), and the declarations themselves
(tests/twin/kernels/api_signatures.cpp).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.programs import run_program, twin_failure

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
DTYPES = {"half": np.float16, "float": np.float32}


def _compile(tmp_path_factory, source: str) -> Path:
    program = tmp_path_factory.mktemp(source) / source
    compile_program([KERNELS / f"{source}.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


@pytest.fixture(scope="module")
def gated(tmp_path_factory) -> Path:
    return _compile(tmp_path_factory, "gated_kernels")


@pytest.fixture(scope="module")
def limits(tmp_path_factory) -> Path:
    return _compile(tmp_path_factory, "copy_limit_kernels")


# dtype, rows, ny, chunk (elements of one half per tile), cores
GLU_CASES = [
    ("float", 7, 13, 1024, 3),  # 13 floats: rows 64 bytes apart in UB, 52 bytes in GM
    ("half", 9, 40, 512, 2),  # 80-byte rows, several per tile, more than one tile per core
    ("float", 5, 3000, 1024, 2),  # a row exceeds the tile: each half in chunks of 1024 and a tail
    ("half", 3, 1000, 256, 1),
    ("float", 1001, 1, 256, 3),  # ny = 1: GatherMask, odd row counts per core
    ("half", 517, 1, 128, 2),
]


def _cores_rows(rows: int, cores: int) -> list[int]:
    return [rows * (c + 1) // cores - rows * c // cores for c in range(cores)]


@pytest.mark.parametrize("dtype, rows, ny, chunk, cores", GLU_CASES, ids=[f"{c[0]}-{c[1]}x2x{c[2]}" for c in GLU_CASES])
def test_glu_halves_match_numpy_and_move_each_byte_once(gated, tmp_path, dtype, rows, ny, chunk, cores):
    np_dtype = DTYPES[dtype]
    x = np.random.default_rng(rows * 7 + ny).standard_normal((rows, 2, ny)).astype(np_dtype)
    x.reshape(-1)[:6] = [np.inf, -np.inf, np.nan, -0.0, 30.0, -30.0]  # land in both halves or neighbouring rows
    x.tofile(tmp_path / "x.bin")
    result = run_program(gated, "glu", dtype, str(rows), str(ny), str(chunk), str(cores), str(tmp_path), check=True)
    y = np.fromfile(tmp_path / "y.bin", dtype=np_dtype).reshape(rows, ny)
    a, b = x[:, 0, :].astype(np.float64), x[:, 1, :].astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = a / (1.0 + np.exp(-b))
    tolerance = 2.0**-10 if dtype == "half" else 2.0**-22
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=tolerance, atol=tolerance)
    # GM bytes / ideal = 1.00: every input element read once, every output element written once.
    itemsize = np.dtype(np_dtype).itemsize
    moved = dict(re.findall(r"(gm_to_ub|ub_to_gm)=(\d+)", result.stdout))
    assert (int(moved["gm_to_ub"]), int(moved["ub_to_gm"])) == (rows * 2 * ny * itemsize, rows * ny * itemsize)
    if ny == 1:  # each GatherMask keeps half of its whole 256-byte repeats
        per_repeat = 256 // itemsize
        for core, core_rows in enumerate(_cores_rows(rows, cores)):
            last_tile = core_rows % chunk or chunk
            kept = -(-2 * last_tile // per_repeat) * per_repeat // 2
            assert f"core={core} rsvd_a={kept} rsvd_b={kept}" in result.stdout


def gather_mask_model(src, pattern: bytes, mask: int, repeats: int, blk: int, rep: int, rep1: int) -> np.ndarray:
    """GatherMask as its reference describes it: repeat r covers `mask` elements (counter mode) or 256 bytes
    (mask 0: normal mode); element j of repeat r is src0[(r * rep + j // perBlock * blk) blocks + j % perBlock],
    kept if bit j (least significant first) of repeat r's pattern, rep1 32-byte blocks after repeat r-1's, is set."""
    per_block = 32 // src.itemsize
    per_repeat = mask if mask else 256 // src.itemsize
    kept = []
    for r in range(repeats):
        for j in range(per_repeat):
            if (pattern[r * rep1 * 32 + j // 8] >> (j % 8)) & 1:
                kept.append(src[(r * rep + j // per_block * blk) * per_block + j % per_block])
    return np.array(kept, dtype=src.dtype)


# dtype, mask (0: normal mode), repeatTimes, src0BlockStride, src0RepeatStride, src1RepeatStride
GATHER_CASES = [
    ("float", 70, 2, 1, 4, 0),  # the reference's counter-mode example: repeat 2 starts at element 32
    ("float", 0, 3, 1, 8, 1),  # normal mode, a fresh pattern block per repeat
    ("half", 0, 2, 2, 16, 1),  # every other 32-byte block
    ("half", 100, 2, 1, 7, 1),
]


@pytest.mark.parametrize("dtype, mask, repeats, blk, rep, rep1", GATHER_CASES)
def test_gather_mask_user_pattern_matches_model(gated, tmp_path, dtype, mask, repeats, blk, rep, rep1):
    rng = np.random.default_rng(mask + repeats)
    np_dtype = DTYPES[dtype]
    src = (np.arange(512) + 1).astype(np_dtype)
    pattern = rng.integers(0, 256, 128, dtype=np.uint8)
    src.tofile(tmp_path / "src.bin")
    pattern.tofile(tmp_path / "pattern.bin")
    result = run_program(
        gated,
        "gather_user",
        dtype,
        "0",
        str(mask),
        str(repeats),
        str(blk),
        str(rep),
        str(rep1),
        str(tmp_path),
        check=True,
    )
    expected = gather_mask_model(src, pattern.tobytes(), mask, repeats, blk, rep, rep1)
    dst = np.fromfile(tmp_path / "dst.bin", dtype=np_dtype)
    assert f"rsvdCnt={expected.size}" in result.stdout
    np.testing.assert_array_equal(dst[: expected.size], expected)
    assert np.all(dst[expected.size :] == -7)  # nothing written past the kept elements


# case, check, kernel, api, fragments of the details
LIMIT_CASES = [
    ("pad_in_4096", "DATACOPY_LIMIT", "pad_in_blocks", "DataCopyPad", ["blockCount=4096", "4095"]),
    ("pad_out_4096", "DATACOPY_LIMIT", "pad_out_blocks", "DataCopyPad", ["blockCount=4096"]),
    ("copy_4096", "DATACOPY_LIMIT", "copy_blocks", "DataCopy", ["blockCount=4096"]),
    ("pad_len_over", "DATACOPY_LIMIT", "pad_len_over", "DataCopyPad", ["blockLen=2097152 bytes", "2097151"]),
    ("pad_len_elements", "DATACOPY_LENGTH", "pad_len_elements", "DataCopyPad", ["blockLen=6 bytes", "4-byte"]),
    ("pad_value_nonzero", "INVALID_ARGUMENT", "pad_value_nonzero", "DataCopyPad", ["DataCopyPadParams", "must be 0"]),
    ("gather_pattern", "INVALID_ARGUMENT", "gather_case", "GatherMask", ["src1Pattern=8", "1..7"]),
    ("gather_counter_zero", "INVALID_ARGUMENT", "gather_case", "GatherMask", ["reduceMode=true mask=0"]),
    ("gather_pattern_type", "DTYPE_UNSUPPORTED", "gather_case", "GatherMask", ["src1Pattern=uint16_t", "uint32_t"]),
    ("gather_src_range", "UB_OUT_OF_BOUNDS", "gather_case", "GatherMask", ["src0", "[0, 512)", "256 bytes"]),
]


@pytest.mark.parametrize("case, check, kernel, api, fragments", LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_limit_violation_stops_the_kernel(limits, case, check, kernel, api, fragments):
    found = twin_failure(limits, case)
    assert (found["check"], found["kernel"], found["core"], found["api"]) == (check, kernel, "0", api)
    for fragment in fragments:
        assert fragment in (found["details"] or ""), (fragment, found["details"])


@pytest.mark.parametrize("case", ["pad_in_4095", "pad_out_4095", "copy_4095", "gather_ok"])
def test_at_the_limit_runs(limits, case):
    result = run_program(limits, case, check=True)
    assert result.stdout == ""  # gather_ok prints rsvdCnt only if it is not the 32 odd elements


def test_gather_mask_exists_on_a2_a3_and_950_only(limits):
    assert run_program(limits, "gather_ok", OPGEN_SOC="ascend950").returncode == 0
    found = twin_failure(limits, "gather_ok", OPGEN_SOC="ascend310p")
    assert (found["check"], found["api"]) == ("DTYPE_UNSUPPORTED", "GatherMask")
    assert "not available" in found["details"]


def test_declarations_match_asc_devkit(tmp_path_factory):
    # Compiling is the test (a pointer of the header's exact type per declaration, static_asserts on the
    # structs); the run checks DataCopyParams' srcGap/dstGap aliases and the one-burst defaults.
    program = _compile(tmp_path_factory, "api_signatures")
    result = run_program(program, check=True)
    assert result.stdout.strip() == "blockCount=1 srcStride=3 dstStride=5 ext.blockCount=1"


@pytest.fixture(scope="module")
def gather(tmp_path_factory) -> Path:
    return _compile(tmp_path_factory, "gather_kernels")


# dtype, count, srcBaseAddr (bytes), offsets (bytes; None: a reversed interleave of the two halves of src)
GATHER_RUNS = [
    ("half", 128, 0, "reversed"),  # the reference's example: 128 halves, offsets 254, 252, ..., 0
    ("float", 200, 0, "interleave"),  # the half split's: element r of each half in turn, pairs (r, 128 + r)
    ("float", 37, 64, "random"),  # a base past the first 16 elements, repeats and any order
    ("half", 0, 0, "random"),  # count 0 writes nothing
]


def _offsets(kind: str, count: int, itemsize: int, base: int) -> np.ndarray:
    if kind == "reversed":
        return ((count - 1 - np.arange(count)) * itemsize).astype(np.uint32)
    if kind == "interleave":
        r = np.arange(count) // 2
        return ((r + np.arange(count) % 2 * 128) * itemsize).astype(np.uint32)
    rng = np.random.default_rng(count)
    return (rng.integers(0, 256 - base // itemsize, count) * itemsize).astype(np.uint32)


@pytest.mark.parametrize("dtype, count, base, kind", GATHER_RUNS, ids=[f"{c[0]}-{c[3]}-{c[1]}" for c in GATHER_RUNS])
def test_gather_matches_its_documented_addressing(gather, tmp_path, dtype, count, base, kind):
    np_dtype = DTYPES[dtype]
    itemsize = np.dtype(np_dtype).itemsize
    src = (np.arange(256) + 1).astype(np_dtype)
    offsets = _offsets(kind, count, itemsize, base)
    src.tofile(tmp_path / "src.bin")
    offsets.tofile(tmp_path / "offsets.bin")
    run_program(gather, "run", dtype, str(count), str(base), str(tmp_path), check=True)
    dst = np.fromfile(tmp_path / "dst.bin", dtype=np_dtype)
    # dst[i] lies srcBaseAddr + srcOffset[i] bytes into src
    expected = src.view(np.uint8)[base:].view(np_dtype)[offsets // itemsize] if count else src[:0]
    np.testing.assert_array_equal(dst[:count], expected)
    assert np.all(dst[count:] == -7)  # nothing written past count elements
    if kind == "interleave":
        assert list(dst[:4]) == [1, 129, 2, 130]


# case, check, fragments of the details
GATHER_LIMITS = [
    ("gather_offset_misaligned", "INVALID_ARGUMENT", ["srcOffset[5]=22 bytes", "4-byte"]),
    ("gather_offset_past_src", "UB_OUT_OF_BOUNDS", ["srcOffset[63]=256 bytes", "256 bytes"]),
    ("gather_base_misaligned", "INVALID_ARGUMENT", ["srcBaseAddr=2 bytes"]),
    ("gather_base_past_src", "UB_OUT_OF_BOUNDS", ["srcOffset[63]=252 bytes (+ srcBaseAddr 4)"]),
    ("gather_dst_is_src", "UB_OVERLAP", ["overlaps src"]),
    ("gather_count_past_offsets", "UB_OUT_OF_BOUNDS", ["srcOffset"]),
]


@pytest.mark.parametrize("case, check, fragments", GATHER_LIMITS, ids=[c[0] for c in GATHER_LIMITS])
def test_gather_limit_violation_stops_the_kernel(gather, case, check, fragments):
    found = twin_failure(gather, case)
    assert (found["check"], found["kernel"], found["core"], found["api"]) == (check, "gather_case", "0", "Gather")
    for fragment in fragments:
        assert fragment in (found["details"] or ""), (fragment, found["details"])


def test_gather_runs_where_its_reference_lists_it(gather):
    for soc in ("ascend910b", "ascend910_93", "ascend950", "ascend310p", "ascend310b"):
        assert run_program(gather, "gather_ok", OPGEN_SOC=soc).returncode == 0, soc
    found = twin_failure(gather, "gather_ok", OPGEN_SOC="ascend910")  # the Atlas training parts have no Gather
    assert (found["check"], found["api"]) == ("DTYPE_UNSUPPORTED", "Gather")
