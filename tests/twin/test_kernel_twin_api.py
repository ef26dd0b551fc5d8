"""Ascend C vector and copy APIs of the CPU twin against independent numpy models.

Every case runs one API call inside a one-core kernel (tests/twin/kernels/api_harness.cpp). The models
compute in float64 and round once to the element type, which is the correctly rounded result the
hardware's half/float/bf16 arithmetic produces (as the Ascend C API reference describes it).
"""

from __future__ import annotations

import math
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from support.floats import bits, ulps_between

from opgen import formula as F
from opgen.spec.socs import SOCS
from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
BF16 = ml_dtypes.bfloat16
DTYPES = {
    "half": np.float16,
    "float": np.float32,
    "bf16": BF16,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
}
CMP_MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]
ROUND_MODES = ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"]
RNG = np.random.default_rng(20240611)


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("api_harness") / "api_harness"
    compile_program([KERNELS / "api_harness.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


@dataclass
class Case:
    api: str
    dtype: str
    count: int
    a: np.ndarray
    b: np.ndarray | None = None
    out: np.ndarray | None = None  # initial destination; defaults to a sentinel fill
    dst_dtype: str | None = None
    mode: int = 0
    params: tuple[int, ...] = ()
    scalar: object = 0
    mask: np.ndarray | None = None
    result: np.ndarray | None = field(default=None, init=False)
    error: str | None = field(default=None, init=False)


def _pad32(array: np.ndarray) -> np.ndarray:
    """Pads to a whole number of 32-byte blocks (at least one) with zeros."""
    array = np.ascontiguousarray(array)
    per_block = 32 // array.itemsize
    length = max(per_block, -(-array.size // per_block) * per_block)
    padded = np.zeros(length, dtype=array.dtype)
    padded[: array.size] = array
    return padded


def run_cases(harness: Path, cases: list[Case], work: Path, soc: str | None = None) -> list[Case]:
    dirs = []
    for index, case in enumerate(cases):
        directory = work / f"case{index:03d}"
        directory.mkdir(parents=True)
        src = DTYPES[case.dtype]
        dst_name = case.dst_dtype or case.dtype
        dst = DTYPES[dst_name]
        a = np.asarray(case.a, dtype=src)
        b = np.asarray(case.b if case.b is not None else np.zeros(1), dtype=src)
        out = case.out if case.out is not None else np.full(max(a.size, 1), 7, dtype=dst)
        if case.api == "DataCopyPadIn":
            a.tofile(directory / "a.bin")  # GM source: exact size, no padding
        else:
            _pad32(a).tofile(directory / "a.bin")
        _pad32(b).tofile(directory / "b.bin")
        mask = case.mask if case.mask is not None else np.zeros(32, np.uint8)
        _pad32(np.asarray(mask, np.uint8)).tofile(directory / "mask.bin")
        np.asarray([case.scalar], dtype=src).tofile(directory / "scalar.bin")
        out = np.asarray(out, dtype=dst)
        (out if case.api == "DataCopyPadOut" else _pad32(out)).tofile(directory / "out.bin")
        params = list(case.params) + [0] * (8 - len(case.params))
        fields = [case.api, case.dtype, dst_name, str(case.count), str(case.mode), *map(str, params)]
        (directory / "case.txt").write_text(" ".join(fields) + "\n")
        dirs.append(directory)
    env = dict(os.environ)
    env.pop("OPGEN_SOC", None)
    if soc is not None:
        env["OPGEN_SOC"] = soc
    subprocess.run([str(harness), *map(str, dirs)], check=True, env=env, timeout=120)
    for case, directory in zip(cases, dirs, strict=True):
        error = directory / "error.txt"
        if error.exists():
            case.error = error.read_text()
        else:
            case.result = np.fromfile(directory / "out.bin", dtype=DTYPES[case.dst_dtype or case.dtype])
    return cases


def assert_same_floats(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    """Bit-exact, except that any NaN matches any NaN."""
    expected = np.asarray(expected, dtype=actual.dtype)
    with np.errstate(invalid="ignore"):
        nan_actual = np.isnan(actual.astype(np.float64))
        nan_expected = np.isnan(expected.astype(np.float64))
    assert np.array_equal(nan_actual, nan_expected), f"{what}: NaN positions differ"
    keep = ~nan_expected
    mismatch = np.nonzero(bits(actual)[keep] != bits(expected)[keep])[0]
    assert mismatch.size == 0, (
        f"{what}: {mismatch.size} mismatches, first at {mismatch[0]}: "
        f"got {actual[keep][mismatch[0]]!r} want {expected[keep][mismatch[0]]!r}"
    )


def special_values(dtype) -> np.ndarray:
    info = ml_dtypes.finfo(dtype) if dtype is BF16 else np.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    values = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        np.inf,
        -np.inf,
        np.nan,
        float(info.max),
        -float(info.max),
        tiny,
        -tiny,
        float(info.tiny),
        3 * tiny,
        1e-3,
        -7.75,
    ]
    return np.array(values, dtype=dtype)


def random_floats(dtype, count: int) -> np.ndarray:
    """Uniform bit patterns (all exponents, specials included) plus ordinary values."""
    if dtype is np.float32:
        bits = RNG.integers(0, 2**32, size=count // 2, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        bits = RNG.integers(0, 2**16, size=count // 2, dtype=np.uint32).astype(np.uint16).view(dtype)
    ordinary = RNG.normal(0, 4, size=count - count // 2).astype(dtype)
    return np.concatenate([special_values(dtype), bits, ordinary])[:count]


def round_to(values64: np.ndarray, dtype) -> np.ndarray:
    """float64 -> dtype, round to nearest even (bf16 via float32: innocuous for these results)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return values64.astype(np.float32).astype(dtype) if dtype is BF16 else values64.astype(dtype)


# ----------------------------------------------------------------------------- arithmetic


BINARY_MODELS = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Div": lambda a, b: a / b,
    "Max": lambda a, b: np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a > b, a, b))),
    "Min": lambda a, b: np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, a, b))),
}


def test_binary_float_ops_are_correctly_rounded(harness, tmp_path):
    count = 1000  # not a multiple of the 32-byte block: the count form must stop exactly there
    cases = []
    for dtype_name in ("half", "float"):
        dtype = DTYPES[dtype_name]
        a = random_floats(dtype, 1024)
        b = random_floats(dtype, 1024)[::-1].copy()
        for api in BINARY_MODELS:
            cases.append(Case(api, dtype_name, count, a, b))
    run_cases(harness, cases, tmp_path)
    for case in cases:
        dtype = DTYPES[case.dtype]
        with np.errstate(all="ignore"):
            expected = round_to(BINARY_MODELS[case.api](case.a.astype(np.float64), case.b.astype(np.float64)), dtype)
        assert_same_floats(case.result[:count], expected[:count], f"{case.api}<{case.dtype}>")
        # Elements past the count keep the destination's previous value.
        assert np.all(case.result[count:1024] == 7), f"{case.api}<{case.dtype}> wrote past count"


def test_half_rounding_ties_go_to_even(harness, tmp_path):
    # Exact sums halfway between two halves round to the one with the even mantissa.
    a = np.array([1.0, 1.0, 2048.0, 2048.0, 65504.0, 65504.0, 2.0**-24, -1.0], np.float16)
    b = np.array([2.0**-11, 3 * 2.0**-11, 1.0, 3.0, 16.0, 8.0, 2.0**-24, -(2.0**-11)], np.float16)
    want_add = [1.0, 1.0 + 2.0**-9, 2048.0, 2052.0, np.inf, 65504.0, 2.0**-23, -1.0]
    # Subnormal products: 2^-24 * 0.5 ties between 0 and 2^-24 (-> 0); 3*2^-24 * 0.5 between 2^-24 and 2^-23.
    c = np.array([2.0**-24, 3 * 2.0**-24, -(2.0**-24), 2.0**-14], np.float16)
    d = np.array([0.5, 0.5, 0.5, 0.5], np.float16)
    want_mul = [0.0, 2.0**-23, -0.0, 2.0**-15]
    cases = run_cases(harness, [Case("Add", "half", 8, a, b), Case("Mul", "half", 4, c, d)], tmp_path)
    assert_same_floats(cases[0].result[:8], np.array(want_add, np.float16), "half add ties")
    assert_same_floats(cases[1].result[:4], np.array(want_mul, np.float16), "half subnormal mul ties")


def test_integer_arithmetic_wraps(harness, tmp_path):
    cases = []
    for dtype_name in ("int16", "int32"):
        info = np.iinfo(DTYPES[dtype_name])
        a = np.array([info.max, info.min, -5, 7, 1000, -1, 0, 3] * 4, DTYPES[dtype_name])
        b = np.array([1, -1, 3, -7, 1000, info.min, 0, -3] * 4, DTYPES[dtype_name])
        for api in ("Add", "Sub", "Mul", "Max", "Min"):
            cases.append(Case(api, dtype_name, 32, a, b))
        cases.append(Case("Adds", dtype_name, 32, a, scalar=5))
        cases.append(Case("Muls", dtype_name, 32, a, scalar=-3))
    run_cases(harness, cases, tmp_path)
    for case in cases:
        dtype = DTYPES[case.dtype]
        a64, b64 = case.a.astype(np.int64), (case.b.astype(np.int64) if case.b is not None else None)
        expected = {
            "Add": lambda a, b, s: a + b,
            "Sub": lambda a, b, s: a - b,
            "Mul": lambda a, b, s: a * b,
            "Max": lambda a, b, s: np.maximum(a, b),
            "Min": lambda a, b, s: np.minimum(a, b),
            "Adds": lambda a, b, s: a + s,
            "Muls": lambda a, b, s: a * s,
        }[case.api](a64, b64, case.scalar)
        np.testing.assert_array_equal(case.result[:32], expected.astype(dtype), err_msg=f"{case.api}<{case.dtype}>")


SCALAR_MODELS = {
    "Adds": lambda a, s: a + s,
    "Muls": lambda a, s: a * s,
    "Maxs": lambda a, s: BINARY_MODELS["Max"](a, np.full_like(a, s)),
    "Mins": lambda a, s: BINARY_MODELS["Min"](a, np.full_like(a, s)),
    # src >= 0 ? src : src * s, where -0.0 takes the negative branch (the sign bit decides).
    "LeakyRelu": lambda a, s: np.where(np.signbit(a), a * s, a),
}


def test_scalar_family(harness, tmp_path):
    cases = []
    for dtype_name in ("half", "float"):
        dtype = DTYPES[dtype_name]
        a = random_floats(dtype, 512)
        for api in SCALAR_MODELS:
            for scalar in (0.3, -2.0):
                cases.append(Case(api, dtype_name, 500, a, scalar=dtype(scalar)))
    run_cases(harness, cases, tmp_path)
    for case in cases:
        dtype = DTYPES[case.dtype]
        with np.errstate(all="ignore"):
            expected = round_to(SCALAR_MODELS[case.api](case.a.astype(np.float64), float(case.scalar)), dtype)
        assert_same_floats(case.result[:500], expected[:500], f"{case.api}<{case.dtype}>({case.scalar})")
        assert np.all(case.result[500:512] == 7)


def test_leaky_relu_negative_zero_takes_negative_branch(harness, tmp_path):
    a = np.array([-0.0, 0.0, -1.0, 2.0] * 4, np.float16)
    (case,) = run_cases(harness, [Case("LeakyRelu", "half", 16, a, scalar=np.float16(-2.0))], tmp_path)
    assert np.signbit(case.result[0]) == False and case.result[0] == 0  # -0 * -2 = +0  # noqa: E712
    assert np.signbit(case.result[1]) == False  # noqa: E712
    assert case.result[2] == 2.0 and case.result[3] == 2.0


UNARY_EXACT = {
    "Abs": np.abs,
    "Sqrt": np.sqrt,
    "Reciprocal": lambda x: 1.0 / x,
    "Relu": lambda x: np.where(np.isnan(x), x, np.where(x > 0, x, 0.0)),
}
UNARY_ONE_ULP = {"Exp": np.exp, "Ln": np.log}


def test_unary_ops(harness, tmp_path):
    cases = []
    for dtype_name in ("half", "float"):
        dtype = DTYPES[dtype_name]
        a = random_floats(dtype, 800)
        for api in [*UNARY_EXACT, *UNARY_ONE_ULP]:
            cases.append(Case(api, dtype_name, 777, a))
    run_cases(harness, cases, tmp_path)
    for case in cases:
        dtype = DTYPES[case.dtype]
        with np.errstate(all="ignore"):
            model = {**UNARY_EXACT, **UNARY_ONE_ULP}[case.api]
            expected = round_to(model(case.a.astype(np.float64)), dtype)[:777]
        actual = case.result[:777]
        if case.api in UNARY_EXACT:
            assert_same_floats(actual, expected, f"{case.api}<{case.dtype}>")
        else:
            finite = np.isfinite(expected.astype(np.float64))
            assert np.array_equal(np.isnan(actual), np.isnan(expected)), case.api
            assert np.array_equal(actual[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])
            assert ulps_between(actual[finite], expected[finite]).max() <= 1, f"{case.api}<{case.dtype}> > 1 ulp"
        assert np.all(case.result[777:800] == 7)


# The advanced math APIs (and the basic Rsqrt): independent float64 models, one rounding.
MATH_EXACT = {
    "Sign": lambda x: np.where(x > 0, 1.0, np.where(x < 0, -1.0, 0.0)),  # NaN -> 0, -0 -> +0 (torch.sign)
    "Floor": np.floor,
    "Trunc": np.trunc,
}
MATH_ONE_ULP = {
    "Rsqrt": lambda x: 1.0 / np.sqrt(x),
    "Tanh": np.tanh,
    "Erf": np.vectorize(math.erf, otypes=[np.float64]),
    "Sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
}


def test_math_apis(harness, tmp_path):
    cases = []
    for dtype_name in ("half", "float"):
        a = random_floats(DTYPES[dtype_name], 800)
        cases += [Case(api, dtype_name, 777, a) for api in [*MATH_EXACT, *MATH_ONE_ULP]]
    run_cases(harness, cases, tmp_path)
    for case in cases:
        dtype = DTYPES[case.dtype]
        with np.errstate(all="ignore"):
            expected = round_to({**MATH_EXACT, **MATH_ONE_ULP}[case.api](case.a.astype(np.float64)), dtype)[:777]
        actual = case.result[:777]
        if case.api in MATH_EXACT:
            assert_same_floats(actual, expected, f"{case.api}<{case.dtype}>")
        else:
            assert np.array_equal(np.isnan(actual), np.isnan(expected)), case.api
            special = ~np.isfinite(expected.astype(np.float64)) | (expected == 0)
            assert_same_floats(actual[special], expected[special], f"{case.api}<{case.dtype}> specials")
            assert ulps_between(actual[~special], expected[~special]).max() <= 1, f"{case.api}<{case.dtype}>"
        assert np.all(case.result[777:800] == 7), f"{case.api} wrote past count"
    ramp = np.linspace(-50, 50, 64, dtype=np.float32) + np.float32(0.3)
    (whole,) = run_cases(harness, [Case("TruncWholeTensor", "float", 64, ramp)], tmp_path / "whole")
    assert_same_floats(whole.result, np.trunc(ramp), "Trunc(dst, src) over the whole source")
    sign = next(c for c in cases if c.api == "Sign" and c.dtype == "float")
    assert not np.signbit(sign.result[1]) and sign.result[8] == 0  # sign(-0) = +0, sign(NaN) = 0


def test_math_apis_refuse_overlap_bf16_and_socs_without_them(harness, tmp_path):
    a = random_floats(np.float32, 64)
    cases = run_cases(
        harness,
        [
            Case("TanhInPlace", "float", 64, a),
            Case("ErfTmpOverlap", "float", 64, a),
            Case("ErfWithTmp", "float", 64, a, mask=np.zeros(256, np.uint8)),
            Case("Tanh", "bf16", 64, random_floats(BF16, 64)),
        ],
        tmp_path / "a2",
    )
    assert "OPERAND_OVERLAP" in cases[0].error and "api=Tanh" in cases[0].error
    assert "OPERAND_OVERLAP" in cases[1].error and "sharedTmpBuffer" in cases[1].error
    assert cases[2].error is None
    expected = round_to(MATH_ONE_ULP["Erf"](a.astype(np.float64)), np.float32)
    assert ulps_between(cases[2].result[:64], expected).max() <= 1
    assert "DTYPE_UNSUPPORTED" in cases[3].error
    # Atlas training (ascend910) has Sigmoid but none of the math APIs; Ascend 950 takes no bfloat16 here either
    legacy = run_cases(
        harness,
        [Case("Tanh", "half", 32, random_floats(np.float16, 32)), Case("Sigmoid", "float", 32, a)],
        tmp_path / "legacy",
        soc="ascend910",
    )
    assert "not available on this SoC" in legacy[0].error and legacy[1].error is None
    (bf16,) = run_cases(harness, [Case("Erf", "bf16", 32, random_floats(BF16, 32))], tmp_path / "a5", soc="ascend950")
    assert "DTYPE_UNSUPPORTED" in bf16.error


def test_function_table_availability_is_what_the_twin_enforces(harness, tmp_path):
    # The function table says which SoCs have each API its lowerings call, and whether it takes bfloat16.
    half = random_floats(np.float16, 32)
    for soc in SOCS:
        apis = list(F.VECTOR_APIS.values())
        cases = run_cases(harness, [Case(api.name, "half", 32, half) for api in apis], tmp_path / soc.name, soc.name)
        for api, case in zip(apis, cases, strict=True):
            assert (case.error is None) == (not api.archs or soc.arch in api.archs), (api.name, soc.name, case.error)
    bf16 = random_floats(BF16, 32)
    apis = list(F.VECTOR_APIS.values())
    cases = run_cases(harness, [Case(api.name, "bf16", 32, bf16) for api in apis], tmp_path / "bf16", "ascend950")
    for api, case in zip(apis, cases, strict=True):
        assert (case.error is None) == api.bf16, (api.name, case.error)


def test_duplicate_and_ub_copy(harness, tmp_path):
    a = np.arange(64, dtype=np.float32)
    cases = [
        Case("Duplicate", "half", 37, np.zeros(64, np.float16), scalar=np.float16(-1.5)),
        Case("Duplicate", "int32", 9, np.zeros(16, np.int32), scalar=np.int32(-42)),
        Case("DataCopyUbToUb", "float", 56, a),
    ]
    run_cases(harness, cases, tmp_path)
    np.testing.assert_array_equal(cases[0].result[:37], np.full(37, -1.5, np.float16))
    assert np.all(cases[0].result[37:64] == 7)
    np.testing.assert_array_equal(cases[1].result[:9], np.full(9, -42, np.int32))
    assert np.all(cases[1].result[9:16] == 7)
    np.testing.assert_array_equal(cases[2].result[:56], a[:56])
    assert np.all(cases[2].result[56:] == 7)


def test_bf16_arithmetic_on_ascend950_rounds_to_nearest_even(harness, tmp_path):
    a = random_floats(BF16, 256)
    b = random_floats(BF16, 256)[::-1].copy()
    cases = [Case(api, "bf16", 256, a, b) for api in ("Add", "Mul", "Div")]
    run_cases(harness, cases, tmp_path, soc="ascend950")
    for case in cases:
        with np.errstate(all="ignore"):
            expected = round_to(BINARY_MODELS[case.api](a.astype(np.float64), b.astype(np.float64)), BF16)
        assert_same_floats(case.result[:256], expected, f"{case.api}<bf16> on ascend950")


def test_masked_repeat_forms(harness, tmp_path):
    # Add, continuous mask 100 of 128 half lanes, 3 repeats, src1 read with repeat stride 4 blocks.
    a = np.arange(3 * 128, dtype=np.float16)
    b = (np.arange(3 * 128) % 7).astype(np.float16)
    bits = np.zeros(32, np.uint8)
    bits[:8] = np.packbits(np.arange(64) % 3 == 0, bitorder="little")  # lanes 0, 3, 6, ... of 64 float lanes
    x = RNG.normal(size=2 * 64).astype(np.float32)
    cases = [
        Case("AddMasked", "half", 3, a, b, mode=100, params=(1, 1, 1, 8, 8, 4)),
        Case("MulsMaskedBits", "float", 2, x, mask=bits, scalar=np.float32(3.0), params=(1, 1, 8, 8)),
        Case("DuplicateMasked", "float", 2, np.zeros(128, np.float32), scalar=np.float32(5.0), mode=10, params=(2, 8)),
    ]
    run_cases(harness, cases, tmp_path)

    expected = np.full(3 * 128, 7, np.float16)
    for repeat in range(3):
        lanes = np.arange(100)
        expected[repeat * 128 + lanes] = (
            a[repeat * 128 + lanes].astype(np.float64) + b[repeat * 64 + lanes].astype(np.float64)
        ).astype(np.float16)
    np.testing.assert_array_equal(cases[0].result[: 3 * 128], expected)

    expected = np.full(2 * 64, 7, np.float32)
    lanes = np.nonzero(np.arange(64) % 3 == 0)[0]
    for repeat in range(2):
        expected[repeat * 64 + lanes] = (x[repeat * 64 + lanes].astype(np.float64) * 3.0).astype(np.float32)
    np.testing.assert_array_equal(cases[1].result[:128], expected)

    # 10 lanes per repeat with block stride 2: lanes 0-7 in block 0, lanes 8-9 in block 2.
    expected = np.full(128, 7, np.float32)
    for repeat in range(2):
        for lane in range(10):
            expected[repeat * 64 + (lane // 8) * 2 * 8 + lane % 8] = 5.0
    np.testing.assert_array_equal(cases[2].result[:128], expected)


# ----------------------------------------------------------------------------- compare / select


COMPARE_MODELS = {
    "LT": np.less,
    "GT": np.greater,
    "EQ": np.equal,
    "LE": np.less_equal,
    "GE": np.greater_equal,
    "NE": np.not_equal,
}


def test_compare_bit_mask_layout(harness, tmp_path):
    cases = []
    for dtype_name, count in (("half", 256), ("float", 128)):
        dtype = DTYPES[dtype_name]
        a = random_floats(dtype, count)
        b = a.copy()
        b[::3] = random_floats(dtype, count)[::3]  # a third differ, the rest are equal (NaNs included)
        for mode_index in range(len(CMP_MODES)):
            out = np.full(count // 8, 0xAA, np.uint8)
            cases.append(Case("Compare", dtype_name, count, a, b, out=out, dst_dtype="uint8", mode=mode_index))
            cases.append(
                Case("Compares", dtype_name, count, a, out=out, dst_dtype="uint8", mode=mode_index, scalar=dtype(0.5))
            )
    run_cases(harness, cases, tmp_path)
    for case in cases:
        mode = CMP_MODES[case.mode]
        rhs = case.b if case.api == "Compare" else np.full_like(case.a, case.scalar)
        with np.errstate(invalid="ignore"):
            truth = COMPARE_MODELS[mode](case.a.astype(np.float64), rhs.astype(np.float64))
        expected = np.packbits(truth, bitorder="little")  # element i -> bit i % 8 of byte i // 8
        np.testing.assert_array_equal(case.result[: case.count // 8], expected, err_msg=f"{case.api} {mode}")


def test_int32_compares_for_equality_only_on_a2_a3(harness, tmp_path):
    # asc-devkit's Compare/CompareScalar type lists: A2/A3 take int32_t for CMPMODE::EQ only
    a = np.array([2**31 - 1, -(2**31), 7, -7, 0, 16777217] * 11, np.int32)[:64]
    b = a.copy()
    b[::2] = 16777216  # equal to a float32-rounded 16777217, not to the int32
    eq, gt = CMP_MODES.index("EQ"), CMP_MODES.index("GT")
    cases = [
        Case("Compare", "int32", 64, a, b, dst_dtype="uint8", mode=eq),
        Case("CompareScalar", "int32", 64, a, dst_dtype="uint8", mode=eq, scalar=np.int32(16777217)),
        Case("Compares", "int32", 64, a, dst_dtype="uint8", mode=gt, scalar=np.int32(0)),
    ]
    compare, scalar, refused = run_cases(harness, cases, tmp_path, soc="ascend910b")
    assert compare.error is None and scalar.error is None
    np.testing.assert_array_equal(compare.result[:8], np.packbits(a == b, bitorder="little"))
    np.testing.assert_array_equal(scalar.result[:8], np.packbits(a == 16777217, bitorder="little"))
    assert refused.error is not None and "CMPMODE::EQ only" in refused.error


def test_compare_scalar_old_name(harness, tmp_path):
    a = np.arange(128, dtype=np.float32) - 64
    (case,) = run_cases(
        harness, [Case("CompareScalar", "float", 128, a, dst_dtype="uint8", mode=1, scalar=np.float32(0))], tmp_path
    )
    np.testing.assert_array_equal(case.result[:16], np.packbits(a > 0, bitorder="little"))


def test_select_modes(harness, tmp_path):
    count = 300  # more than two 128-lane half repeats
    a = np.arange(count, dtype=np.float16)
    b = -np.arange(count, dtype=np.float16)
    bits = RNG.integers(0, 2, size=384).astype(bool)
    mask = np.packbits(bits, bitorder="little")
    cases = [
        Case("Select", "half", count, a, b, mask=mask, mode=0),  # VSEL_CMPMASK_SPR
        Case("Select", "half", count, a, mask=mask, mode=1, scalar=np.float16(99)),  # VSEL_TENSOR_SCALAR_MODE
        Case("Select", "half", count, a, b, mask=mask, mode=2),  # VSEL_TENSOR_TENSOR_MODE
        Case("Select", "float", 100, a.astype(np.float32), b.astype(np.float32), mask=mask, mode=0),
    ]
    run_cases(harness, cases, tmp_path)
    index = np.arange(count)
    # Mode 0 reuses the first repeat's bits (128 for half, 64 for float) in every repeat; bit 1 takes src0.
    np.testing.assert_array_equal(cases[0].result[:count], np.where(bits[index % 128], a, b))
    np.testing.assert_array_equal(cases[1].result[:count], np.where(bits[index], a, np.float16(99)))
    np.testing.assert_array_equal(cases[2].result[:count], np.where(bits[index], a, b))
    index = np.arange(100)
    np.testing.assert_array_equal(
        cases[3].result[:100], np.where(bits[index % 64], a[:100], b[:100]).astype(np.float32)
    )


# ----------------------------------------------------------------------------- cast


def _neighbours(nearest: np.ndarray, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        down = np.nextafter(nearest, np.array(-np.inf, dtype=dtype))
        up = np.nextafter(nearest, np.array(np.inf, dtype=dtype))
    return down, up


def round_float_model(x64: np.ndarray, dtype, mode: str, nearest: np.ndarray) -> np.ndarray:
    """Directed rounding of exact values x64 to a float dtype, from the round-to-nearest-even result."""
    if mode in ("CAST_NONE", "CAST_RINT"):
        return nearest
    down, up = _neighbours(nearest, dtype)
    n64 = nearest.astype(np.float64)
    with np.errstate(invalid="ignore"):
        below = np.where(n64 > x64, down, nearest)  # largest value <= x
        above = np.where(n64 < x64, up, nearest)  # smallest value >= x
    exact = n64 == x64
    if mode == "CAST_FLOOR":
        result = below
    elif mode == "CAST_CEIL":
        result = above
    elif mode == "CAST_TRUNC":
        result = np.where(x64 < 0, above, below)
    elif mode == "CAST_ROUND":
        with np.errstate(invalid="ignore"):
            lower, upper = below.astype(np.float64), above.astype(np.float64)
            tie = (x64 - lower) == (upper - x64)
        away = np.where(x64 < 0, below, above)
        result = np.where(tie & ~exact, away, nearest)
    elif mode == "CAST_ODD":
        lsb = bits(below) & 1
        result = np.where(exact, nearest, np.where(lsb == 1, below, above))
    else:
        raise ValueError(mode)
    specials = ~np.isfinite(x64)
    return np.where(specials, nearest, result).astype(dtype)


def round_int_model(x64: np.ndarray, dtype, mode: str) -> np.ndarray:
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        rounded = {
            "CAST_NONE": np.rint,
            "CAST_RINT": np.rint,
            "CAST_FLOOR": np.floor,
            "CAST_CEIL": np.ceil,
            "CAST_TRUNC": np.trunc,
            "CAST_ROUND": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
        }[mode](x64)
        rounded = np.where(np.isnan(rounded), 0, np.clip(rounded, info.min, info.max))
    return rounded.astype(dtype)


CAST_CASES = [
    # (src, dst, legal modes on A2/A3)
    ("float", "half", ROUND_MODES),
    ("float", "bf16", ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("half", "float", ["CAST_NONE"]),
    ("bf16", "float", ["CAST_NONE"]),
    ("float", "int32", ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("half", "int8", ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("int32", "float", ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("float", "float", ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("int8", "half", ["CAST_NONE"]),
    # the integer kernels' carriers: uint8 through half, int16 through float (exact both ways)
    ("uint8", "half", ["CAST_NONE"]),
    ("half", "uint8", ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
    ("int16", "float", ["CAST_NONE"]),
    ("float", "int16", ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"]),
]


def _cast_input(src: str) -> np.ndarray:
    if src == "float":
        ties = np.array(
            [
                1 + 2.0**-11,
                1 + 3 * 2.0**-11,
                2.5,
                -2.5,
                0.5,
                -0.5,
                1.5,
                65519.0,
                65520.0,
                70000.0,
                -70000.0,
                2.0**-25,
                3 * 2.0**-26,
                1e-8,
                3e38,
                -3e38,
                128.5,
                -128.5,
                3e9,
                -3e9,
            ],
            np.float32,
        )
        return np.concatenate([ties, special_values(np.float32), random_floats(np.float32, 1000)])[:1024]
    if src == "int32":
        big = np.array([2**24 + 1, 2**24 + 3, -(2**24 + 1), 2**31 - 1, -(2**31), 16777217, 33554435], np.int32)
        return np.concatenate([big, RNG.integers(-(2**31), 2**31, size=249, dtype=np.int64).astype(np.int32)])
    if src == "int8":
        return np.arange(-128, 128, dtype=np.int8)
    if src in ("uint8", "int16"):  # every value of the type, or its extremes and a spread
        info = np.iinfo(DTYPES[src])
        edges = np.array([info.min, info.max, 0, 1, info.max - 1], DTYPES[src])
        spread = RNG.integers(info.min, int(info.max) + 1, size=251).astype(DTYPES[src])
        return np.concatenate([edges, spread])
    return random_floats(DTYPES[src], 1024)


def test_cast_modes(harness, tmp_path):
    cases = []
    for src, dst, modes in CAST_CASES:
        a = _cast_input(src)
        for mode in modes:
            out = np.zeros(a.size, DTYPES[dst])
            cases.append(Case("Cast", src, a.size, a, out=out, dst_dtype=dst, mode=ROUND_MODES.index(mode)))
    run_cases(harness, cases, tmp_path)
    for case in cases:
        assert case.error is None, case.error
        dst = DTYPES[case.dst_dtype]
        mode = ROUND_MODES[case.mode]
        with np.errstate(invalid="ignore"):
            x64 = case.a.astype(np.float64)
        actual = case.result[: case.count]
        what = f"Cast {case.dtype}->{case.dst_dtype} {mode}"
        if np.issubdtype(dst, np.integer):
            np.testing.assert_array_equal(actual, round_int_model(x64, dst, mode), err_msg=what)
            continue
        if case.dtype == "float" and case.dst_dtype == "float":  # rounding to an integral float
            integral = {
                "CAST_RINT": np.rint,
                "CAST_FLOOR": np.floor,
                "CAST_CEIL": np.ceil,
                "CAST_TRUNC": np.trunc,
                "CAST_ROUND": lambda v: np.where(np.isfinite(v), np.sign(v) * np.floor(np.abs(v) + 0.5), v),
            }[mode]
            with np.errstate(invalid="ignore"):
                expected = np.copysign(integral(x64), x64).astype(np.float32)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                nearest = case.a.astype(np.float32).astype(dst) if case.dtype != "int32" else x64.astype(dst)
            expected = round_float_model(x64, dst, mode, nearest)
        assert_same_floats(actual, expected, what)


# ----------------------------------------------------------------------------- DataCopyPad


def datacopypad_in_model(
    gm: bytes,
    ub: bytearray,
    block_count,
    block_len,
    src_stride,
    dst_stride,
    is_pad,
    left,
    right,
    pad_value: bytes,
    elem: int,
) -> bytearray:
    """The documented GM->UB layout: per block [left pad][blockLen data][right pad][dummy to 32 B]."""
    ub = bytearray(ub)
    left_b, right_b = left * elem, right * elem
    padded = left_b + block_len + right_b
    block_ub = -(-padded // 32) * 32
    for i in range(block_count):
        start = i * (block_ub + dst_stride * 32)
        data = gm[i * (block_len + src_stride) : i * (block_len + src_stride) + block_len]
        ub[start + left_b : start + left_b + block_len] = data
        dummy = range(start + padded, start + block_ub)
        if left == 0 and right == 0:
            for k, pos in enumerate(dummy):  # dummy repeats the block's first element
                ub[pos] = data[k % elem]
        else:
            for region in (range(start, start + left_b), range(start + left_b + block_len, start + padded), dummy):
                for k, pos in enumerate(region):
                    ub[pos] = pad_value[k % elem] if is_pad else 0xFF  # unspecified on hardware; twin: NaN bytes
    return ub


def test_datacopypad_padding_rules(harness, tmp_path):
    gm = np.arange(1, 200, dtype=np.float16)
    configs = [
        # blockCount, blockLen bytes, srcStride bytes, dstStride blocks, isPad, left, right
        (1, 40, 0, 0, 1, 0, 2),  # the documented example: 20 halves, right pad 2 -> 44 bytes + dummy
        (3, 22, 4, 1, 1, 1, 3),
        (2, 30, 2, 0, 0, 2, 1),  # no isPad: pads and dummy unspecified
        (3, 10, 6, 0, 0, 0, 0),  # no side padding: the dummy repeats the first element
        (2, 64, 0, 0, 0, 0, 0),  # whole blocks: nothing to pad
    ]
    cases = []
    for count, length, src_stride, dst_stride, is_pad, left, right in configs:
        cases.append(
            Case(
                "DataCopyPadIn",
                "half",
                0,
                gm,
                out=np.full(256, -3, np.float16),
                params=(count, length, src_stride, dst_stride, is_pad, left, right),
                scalar=np.float16(9.0),
            )
        )
    run_cases(harness, cases, tmp_path)
    for case in cases:
        count, length, src_stride, dst_stride, is_pad, left, right = case.params
        expected = datacopypad_in_model(
            gm.tobytes(),
            bytearray(np.full(256, -3, np.float16).tobytes()),
            count,
            length,
            src_stride,
            dst_stride,
            is_pad,
            left,
            right,
            np.float16(9.0).tobytes(),
            2,
        )
        assert case.result.tobytes() == bytes(expected), f"DataCopyPad GM->UB {case.params}"


def test_datacopypad_out_writes_exact_bytes(harness, tmp_path):
    ub = np.arange(64, dtype=np.float32)
    gm_initial = np.full(40, -1, np.float32)
    # 3 blocks of 5 floats (20 B): UB blocks start every 32 B + 1 block gap; GM blocks 8 B apart.
    (case,) = run_cases(
        harness, [Case("DataCopyPadOut", "float", 0, ub, out=gm_initial, params=(3, 20, 1, 8))], tmp_path
    )
    expected = gm_initial.copy()
    for i in range(3):
        expected[i * 7 : i * 7 + 5] = ub[i * 16 : i * 16 + 5]  # UB pitch 32+32 B = 16 floats, GM pitch 28 B = 7
    np.testing.assert_array_equal(case.result, expected)
