"""The numpy-source printer computes what the reference computes (the generated golden tests rely on it);
the C++ printer maps every construct (the AICPU kernels and op_api checks rely on it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opgen import formula as F

SYMBOLS = {"x": F.Symbol.tensor(), "y": F.Symbol.tensor(), "s": F.Symbol.scalar(), "f": F.Symbol.flag()}
FORMULAS = [
    "where(x > 0, y, y * s)",
    "y * where(x > 0, s, where(f, s * (x + 1), s * exp(x * s)))",
    "min(x, y) + max(x, -y) - abs(x) / (1 + x ** 2)",
    "where(x > -3 and x < 3 or not (y >= 0), sqrt(abs(x)), tanh(x) + erf(y) + sigmoid(x))",
    "log1p(abs(x)) + expm1(-abs(y)) + rsqrt(1 + abs(x)) + reciprocal(2 + abs(y)) + sign(x)",
]


@pytest.mark.parametrize("text", FORMULAS)
def test_numpy_source_matches_the_reference(text):
    expr = F.parse(text, SYMBOLS)
    rng = np.random.default_rng(3)
    env = {"x": rng.uniform(-5, 5, 257), "y": rng.uniform(-5, 5, 257), "s": 0.3, "f": True}
    env["x"][:4] = [0.0, -0.0, np.nan, np.inf]
    namespace = {"np": np, "math": math}
    exec(F.NUMPY_HELPERS, namespace)
    with np.errstate(all="ignore"):
        got = eval(F.to_numpy(expr), namespace, dict(env))
    want = F.evaluate(expr, env)
    np.testing.assert_allclose(np.broadcast_to(got, want.shape), want, rtol=1e-12, equal_nan=True)


def test_cpp_source_covers_every_construct():
    expr = F.parse(FORMULAS[3] + " + " + FORMULAS[4], SYMBOLS)
    text = F.to_cpp(expr, {"x": "xData[i]"})
    for piece in ("xData[i]", "std::sqrt", "std::tanh", "std::erf", "&&", "||", "(!", "FormulaSign", "? "):
        assert piece in text
    assert F.to_cpp(F.parse("where(f, x, -inf)", SYMBOLS)) == "(f ? x : (-__builtin_inf()))"
