"""numpy reference: float64 evaluation, PyTorch NaN semantics, broadcasting, rounding once to the output dtype."""

from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from random_formulas import SYMBOLS

from opgen.formula import evaluate, parse, round_to_dtype

BF16 = ml_dtypes.bfloat16
NAN, INF = math.nan, math.inf


def p(text: str):
    return parse(text, SYMBOLS)


def test_where_takes_the_else_branch_for_nan_like_torch(torch):
    x = np.array([NAN, 1.0, -1.0, 0.0])
    grad = np.array([2.0, 2.0, 2.0, 2.0])
    got = evaluate(p("where(x > 0, y, y * s)"), {"x": x, "y": grad, "s": 0.5}, np.float64)
    want = torch.ops.aten.leaky_relu_backward(torch.from_numpy(grad), torch.from_numpy(x), 0.5, False).numpy()
    np.testing.assert_array_equal(got, [1.0, 2.0, 1.0, 1.0])
    np.testing.assert_array_equal(got, want)


def test_min_max_propagate_nan_like_torch(torch):
    x = np.array([NAN, 1.0, -INF, 7.0])
    got = evaluate(p("clamp(x, 0, 6)"), {"x": x})
    want = torch.clamp(torch.from_numpy(x), 0, 6).numpy()
    np.testing.assert_array_equal(got, want)  # assert_array_equal treats NaN == NaN
    assert np.isnan(got[0])


def test_math_functions_match_torch_on_special_values(torch):
    x = np.array([NAN, INF, -INF, 0.0, -0.0, 1e-300, -2.5, 0.75, 30.0, -800.0])
    functions = {
        "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
        "reciprocal": torch.reciprocal, "tanh": torch.tanh, "erf": torch.erf, "sigmoid": torch.sigmoid,
        "log1p": torch.log1p, "expm1": torch.expm1, "sign": torch.sign,
    }  # fmt: skip
    for name, torch_fn in functions.items():
        got = evaluate(p(f"{name}(x)"), {"x": x}, np.float64)
        want = torch_fn(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-15, atol=0, equal_nan=True, err_msg=name)


def test_power_with_special_bases_matches_torch(torch):
    x = np.array([NAN, INF, -INF, 0.0, -0.0, -8.0, 2.0, 0.5])
    for exponent in (2.0, 0.5, -1.0, 3.0, 0.0, 1 / 3):
        got = evaluate(p(f"x ** {exponent!r}"), {"x": x}, np.float64)
        want = torch.pow(torch.from_numpy(x), exponent).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-15, equal_nan=True, err_msg=str(exponent))


