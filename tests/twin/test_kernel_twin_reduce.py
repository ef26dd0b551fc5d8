"""The reduction APIs of the twin (opgen/twin/include/opgen_twin/reduce.h), one call per run of
tests/twin/kernels/reduce_kernels.cpp, against numpy models of their documented semantics: maxima exact with the
first index, sums bit-exact against a model of the modelled order (pairwise trees, repeats in order for level-2
ReduceSum on A2/A3) and within the error bound of that order; and each documented limit stopping the kernel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.programs import CHECK_EXIT_CODE, FAILURE_LINE, run_program

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
DTYPES = {"half": np.float16, "float": np.float32}
SENTINEL = -7.0


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("reduce") / "reduce_kernels"
    compile_program([KERNELS / "reduce_kernels.cpp"], path, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return path


def lanes_per_repeat(dtype: str) -> int:
    return 256 // np.dtype(DTYPES[dtype]).itemsize


def run(program: Path, tmp: Path, api: str, dtype: str, src: np.ndarray, dst_bytes: int = 1024, **args) -> np.ndarray:
    """Runs one call; returns the dst buffer (or the src buffer with in_place=1) as elements of `dtype`."""
    np_dtype = DTYPES[dtype]
    src = np.asarray(src, dtype=np_dtype)
    src.tofile(tmp / "src.bin")
    np.full(dst_bytes // src.itemsize, SENTINEL, dtype=np_dtype).tofile(tmp / "dst.bin")
    args = {"src_elems": src.size, "dst_bytes": dst_bytes, **args}
    run_program(program, api, dtype, str(tmp), *(f"{k}={v}" for k, v in args.items()), check=True)
    return np.fromfile(tmp / "out.bin", dtype=np_dtype)


# --- numpy models of the modelled order ---


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One addition of a reduction: IEEE in T (half through float, correctly rounded); a finite half sum beyond
    ±65504 is stored as ±65504."""
    dtype = np.result_type(a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        total = (a.astype(np.float32) + b.astype(np.float32)).astype(dtype)
        if dtype == np.float16:
            saturate = np.isinf(total) & np.isfinite(a) & np.isfinite(b)
            total = np.where(saturate, np.copysign(np.float16(65504), total), total).astype(dtype)
    return total


def tree(lanes: np.ndarray) -> np.ndarray:
    """Pairwise tree along the last axis (a power of two long)."""
    while lanes.shape[-1] > 1:
        lanes = add(lanes[..., 0::2], lanes[..., 1::2])
    return lanes[..., 0]


def gather(src: np.ndarray, repeats: int, active: np.ndarray, blk: int = 1, rep: int = 8) -> np.ndarray:
    """Lanes (repeats x lanes) as the repeat forms read them; masked-off lanes +0."""
    per_block = 32 // src.itemsize
    j = np.arange(active.size)
    r = np.arange(repeats)[:, None]
    index = (r * rep + j // per_block * blk) * per_block + j % per_block
    return np.where(active, src[np.minimum(index, src.size - 1)], 0).astype(src.dtype)


def continuous(dtype: str, mask: int) -> np.ndarray:
    return np.arange(lanes_per_repeat(dtype)) < mask


def bitwise(dtype: str, bits0: int, bits1: int) -> np.ndarray:
    """Lane j is on if bit j of the mask words (least significant first) is set; a 32-bit type has one word."""
    words = [bits0, bits1 if dtype == "half" else 0]
    return np.array([(words[j // 64] >> (j % 64)) & 1 for j in range(lanes_per_repeat(dtype))], dtype=bool)


def first_max(values: np.ndarray, active: np.ndarray) -> int:
    """The first NaN, else the first largest, among the active lanes."""
    candidates = np.flatnonzero(active)
    nan = candidates[np.isnan(values[candidates])]
    if nan.size:
        return int(nan[0])
    best = values[candidates].max()
    return int(candidates[np.flatnonzero(values[candidates] == best)[0]])


def sum_bound(x: np.ndarray, depth: int) -> float:
    """|computed - exact| for a sum through `depth` rounded additions per element (Higham's gamma_depth)."""
    u = 2.0**-11 if x.dtype == np.float16 else 2.0**-24
    return depth * u / (1 - depth * u) * float(np.abs(x.astype(np.float64)).sum())


def data(dtype: str, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(DTYPES[dtype]) * 4


# --- WholeReduceSum / WholeReduceMax ---

# dtype, mask (None: bit mask), bits0, bits1, repeats, dstRepStride, srcBlkStride, srcRepStride
WHOLE_CASES = [
    ("float", 64, 0, 0, 5, 1, 1, 8),
    ("half", 128, 0, 0, 4, 1, 1, 8),
    ("float", 37, 0, 0, 3, 3, 1, 8),  # a partial mask, results three slots apart
    ("half", 70, 0, 0, 2, 2, 2, 16),  # every other block
    ("half", None, 0xF0F0F0F0F0F0F0F0, 0x8000000000000001, 3, 1, 1, 8),
    ("float", None, 0x8000000100000001, 0, 2, 1, 1, 9),
]


@pytest.mark.parametrize("dtype, mask, bits0, bits1, repeats, dst_rep, blk, rep", WHOLE_CASES)
def test_whole_reduce_sum_is_the_documented_tree(
    program, tmp_path, dtype, mask, bits0, bits1, repeats, dst_rep, blk, rep
):
    src = data(dtype, 4096, repeats)
    active = continuous(dtype, mask) if mask else bitwise(dtype, bits0, bits1)
    mask_args = {"mask": mask} if mask else {"bits": 1, "bits0": bits0, "bits1": bits1}
    out = run(
        program,
        tmp_path,
        "WholeReduceSum",
        dtype,
        src,
        repeat=repeats,
        dst_rep=dst_rep,
        src_blk=blk,
        src_rep=rep,
        **mask_args,
    )
    lanes = gather(src, repeats, active, blk, rep)
    expected = tree(lanes)
    got = out[np.arange(repeats) * dst_rep]
    np.testing.assert_array_equal(got, expected)
    depth = int(np.log2(lanes.shape[1]))
    for r in range(repeats):
        exact = lanes[r].astype(np.float64).sum()
        assert abs(float(got[r]) - exact) <= sum_bound(lanes[r], depth) + 1e-30
    untouched = np.setdiff1d(np.arange(out.size), np.arange(repeats) * dst_rep)
    assert np.all(out[untouched] == SENTINEL)


def test_whole_reduce_sum_half_saturates_at_65504(program, tmp_path):
    # The reference's example: 60000 + 60000 is stored as 65504 before -30000 + 100 is added.
    src = np.zeros(128, dtype=np.float16)
    src[:4] = [60000, 60000, -30000, 100]
    out = run(program, tmp_path, "WholeReduceSum", "half", src, mask=4)
    expected = tree(src[None, :].copy())[0]
    assert np.isfinite(out[0]) and out[0] == expected
    h = np.float16
    assert expected == add(np.array(h(65504)), add(np.array(h(-30000)), np.array(h(100))))  # saturated, not inf


ORDERS = {"ORDER_VALUE_INDEX": 0, "ORDER_INDEX_VALUE": 1, "ORDER_ONLY_VALUE": 2, "ORDER_ONLY_INDEX": 3}


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("order", list(ORDERS))
def test_whole_reduce_max_value_and_first_index(program, tmp_path, dtype, order):
    per = lanes_per_repeat(dtype)
    src = data(dtype, 4 * per, 11)
    src[3] = src[per - 2] = np.max(src[:per]) + 1  # a tie: the first wins
    src[per + 5] = np.nan  # NaN wins its repeat
    src[2 * per + 1] = np.inf
    src[3 * per : 4 * per] = -np.inf
    out = run(program, tmp_path, "WholeReduceMax", dtype, src, repeat=4, mask=per, order=ORDERS[order])
    index_type = np.uint16 if dtype == "half" else np.uint32
    raw = out.view(np.uint8)
    for r in range(4):
        values = src[r * per : (r + 1) * per]
        j = first_max(values, np.ones(per, dtype=bool))
        if order == "ORDER_VALUE_INDEX":
            value, index = out[2 * r], out[2 * r + 1 : 2 * r + 2].view(index_type)[0]
        elif order == "ORDER_INDEX_VALUE":
            index, value = out[2 * r : 2 * r + 1].view(index_type)[0], out[2 * r + 1]
        elif order == "ORDER_ONLY_VALUE":
            value, index = out[r], j
        else:  # a uint32_t per repeat whatever T
            value, index = values[j], raw[4 * r : 4 * r + 4].view(np.uint32)[0]
        assert index == j, (r, index, j)
        np.testing.assert_array_equal(value, values[j])
    assert first_max(src[per : 2 * per], np.ones(per, dtype=bool)) == 5  # the NaN won repeat 1


# --- BlockReduceSum / BlockReduceMax / PairReduceSum ---


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("api", ["BlockReduceSum", "BlockReduceMax"])
def test_block_reduce_per_32_byte_block(program, tmp_path, dtype, api):
    per = lanes_per_repeat(dtype)
    per_block = per // 8
    mask = per - per_block - 3  # the last block inactive, the one before it partly
    src = data(dtype, 3 * per, 5)
    out = run(program, tmp_path, api, dtype, src, repeat=3, mask=mask, dst_rep=2)
    active = continuous(dtype, mask)
    lanes = gather(src, 3, active).reshape(3, 8, per_block)
    on = active.reshape(8, per_block)
    for r in range(3):
        slots = out[16 * r : 16 * r + 8]
        for b in range(8):
            if not on[b].any():
                assert slots[b] == SENTINEL  # a block with no active lane is not written
            elif api == "BlockReduceSum":
                np.testing.assert_array_equal(slots[b], tree(lanes[r, b][None, :])[0])
            else:
                np.testing.assert_array_equal(slots[b], lanes[r, b][first_max(lanes[r, b], on[b])])
        assert np.all(out[16 * r + 8 : 16 * r + 16] == SENTINEL)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_pair_reduce_sum_adds_neighbours(program, tmp_path, dtype):
    per = lanes_per_repeat(dtype)
    src = data(dtype, 2 * per, 9)
    out = run(program, tmp_path, "PairReduceSum", dtype, src, repeat=2, mask=per - 2, dst_rep=1)
    lanes = gather(src, 2, continuous(dtype, per - 2))
    expected = add(lanes[:, 0::2], lanes[:, 1::2])
    half = per // 2
    for r in range(2):
        np.testing.assert_array_equal(out[r * half : (r + 1) * half - 1], expected[r, :-1])
        assert out[(r + 1) * half - 1] == SENTINEL  # the last pair is masked off: not written


# --- ReduceSum / ReduceMax ---


def reduce_sum_model(src: np.ndarray, repeats: int, active: np.ndarray, sequential: bool, rep: int = 8):
    sums = tree(gather(src, repeats, active, 1, rep))
    if sequential:
        total = sums[0]
        for s in sums[1:]:
            total = add(np.array(total), np.array(s))
        return total
    per = active.size
    while sums.size > 1:
        padded = np.zeros(-(-sums.size // per) * per, dtype=sums.dtype)
        padded[: sums.size] = sums
        sums = tree(padded.reshape(-1, per))
    return sums[0]


@pytest.mark.parametrize(
    "dtype, count, soc",
    [
        ("half", 288, "ascend910b"),
        ("float", 1000, "ascend910b"),
        ("half", 8320, "ascend910_93"),
        ("float", 1, "ascend910b"),
        ("float", 5000, "ascend950"),
    ],
)
def test_reduce_sum_count_form(program, tmp_path, dtype, count, soc):
    per = lanes_per_repeat(dtype)
    src = np.zeros(-(-count // per) * per, dtype=DTYPES[dtype])
    src[:count] = data(dtype, count, count)
    src[count:] = 1000  # past count: must not be read
    np_src = src.copy()
    np_src[count:] = 0
    result = run_program(
        program,
        "ReduceSum2",
        dtype,
        str(tmp_path),
        *_files(tmp_path, src, 1024),
        f"count={count}",
        "tmp_elems=256",
        OPGEN_SOC=soc,
    )
    assert result.returncode == 0, result.stderr
    got = np.fromfile(tmp_path / "out.bin", dtype=DTYPES[dtype])[0]
    sequential = soc != "ascend950"  # A2/A3 add the repeats' sums in order; elsewhere a tree
    expected = reduce_sum_model(np_src, len(np_src) // per, np.ones(per, dtype=bool), sequential)
    np.testing.assert_array_equal(got, expected)
    repeats = len(np_src) // per
    depth = int(np.log2(per)) + (repeats - 1 if sequential else int(np.ceil(np.log2(max(repeats, 1)))) + 1)
    assert abs(float(got) - np_src.astype(np.float64).sum()) <= sum_bound(np_src, depth)


def _files(tmp: Path, src: np.ndarray, dst_bytes: int) -> list[str]:
    src.tofile(tmp / "src.bin")
    np.full(dst_bytes // src.itemsize, SENTINEL, dtype=src.dtype).tofile(tmp / "dst.bin")
    return [f"src_elems={src.size}", f"dst_bytes={dst_bytes}"]


@pytest.mark.parametrize("dtype, repeats, mask", [("half", 65, 128), ("float", 130, 64), ("float", 7, 40)])
def test_reduce_sum_level0_is_a_tree_of_repeats(program, tmp_path, dtype, repeats, mask):
    per = lanes_per_repeat(dtype)
    src = data(dtype, repeats * per, repeats)
    out = run(program, tmp_path, "ReduceSum0", dtype, src, repeat=repeats, mask=mask, tmp_elems=512)
    expected = reduce_sum_model(src, repeats, continuous(dtype, mask), sequential=False)
    np.testing.assert_array_equal(out[0], expected)
    assert out[1] == SENTINEL


@pytest.mark.parametrize("dtype, count, cal_index", [("half", 8320, 1), ("float", 1000, 1), ("float", 70, 0)])
def test_reduce_max_count_form(program, tmp_path, dtype, count, cal_index):
    per = lanes_per_repeat(dtype)
    src = np.full(-(-count // per) * per, 1e4, dtype=DTYPES[dtype])  # past count: larger, must not win
    src[:count] = data(dtype, count, 3)
    src[count // 2] = src[count - 1] = 50  # a tie across repeats: the first wins
    out = run(program, tmp_path, "ReduceMax2", dtype, src, count=count, cal_index=cal_index, tmp_elems=2048)
    j = first_max(src[:count], np.ones(count, dtype=bool))
    assert out[0] == src[j]
    index_type = np.uint16 if dtype == "half" else np.uint32
    if cal_index:
        assert out[1:2].view(index_type)[0] == j
    else:
        assert out[1] == SENTINEL


def test_reduce_max_level0_mask_and_nan(program, tmp_path):
    src = data("float", 64 * 9, 4)
    src[64 * 4 + 50] = 1e9  # outside the mask of 40 lanes: ignored
    src[64 * 6 + 3] = np.nan
    out = run(program, tmp_path, "ReduceMax0", "float", src, repeat=9, mask=40, cal_index=1, tmp_elems=64)
    assert np.isnan(out[0]) and out[1:2].view(np.uint32)[0] == 64 * 6 + 3


def test_in_place_whole_reduce_runs(program, tmp_path):
    # dst over the src buffer: repeat r's result lands before repeat r + 1's source (the usual in-place use).
    src = data("float", 64 * 4, 21)
    out = run(program, tmp_path, "WholeReduceSum", "float", src, repeat=4, mask=64, in_place=1)
    np.testing.assert_array_equal(out[:4], tree(gather(src, 4, continuous("float", 64))))


# --- limits ---

# case name, api, dtype, args, env soc, check, fragments of the details
LIMIT_CASES = [
    (
        "repeat_256",
        "WholeReduceSum",
        "half",
        {"repeat": 256, "src_elems": 256 * 128},
        None,
        "INVALID_ARGUMENT",
        ["repeatTime=256", "[0, 255]"],
    ),
    ("mask_65_float", "WholeReduceMax", "float", {"mask": 65}, None, "INVALID_ARGUMENT", ["mask=65", "[1, 64]"]),
    ("mask_0", "BlockReduceSum", "half", {"mask": 0}, None, "INVALID_ARGUMENT", ["mask=0", "[1, 128]"]),
    ("bits_zero", "WholeReduceSum", "half", {"bits": 1}, None, "INVALID_ARGUMENT", ["mask[0]=0 mask[1]=0"]),
    (
        "max_dst_4_bytes",
        "WholeReduceMax",
        "float",
        {"dst_offset": 1, "mask": 64},
        None,
        "UB_MISALIGNED",
        ["dst", "not 8-byte aligned"],
    ),
    (
        "block_dst_8_bytes",
        "BlockReduceSum",
        "half",
        {"dst_offset": 4},
        None,
        "UB_MISALIGNED",
        ["dst", "not 16-byte aligned"],
    ),
    (
        "dst_too_small",
        "WholeReduceSum",
        "float",
        {"repeat": 20, "dst_rep": 4, "dst_bytes": 64, "mask": 64, "src_elems": 20 * 64},
        None,
        "UB_OUT_OF_BOUNDS",
        ["dst", "[0, 308)"],
    ),
    (
        "order_310p",
        "WholeReduceMax",
        "half",
        {"order": 2},
        "ascend310p",
        "INVALID_ARGUMENT",
        ["order=ORDER_ONLY_VALUE", "soc=ascend310p", "ORDER_VALUE_INDEX, ORDER_INDEX_VALUE"],
    ),
    (
        "float_on_910",
        "WholeReduceSum",
        "float",
        {"mask": 64},
        "ascend910",
        "DTYPE_UNSUPPORTED",
        ["dtype=float", "half"],
    ),
    (
        "overwrites_source",
        "WholeReduceSum",
        "float",
        {"repeat": 2, "mask": 64, "in_place": 1, "dst_offset": 64, "src_elems": 192},
        None,
        "OPERAND_OVERLAP",
        ["repeat 0", "repeat 1 still reads"],
    ),
    (
        "max_tmp_small",
        "ReduceMax0",
        "half",
        {"repeat": 65, "mask": 128, "cal_index": 1, "tmp_elems": 160, "src_elems": 65 * 128},
        None,
        "UB_OUT_OF_BOUNDS",
        ["sharedTmpBuffer has 160", "at least 176"],
    ),
    (
        "max_tmp_small_float",
        "ReduceMax0",
        "float",
        {"repeat": 130, "mask": 64, "cal_index": 1, "tmp_elems": 280, "src_elems": 130 * 64},
        None,
        "UB_OUT_OF_BOUNDS",
        ["at least 288"],
    ),
    (
        "max_half_index",
        "ReduceMax2",
        "half",
        {"count": 65537, "cal_index": 1, "src_elems": 65552},
        None,
        "INVALID_ARGUMENT",
        ["65537 half elements", "65535"],
    ),
    (
        "sum_tmp_overlap",
        "ReduceSum2",
        "half",
        {"count": 8320, "tmp_is_dst": 1, "dst_bytes": 64, "src_elems": 8320},
        None,
        "OPERAND_OVERLAP",
        ["80"],
    ),
    ("count_0", "ReduceSum2", "float", {"count": 0}, None, "INVALID_ARGUMENT", ["count=0"]),
]


@pytest.mark.parametrize("case, api, dtype, args, soc, check, fragments", LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_limit_violation_stops_the_kernel(program, tmp_path, case, api, dtype, args, soc, check, fragments):
    args = {"src_elems": 256, "dst_bytes": 1024, **args}
    np.zeros(args["src_elems"], dtype=DTYPES[dtype]).tofile(tmp_path / "src.bin")
    np.zeros(args["dst_bytes"] // 4, dtype=np.float32).tofile(tmp_path / "dst.bin")
    env = {"OPGEN_SOC": soc} if soc else {}
    result = run_program(program, api, dtype, str(tmp_path), *(f"{k}={v}" for k, v in args.items()), **env)
    assert result.returncode == CHECK_EXIT_CODE, (case, result.returncode, result.stderr)
    match = FAILURE_LINE.match(result.stderr.strip())
    assert match, result.stderr
    name = api.rstrip("02")
    assert (match["check"], match["kernel"], match["core"], match["api"]) == (check, "reduce_api", "0", name)
    for fragment in fragments:
        assert fragment in (match["details"] or ""), (fragment, match["details"])


@pytest.mark.parametrize(
    "api, dtype, args",
    [
        ("ReduceMax0", "half", {"repeat": 65, "mask": 128, "cal_index": 1, "tmp_elems": 176, "src_elems": 65 * 128}),
        ("ReduceMax0", "float", {"repeat": 130, "mask": 64, "cal_index": 1, "tmp_elems": 288, "src_elems": 130 * 64}),
        ("ReduceMax0", "half", {"repeat": 4, "mask": 128, "cal_index": 1, "tmp_elems": 32, "src_elems": 512}),
        ("ReduceSum2", "half", {"count": 8320, "tmp_is_dst": 1, "dst_bytes": 160, "src_elems": 8320}),
        ("ReduceSum2", "half", {"count": 8320, "tmp_elems": 16, "src_elems": 8320}),  # no overlap: any size
        ("WholeReduceSum", "half", {"repeat": 255, "src_elems": 255 * 128}),
    ],
)
def test_at_the_limit_runs(program, tmp_path, api, dtype, args):
    # The reference's sharedTmpBuffer examples (176 and 288 elements with calIndex; 32 for four repeats).
    src = data(dtype, args["src_elems"], 1)
    run(program, tmp_path, api, dtype, src, **{k: v for k, v in args.items() if k != "src_elems"})
