"""Formulas computed on complex values (the AICPU kernel's routed COMPLEX64/COMPLEX128): which formulas have a
complex meaning, the complex128 evaluation against torch, and the C++ printer's spelling (Smith's division)."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import formula as F
from opgen.formula.complex import complex_problem, evaluate_complex, to_cpp_complex

SYMBOLS = {"x": F.Symbol.tensor(), "y": F.Symbol.tensor(), "a": F.Symbol.scalar(), "on": F.Symbol.flag()}


def _parse(text: str) -> F.Expr:
    return F.parse(text, SYMBOLS)


@pytest.mark.parametrize(
    "text",
    ["sigmoid(x)", "x * sigmoid(x) - a / y", "exp(-x) + log(y) * sqrt(x)", "tanh(x) * square(y) + rsqrt(x)"],
)
def test_formulas_with_a_complex_meaning_are_accepted(text):
    assert complex_problem(_parse(text)) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("where(x > 0, x, y)", "has no complex meaning"),
        ("max(x, 0)", "max() has no complex meaning"),
        ("x ** 2", "'**' has no complex meaning"),
        ("erf(x)", "erf() has no complex definition"),
        ("abs(x) * y", "abs() has no complex definition"),
        ("x + inf", "is not a finite number"),
    ],
)
def test_formulas_without_one_are_refused(text, why):
    problem = complex_problem(_parse(text))
    assert problem is not None and why in problem


def test_evaluation_equals_torch_in_complex128():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, 64) + 1j * rng.uniform(-4, 4, 64)
    y = rng.uniform(0.5, 3, 64) + 1j * rng.uniform(-3, 3, 64)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    cases = {
        "sigmoid(x)": torch.sigmoid(tx),
        "x * sigmoid(x) - 0.5 / y": tx * torch.sigmoid(tx) - 0.5 / ty,
        "exp(-x) + log(y) * sqrt(x)": torch.exp(-tx) + torch.log(ty) * torch.sqrt(tx),
        "tanh(x) * square(y) + rsqrt(y)": torch.tanh(tx) * ty * ty + torch.rsqrt(ty),
    }
    for text, want in cases.items():
        got = evaluate_complex(_parse(text), {"x": x, "y": y})
        assert got.dtype == np.complex128
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-13, atol=1e-15, err_msg=text)


def test_sigmoid_at_an_infinite_denominator_is_nan_as_in_numpy_and_torch():
    # exp(inf - inf i) is inf + nan i: Smith's division makes NaN of 1 / (1 + that), C's recovers 0
    got = evaluate_complex(_parse("sigmoid(x)"), {"x": np.array([complex(-np.inf, np.inf)])})
    assert np.isnan(got.real).all()


def test_the_cpp_source_divides_with_smiths_division():
    source = to_cpp_complex(_parse("sigmoid(x) * a"), {"x": "xValue"})
    assert source == "(ComplexDivide(1.0, 1.0 + std::exp(-xValue)) * a)"
    with pytest.raises(ValueError, match="not a complex formula"):
        to_cpp_complex(_parse("max(x, 0)"), {})