def test_no_warnings_on_inf_and_nan_paths():
    x = np.array([0.0, -1.0, INF, -INF, NAN, 1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(p("where(x > 0, log(x) / x, sqrt(x) * exp(x * 1e10) - x / 0)"), {"x": x}, np.float32)


def test_inputs_upcast_and_computed_in_float64():
    # 1 + 2**-30 is not a float32; computed in float64 then rounded, (x + 2**-30) - x gives 2**-30 exactly.
    x = np.array([1.0, 1024.0], dtype=np.float32)
    got = evaluate(p("(x + s) - x"), {"x": x, "s": 2.0**-30}, np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [2.0**-30, 2.0**-30])


def test_bfloat16_and_float16_inputs():
    x = np.array([1.5, -2.25, 3.0], dtype=BF16)
    y = np.array([0.5, 0.25, -1.0], dtype=np.float16)
    got = evaluate(p("x * y"), {"x": x, "y": y}, BF16)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.astype(np.float64), [0.75, -0.5625, -3.0])


def test_broadcasting_and_result_shape():
    x = np.arange(6.0).reshape(2, 3)
    y = np.array([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(evaluate(p("x + y"), {"x": x, "y": y}), x + y)
    # the result takes the common shape of every tensor used, even where a branch is uniform
    got = evaluate(p("where(f, s, x)"), {"x": x, "s": 2.0, "f": True}, np.float32)
    assert got.shape == (2, 3) and np.all(got == 2.0)
    assert evaluate(p("s * 2"), {"s": 1.5}).shape == ()
    empty = evaluate(p("erf(x)"), {"x": np.zeros((0, 4))}, np.float16)
    assert empty.shape == (0, 4) and empty.dtype == np.float16


def test_boolean_formulas_give_bool_arrays():
    got = evaluate(p("x > s and not f"), {"x": np.array([1.0, 3.0]), "s": 2.0, "f": False})
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, [False, True])


@pytest.mark.parametrize(
    "env,message",
    [
        ({"x": np.ones(2)}, "no value given for 's'"),
        ({"x": np.ones(2), "s": np.ones(2)}, "scalar 's' needs a single number"),
        ({"x": np.array(["a"]), "s": 1.0}, "'x' needs numbers"),
    ],
)
def test_bad_environments(env, message):
    with pytest.raises(ValueError, match=message):
        evaluate(p("x * s"), env)


def test_flags_must_be_bools():
    with pytest.raises(ValueError, match="flag 'f' needs a bool"):
        evaluate(p("where(f, x, 0)"), {"x": np.ones(2), "f": 1})


def _bits_neighbours(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bits = value.view(np.uint16)
    return (bits - 1).view(BF16), (bits + 1).view(BF16)


def test_bfloat16_rounding_is_single_and_to_nearest_even():
    # 1 + 2**-8 + 2**-30: float32 first would round to the tie 1 + 2**-8, then to even 1.0 (double rounding).
    cases = {
        1 + 2**-8 + 2**-30: 1 + 2**-7,
        1 + 2**-8: 1.0,  # tie, to even
        1 + 3 * 2**-8: 1 + 2**-6,  # tie, to even (upwards)
        -(1 + 2**-8 + 2**-40): -(1 + 2**-7),
        (2 - 2**-8) * 2.0**127: INF,  # tie above the largest bfloat16 (odd mantissa): rounds up, overflows
        (2 - 2**-8) * 2.0**127 * (1 - 2**-30): (2 - 2**-7) * 2.0**127,
        2.0**-133 * 0.5: 0.0,  # half the smallest subnormal: tie to even zero
        2.0**-133 * 0.75: 2.0**-133,
        2.0**-127 + 2.0**-135: 2.0**-127,
    }
    values = np.array(list(cases))
    got = round_to_dtype(values, BF16).astype(np.float64)
    np.testing.assert_array_equal(got, list(cases.values()))


def test_bfloat16_rounding_picks_the_nearest_neighbour():
    rng = np.random.default_rng(5)
    values = np.concatenate(
        [rng.standard_normal(4000) * 10.0 ** rng.integers(-40, 38, 4000), rng.standard_normal(500) * 1e-39]
    )
    rounded = round_to_dtype(values, BF16)
    zero = rounded.astype(np.float64) == 0
    assert np.all(np.abs(values[zero]) <= 2.0**-134)  # half the smallest subnormal at most
    values, rounded = values[~zero], rounded[~zero]
    below, above = _bits_neighbours(rounded)
    err = np.abs(values - rounded.astype(np.float64))
    assert np.all(err <= np.abs(values - below.astype(np.float64)))
    assert np.all(err <= np.abs(values - above.astype(np.float64)))


def test_special_values_survive_rounding():
    values = np.array([NAN, INF, -INF, -0.0, 0.0])
    for dtype in (np.float16, np.float32, BF16):
        got = round_to_dtype(values, dtype).astype(np.float64)
        assert np.isnan(got[0]) and got[1] == INF and got[2] == -INF
        assert math.copysign(1, got[3]) == -1 and math.copysign(1, got[4]) == 1


def test_float16_output_is_rounded_once():
    x = np.array([1 + 2**-11 + 2**-40])  # float32 would round to the float16 tie first
    assert evaluate(p("x"), {"x": x}, np.float16).astype(np.float64)[0] == 1 + 2**-10
