"""The specs' float64 references are accurate where their values are tiny against their inputs.

Before: GeluBackwardV2's tanh branch was written 0.5 * (1 + tanh(u)) + 0.5 * x * (1 - tanh(u)^2) * ...; below
x = -5 both 1 + tanh(u) and 1 - tanh(u)^2 cancel in float64 (at x = -6.83 the reference was 2 % off).
"""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import every_operator

from opgen.spec.formula_binding import evaluate_reference

mpmath = pytest.importorskip("mpmath")


def _gelu_tanh_derivative(x: float) -> float:
    mpmath.mp.dps = 50
    x = mpmath.mpf(x)
    c = mpmath.sqrt(2 / mpmath.pi)
    t = mpmath.tanh(c * (x + mpmath.mpf("0.044715") * x**3))
    return float(0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * mpmath.mpf("0.044715") * x * x))


def test_gelu_backward_v2_tanh_reference_keeps_its_digits_below_minus_five() -> None:
    spec = every_operator()["gelu_grad_v2"]
    x = np.linspace(-9.0, -5.0, 41)
    got = evaluate_reference(spec, {"gradOutput": np.ones_like(x), "self": x, "approximate": "tanh"}, None)
    want = np.array([_gelu_tanh_derivative(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
