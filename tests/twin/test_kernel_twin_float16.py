"""The twin's `half` and `bfloat16_t` scalar types against numpy float16 and ml_dtypes bfloat16:
conversions (round to nearest even, subnormals, overflow, NaN/inf) and correctly rounded arithmetic."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(99)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> tuple[Path, dict]:
    directory = tmp_path_factory.mktemp("float16")
    program = directory / "float16_check"
    compile_program([KERNELS / "float16_check.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    # Floats: random bit patterns, every half/bf16 midpoint neighbourhood we care about, and specials.
    random_bits = RNG.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    halves = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    finite = halves[np.isfinite(halves)]
    midpoints = ((finite[:-1].astype(np.float64) + finite[1:].astype(np.float64)) / 2).astype(np.float32)
    specials = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            65504,
            65519.99,
            65520,
            1e-8,
            2.0**-25,
            2.0**-26,
            3.0e38,
            3.4e38,
            -3.4e38,
            1.1754944e-38,
            1e-45,
        ],
        np.float32,
    )
    floats = np.concatenate(
        [
            specials,
            random_bits,
            midpoints,
            np.nextafter(midpoints, np.float32(np.inf)),
            np.nextafter(midpoints, np.float32(-np.inf)),
        ]
    )
    floats.tofile(directory / "floats.bin")
    pairs = {}
    for prefix, dtype in (("", np.float16), ("b", BF16)):
        a = RNG.integers(0, 2**16, size=100_000, dtype=np.uint32).astype(np.uint16).view(dtype)
        b = RNG.integers(0, 2**16, size=100_000, dtype=np.uint32).astype(np.uint16).view(dtype)
        a.tofile(directory / f"{prefix}a.bin" if prefix else directory / "a.bin")
        b.tofile(directory / f"{prefix}b.bin" if prefix else directory / "b.bin")
        pairs[prefix] = (a, b)
    stdout = subprocess.run([str(program), str(directory)], check=True, capture_output=True, text=True).stdout
    return directory, {"floats": floats, "pairs": pairs, "stdout": stdout}


def same_bits_or_both_nan(actual_bits: np.ndarray, expected: np.ndarray) -> None:
    expected_bits = expected.view(np.uint16)
    with np.errstate(invalid="ignore"):
        nan = np.isnan(expected.astype(np.float32))
        actual_nan = np.isnan(actual_bits.view(expected.dtype).astype(np.float32))
    np.testing.assert_array_equal(actual_nan, nan)
    mismatch = np.nonzero(actual_bits[~nan] != expected_bits[~nan])[0]
    assert mismatch.size == 0, f"{mismatch.size} mismatches, first {mismatch[:5]}"


def test_float_to_half_and_bf16_round_to_nearest_even(results):
    directory, data = results
    floats = data["floats"]
    with np.errstate(over="ignore", invalid="ignore"):
        same_bits_or_both_nan(np.fromfile(directory / "to_half.bin", np.uint16), floats.astype(np.float16))
        same_bits_or_both_nan(np.fromfile(directory / "to_bf16.bin", np.uint16), floats.astype(BF16))


def test_all_16_bit_patterns_widen_exactly(results):
    directory, _ = results
    patterns = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    for name, dtype in (("half_to_float.bin", np.float16), ("bf16_to_float.bin", BF16)):
        actual = np.fromfile(directory / name, np.float32)
        expected = patterns.view(dtype).astype(np.float32)
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(actual), nan)
        np.testing.assert_array_equal(actual[~nan].view(np.uint32), expected[~nan].view(np.uint32))


@pytest.mark.parametrize("prefix, dtype", [("", np.float16), ("b", BF16)], ids=["half", "bf16"])
def test_scalar_arithmetic_is_correctly_rounded(results, prefix, dtype):
    directory, data = results
    a, b = data["pairs"][prefix]
    with np.errstate(all="ignore"):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        models = {"add": a64 + b64, "sub": a64 - b64, "mul": a64 * b64, "div": a64 / b64}
        for op, exact in models.items():
            # Round once from float64 (bf16 through float32, which cannot change an exact-or-53-bit result).
            expected = exact.astype(np.float32).astype(dtype) if dtype is BF16 else exact.astype(dtype)
            actual = np.fromfile(directory / f"{prefix}{op}.bin", np.uint16)
            same_bits_or_both_nan(actual, expected)


def test_mixed_expressions_follow_builtin_promotion(results):
    _, data = results
    assert data["stdout"].strip() == "mixed 1 1 3 3"
