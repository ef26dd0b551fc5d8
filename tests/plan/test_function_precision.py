"""Measured precision of each math function's lowering, held to the figures the function table records (and
docs/formula-functions.md shows) and to the ops-nn precision standard.

The lowered program of `f(x)` runs in the numpy model of a kernel (bit-exact with the twin: see
test_function_lowering.py) with the compute dtype equal to the storage dtype, over a dense sweep: every finite
float16 and bfloat16 value, and for float32 log-spaced magnitudes over the whole range, a dense uniform band
and the regions where naive forms fail (next to 0 for log1p/expm1, next to -1 for log1p, next to +-1 for
erfinv, the branch switches of the compositions). It is compared with the exact (float64) function of the
same input.

Error of an element: min(abs error, rel error), so that "every element passes abs <= t or rel <= t" is
"max error <= t", with t from the ops-nn standard (CANN's precision standards: 1e-4 float32, 双万分之一; 1e-3
float16, 双千分之一; 4e-3 bfloat16). A function whose error in a narrow dtype exceeds t is computed in float by
the kernels (test_lowering.py checks that), so the standard holds for every generated kernel.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from opgen import formula as F
from opgen.plan.kernel_model import run_program
from opgen.plan.lowering import LoweringError, lower
from opgen.spec.dtypes import DType

DTYPES = {"float32": DType.FLOAT, "float16": DType.FLOAT16, "bfloat16": DType.BFLOAT16}
SYMBOLS = {"x": F.Symbol.tensor()}


def sweep(dtype: DType) -> np.ndarray:
    """The inputs of the measurement, in `dtype`."""
    if dtype is not DType.FLOAT:
        values = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(dtype.numpy)
        with np.errstate(invalid="ignore"):  # NaN patterns with payloads
            return values[np.isfinite(values.astype(np.float64))]
    rng = np.random.default_rng(2024)
    magnitudes = np.logspace(-45, 38.5, 120_000)
    one = np.float32(1)
    below_one = one - np.arange(1, 20_001, dtype=np.float32) * np.float32(2**-24)  # next to +-1 (erfinv)
    parts = [
        magnitudes,
        -magnitudes,
        rng.uniform(-8, 8, 100_000),
        rng.uniform(-1, 1, 50_000),
        below_one,
        -below_one,
        -one + np.arange(1, 20_001, dtype=np.float32) * np.float32(2**-24),  # next to -1 from above (log1p)
        rng.uniform(0.45, 0.55, 10_000),  # expm1's branch switch at |x| = 0.5
        rng.uniform(-0.55, -0.45, 10_000),
        rng.uniform(0.99, 0.999, 20_000),  # erfinv's branch switch at w = 5 (|y| ~ 0.9966)
        rng.uniform(80, 89, 10_000),  # exp/expm1 next to overflow
    ]
    with np.errstate(over="ignore"):
        return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts]).astype(np.float32)


def measure(function: str, dtype: DType) -> float | None:
    """The max error of the lowered `function` computed in `dtype`; None when it does not lower for that
    compute dtype. Special results (inf, NaN) must match exactly."""
    expr = F.parse(f"{function}(x)", SYMBOLS)
    try:
        program = lower(expr, inputs=["x"], storage=dtype, compute=dtype)
    except LoweringError:
        return None
    x = sweep(dtype)
    got = np.asarray(run_program(program, {"x": x}, {})).astype(np.float64)
    exact = F.evaluate(expr, {"x": x.astype(np.float64)})
    rounded = F.round_to_dtype(exact, dtype.numpy).astype(np.float64)
    special = ~np.isfinite(rounded)
    same = (got[special] == rounded[special]) | (np.isnan(got[special]) & np.isnan(rounded[special]))
    assert same.all(), f"{function} in {dtype.value}: special results differ at x = {x[special][~same][:5]}"
    finite = ~special
    assert np.isfinite(got[finite]).all(), (
        f"{function}: non-finite results at x = {x[finite][~np.isfinite(got[finite])][:5]}"
    )
    abs_err = np.abs(got[finite] - exact[finite])
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(exact[finite] != 0, abs_err / np.abs(exact[finite]), abs_err)
    return float(np.minimum(abs_err, rel_err).max())


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("function", list(F.FUNCTIONS), ids=list(F.FUNCTIONS))
def test_lowering_precision_is_as_recorded_and_meets_the_standard(function, dtype):
    recorded = F.FUNCTIONS[function].max_error[dtype]
    measured = measure(function, DTYPES[dtype])
    if recorded is None:
        assert measured is None, f"{function}: lowers for {dtype} compute, record its error"
        return
    assert measured is not None, f"{function}: the table records an error for {dtype}, but it does not lower"
    assert measured <= recorded, f"{function} in {dtype}: max error {measured:.3g} exceeds the recorded {recorded}"
    # the record stays informative: at most 10% above what is measured
    assert recorded <= measured * 1.1, f"{function} in {dtype}: recorded {recorded}, measured {measured:.3g}"
    if dtype == "float32":  # float is the fallback of the narrow dtypes, so it must meet the standard itself
        assert F.FUNCTIONS[function].precise_in(dtype), f"{function}: {measured:.3g} fails {F.ELEMENT_TOLERANCE[dtype]}"


def test_naive_forms_would_fail_where_the_lowering_holds():
    # The regions the sweep covers are where log(1 + x) and exp(x) - 1 lose everything: near 0 in float32.
    x = np.float32(1e-6)
    naive_log1p = np.log(np.float32(1) + x).astype(np.float32)
    assert abs(naive_log1p - np.log1p(np.float64(x))) / np.log1p(np.float64(x)) > 1e-2
    program = lower(F.parse("log1p(x)", SYMBOLS), inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT)
    got = run_program(program, {"x": np.array([x])}, {})[0]
    assert abs(got - np.log1p(np.float64(x))) / np.log1p(np.float64(x)) < 2e-7


def test_bfloat16_sweep_is_every_finite_value():
    values = sweep(DType.BFLOAT16)
    assert (
        values.dtype == np.dtype(ml_dtypes.bfloat16) and values.size == 2**16 - 2 * 2**7
    )  # all but the 256 inf/NaN patterns
