"""The aclnn op-development layer of the twin: dtype promotion and castability against PyTorch,
Cast / Contiguous / ViewCopy numerics against NumPy (+ml_dtypes for bfloat16), aclCreateTensor
views, aclScalar conversions, broadcast inference and the executor's deferred launches."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from support.programs import run_program

from opgen.twin.compiler import compile_program

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"

# aclDataType code -> (torch dtype's name, numpy dtype)
DTYPES = {
    12: ("bool", np.dtype(np.bool_)),
    4: ("uint8", np.dtype(np.uint8)),
    2: ("int8", np.dtype(np.int8)),
    6: ("int16", np.dtype(np.int16)),
    3: ("int32", np.dtype(np.int32)),
    9: ("int64", np.dtype(np.int64)),
    1: ("float16", np.dtype(np.float16)),
    27: ("bfloat16", np.dtype(ml_dtypes.bfloat16)),
    0: ("float32", np.dtype(np.float32)),
    11: ("float64", np.dtype(np.float64)),
    16: ("complex64", np.dtype(np.complex64)),
    17: ("complex128", np.dtype(np.complex128)),
    7: ("uint16", np.dtype(np.uint16)),
    8: ("uint32", np.dtype(np.uint32)),
    10: ("uint64", np.dtype(np.uint64)),
}
DT_UNDEFINED = 28
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    binary = tmp_path_factory.mktemp("opdev_probe") / "opdev_probe"
    compile_program([PROGRAMS / "opdev_probe.cpp"], binary, ops_dirs=[])
    return binary


def values(result: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


# --------------------------------------------------------------------------- promotion and casting


@pytest.fixture(scope="module")
def tables(probe) -> dict[tuple[str, int, int], int]:
    table = {}
    for line in run_program(probe, "tables", check=True).stdout.splitlines():
        kind, a, b, r = line.split()
        table[(kind, int(a), int(b))] = int(r)
    return table


def test_promote_type_follows_torch_promote_types(tables, torch):
    code_of = {getattr(torch, name): code for code, (name, _) in DTYPES.items()}
    mismatches = []
    for a, (ta, _) in DTYPES.items():
        for b, (tb, _) in DTYPES.items():
            try:
                expected = code_of[torch.promote_types(getattr(torch, ta), getattr(torch, tb))]
            except RuntimeError:  # PyTorch refuses e.g. uint16 with int32
                expected = DT_UNDEFINED
            if tables[("promote", a, b)] != expected:
                mismatches.append((ta, tb, tables[("promote", a, b)], expected))
    assert not mismatches


def test_half_and_bfloat16_promote_to_float(tables):
    assert tables[("promote", 1, 27)] == 0
    assert tables[("promote", 27, 1)] == 0


def test_can_cast_follows_torch_can_cast(tables, torch):
    mismatches = [
        (ta, tb)
        for a, (ta, _) in DTYPES.items()
        for b, (tb, _) in DTYPES.items()
        if tables[("cancast", a, b)] != int(torch.can_cast(getattr(torch, ta), getattr(torch, tb)))
    ]
    assert not mismatches


def test_float_result_castable_to_complex_but_not_integer(tables):
    assert tables[("cancast", 0, 16)] == 1
    assert tables[("cancast", 0, 3)] == 0


# --------------------------------------------------------------------------- Contiguous / Cast / ViewCopy


def _view(storage: np.ndarray, shape, strides, offset) -> np.ndarray:
    item = storage.dtype.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=shape, strides=[s * item for s in strides], writeable=True
    )


def _csv(values) -> str:
    return ",".join(str(v) for v in values) if len(values) else "-"


def _copy_case(
    probe,
    tmp_path,
    src,
    src_code,
    dst_code,
    shape,
    src_strides,
    src_offset,
    dst_strides,
    dst_offset,
    dst_storage,
    convert,
):
    """Runs Contiguous -> Cast -> ViewCopy and compares dst's whole storage with the NumPy model."""
    src_file = tmp_path / "src.bin"
    dst_file = tmp_path / "dst.bin"
    src.tofile(src_file)
    result = run_program(
        probe,
        "copy",
        str(src_code),
        str(dst_code),
        str(src_file),
        str(dst_file),
        _csv(shape),
        _csv(src_strides),
        str(src_offset),
        str(src.size),
        _csv(dst_strides),
        str(dst_offset),
        str(dst_storage),
        check=True,
    )
    assert "phase1 1" in result.stdout and "run 0" in result.stdout, result.stdout + result.stderr
    dst_dtype = DTYPES[dst_code][1]
    expected = np.zeros(dst_storage, dtype=dst_dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf is part of what is checked
        _view(expected, shape, dst_strides, dst_offset)[...] = convert(_view(src, shape, src_strides, src_offset))
    actual = np.fromfile(dst_file, dtype=dst_dtype)
    assert actual.shape == expected.shape
    if dst_dtype.kind in "fc" or dst_dtype == np.dtype(ml_dtypes.bfloat16):
        np.testing.assert_array_equal(
            actual.astype(np.complex128 if dst_dtype.kind == "c" else np.float64),
            expected.astype(np.complex128 if dst_dtype.kind == "c" else np.float64),
        )
    else:
        np.testing.assert_array_equal(actual, expected)
    return result


def _special_floats(rng, count) -> np.ndarray:
    values = rng.normal(scale=300.0, size=count)
    extra = [
        0.0,
        -0.0,
        65504.0,
        65520.0,
        70000.0,
        -1e6,
        1e-5,
        6e-8,
        3e-8,
        1.0009765625,
        1.00048828125,
        np.inf,
        -np.inf,
        3.3e38,
    ]
    return np.concatenate([values, extra])


def test_cast_float_to_half_rounds_to_nearest_even(probe, tmp_path):
    src = _special_floats(np.random.default_rng(1), 200).astype(np.float32)
    _copy_case(probe, tmp_path, src, 0, 1, [src.size], [1], 0, [1], 0, src.size, lambda v: v.astype(np.float16))


def test_cast_double_to_half_is_correctly_rounded(probe, tmp_path):
    src = _special_floats(np.random.default_rng(2), 200).astype(np.float64)
    src = np.concatenate([src, [1.0 + 2.0**-11 + 2.0**-40, 2049.0000001]])  # just past a half tie
    _copy_case(probe, tmp_path, src, 11, 1, [src.size], [1], 0, [1], 0, src.size, lambda v: v.astype(np.float16))


def test_cast_float_to_bfloat16_rounds_to_nearest_even(probe, tmp_path):
    src = _special_floats(np.random.default_rng(3), 200).astype(np.float32)
    src = np.concatenate([src, np.array([1.00390625, 1.01171875, 1e-40], dtype=np.float32)])
    _copy_case(
        probe, tmp_path, src, 0, 27, [src.size], [1], 0, [1], 0, src.size, lambda v: v.astype(ml_dtypes.bfloat16)
    )


def test_cast_half_and_bfloat16_widen_exactly(probe, tmp_path):
    half = np.random.default_rng(4).normal(scale=100, size=300).astype(np.float16)
    _copy_case(probe, tmp_path, half, 1, 0, [half.size], [1], 0, [1], 0, half.size, lambda v: v.astype(np.float32))
    bf16 = np.random.default_rng(5).normal(scale=1e5, size=300).astype(ml_dtypes.bfloat16)
    _copy_case(probe, tmp_path, bf16, 27, 11, [bf16.size], [1], 0, [1], 0, bf16.size, lambda v: v.astype(np.float64))


@pytest.mark.parametrize(
    "src_code,dst_code,make",
    [
        (0, 3, lambda rng: rng.uniform(-1e6, 1e6, 300).astype(np.float32)),  # float -> int32 truncates
        (11, 9, lambda rng: rng.uniform(-1e15, 1e15, 300)),  # double -> int64
        (9, 0, lambda rng: rng.integers(-(2**40), 2**40, 300, dtype=np.int64) * 1025 + 1),  # int64 -> float RNE
        (3, 2, lambda rng: rng.integers(-100000, 100000, 300, dtype=np.int32)),  # int32 -> int8 wraps
        (0, 12, lambda rng: np.where(rng.random(300) < 0.3, 0.0, rng.normal(size=300)).astype(np.float32)),
        (3, 12, lambda rng: rng.integers(-2, 3, 300, dtype=np.int32)),
        (12, 0, lambda rng: rng.random(300) < 0.5),
        (0, 16, lambda rng: rng.normal(size=300).astype(np.float32)),  # float -> complex64
        (11, 17, lambda rng: rng.normal(size=300)),
        (16, 17, lambda rng: (rng.normal(size=300) + 1j * rng.normal(size=300)).astype(np.complex64)),
        (4, 1, lambda rng: rng.integers(0, 256, 300, dtype=np.uint8)),
    ],
)
def test_cast_matches_numpy_astype(probe, tmp_path, src_code, dst_code, make):
    src = np.asarray(make(np.random.default_rng(src_code * 100 + dst_code)), dtype=DTYPES[src_code][1])
    dst_dtype = DTYPES[dst_code][1]
    _copy_case(
        probe, tmp_path, src, src_code, dst_code, [src.size], [1], 0, [1], 0, src.size, lambda v: v.astype(dst_dtype)
    )


def test_contiguous_gathers_a_strided_view_with_offset(probe, tmp_path):
    storage = np.arange(200, dtype=np.float32) * 0.5
    # A permuted 3-D view starting at element 7: shape (4, 3, 5) over strides (1, 40, 4).
    result = _copy_case(probe, tmp_path, storage, 0, 0, [4, 3, 5], [1, 40, 4], 7, [15, 5, 1], 0, 60, lambda v: v)
    assert "launch Contiguous host DT_FLOAT->DT_FLOAT" in result.stdout
    assert "Cast" not in result.stdout  # same dtype: no cast planned


def test_expanded_view_with_zero_stride_repeats_elements(probe, tmp_path):
    storage = np.array([1.5, -2.0, 3.25], dtype=np.float32)
    _copy_case(probe, tmp_path, storage, 0, 0, [4, 3], [0, 1], 0, [3, 1], 0, 12, lambda v: v)


def test_view_copy_scatters_into_a_strided_output_with_cast(probe, tmp_path):
    src = np.random.default_rng(7).normal(size=24).astype(np.float32)
    # Output: every other element of a (4, 12) buffer, transposed, starting at 3.
    result = _copy_case(probe, tmp_path, src, 0, 1, [6, 4], [4, 1], 0, [2, 12], 3, 50, lambda v: v.astype(np.float16))
    lines = [line for line in result.stdout.splitlines() if line.startswith("launch")]
    assert lines == ["launch Cast host DT_FLOAT->DT_FLOAT16", "launch ViewCopy host DT_FLOAT16->DT_FLOAT16"]


def test_empty_and_zero_dim_views(probe, tmp_path):
    empty = np.zeros(4, dtype=np.float32)
    _copy_case(probe, tmp_path, empty, 0, 1, [0, 4], [4, 1], 0, [4, 1], 0, 4, lambda v: v.astype(np.float16))
    scalar = np.array([9.0, 2.5], dtype=np.float64)
    _copy_case(probe, tmp_path, scalar, 11, 0, [], [], 1, [], 0, 1, lambda v: v.astype(np.float32))


# --------------------------------------------------------------------------- tensors, scalars, broadcast


def test_create_tensor_keeps_view_strides_offset_and_storage(probe):
    v = values(run_program(probe, "tensor", check=True))
    assert v["view_created"] == "1"
    assert v["view_shape"] == "2 3" and v["view_strides"] == "1 4" and v["storage_shape"] == "24"
    assert v["view_offset"] == "5" and v["view_numel"] == "6"
    assert v["dtype_format"] == "0 2"  # ACL_FLOAT, ACL_FORMAT_ND
    assert v["view_contiguous"] == "0" and v["dense_contiguous"] == "1"
    assert v["view_addr_offset_bytes"] == str(5 * 4)


def test_create_tensor_refuses_views_outside_their_storage(probe):
    result = run_program(probe, "tensor", check=True)
    v = values(result)
    assert v["view_outside_storage"] == "0"
    assert v["negative_stride"] == "0"
    assert result.stderr.count("needs 16 + 10 storage elements, storage has 24") == 1
    assert result.stderr.count("negative view stride") == 1


def test_storage_beyond_its_buffer_faults_where_a_copy_touches_it(probe):
    # aclCreateTensor takes a storage larger than its aclrtMalloc block (as CANN's does); a copy that reads
    # only bytes the block has succeeds, one that reaches past it fails in phase 2 naming the bytes.
    result = run_program(probe, "tensor")
    v = values(result)
    assert v["storage_over_buffer_offset_0"] == "1 phase1 1 run 0"
    assert v["storage_over_buffer_offset_15"] == f"1 phase1 1 run {ACLNN_ERR_INNER}"
    assert "GM_OUT_OF_BOUNDS: Contiguous reads bytes [60, 100) of the device buffer" in result.stderr
    assert "which has only 96 bytes" in result.stderr


def test_zero_dim_and_empty_tensors(probe):
    v = values(run_program(probe, "tensor", check=True))
    assert v["zero_d_created"] == "1 numel 1 empty 0"
    assert v["empty_created"] == "1 empty 1 contiguous 1"
    assert v["destroy"] == "0"
    assert v["destroy_twice"] == str(ACLNN_ERR_PARAM_INVALID)
    assert v["destroy_null"] == "0"


def test_scalar_conversions_match_numpy(probe):
    v = values(run_program(probe, "scalar", check=True))
    assert v["create_null"] == "0"
    d = np.float64(-2.75)
    assert v["double"].split() == ["-2.75", "-2.75", str(int(np.trunc(d))), str(int(np.trunc(d))), "1"]
    assert v["float"].split() == ["3.5", "3", "0"]
    assert v["int64"].split() == ["-7", "-7", "1"]
    assert v["int32"].split() == [str(np.int32(300).astype(np.int8)), str(np.int32(300).astype(np.uint8)), "300"]
    assert float(v["half"]) == float(np.float16(1.5))
    assert v["bool"].split() == ["1", "1"]
    assert v["int8"].split() == ["-128", "-128"]
    assert v["overflow_int32_to_int8"] == "1" and v["overflow_int32_to_int16"] == "0"
    assert v["int_array"] == "3 6" and v["float_array"] == "2 1.5" and v["bool_array"] == "3 1"
    assert v["destroy"] == "0 0 0 0"


def test_broadcast_infer_shape_matches_numpy(probe):
    for line in run_program(probe, "broadcast", check=True).stdout.splitlines():
        _, a, b, ok, shape, check = line.split()
        dims_a = [int(x) for x in a.strip("[]").split(",") if x]
        dims_b = [int(x) for x in b.strip("[]").split(",") if x]
        try:
            expected = list(np.broadcast_shapes(tuple(dims_a), tuple(dims_b)))
        except ValueError:
            expected = None
        assert (ok == "1") == (expected is not None) == (check == "1"), line
        if expected is not None:
            assert shape == "[" + ",".join(map(str, expected)) + "]", line


# --------------------------------------------------------------------------- executor


def test_launches_are_deferred_to_phase_two(probe):
    v = values(run_program(probe, "executor", check=True))
    assert v["launches"] == "2 Contiguous ViewCopy"
    assert int(v["workspace"]) >= 24  # the contiguous intermediate lives in the workspace budget
    assert v["after_phase1"].split() == ["0"] * 6
    storage = np.arange(1, 7, dtype=np.float32)
    expected = _view(storage, (2, 3), (1, 2), 0).reshape(-1)
    assert [float(x) for x in v["after_phase2"].split()] == expected.tolist()


def test_phase_two_misuse_returns_status_codes(probe):
    result = run_program(probe, "executor", check=True)
    v = values(result)
    assert v["run_small_workspace"] == str(ACLNN_ERR_PARAM_INVALID)
    assert v["run_host_workspace"] == str(ACLNN_ERR_PARAM_INVALID)
    assert v["run_null_workspace"] == str(ACLNN_ERR_PARAM_NULLPTR)
    assert v["run_bad_stream"] == str(ACLNN_ERR_RUNTIME_ERROR)
    assert v["run"] == "0"
    assert v["run_again"] == str(ACLNN_ERR_PARAM_INVALID)  # an executor runs once
    assert v["run_null_executor"] == str(ACLNN_ERR_PARAM_NULLPTR)
    assert v["run_foreign_executor"] == str(ACLNN_ERR_PARAM_INVALID)
    assert "errno[161002]" in result.stderr and "[ERROR]" in result.stderr
