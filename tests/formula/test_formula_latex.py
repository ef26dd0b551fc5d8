"""LaTeX in the ops-nn doc style. Goldens follow the style rules: `*` products, `\\gt`-style comparisons,
`\\frac` divisions, `where` as a cases block whose rows state their condition (seeds 000 and 003)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from opgen.formula import Symbol, describe_condition, evaluate, parse, to_latex

SYMBOLS = {
    "self": Symbol.tensor(),
    "gradOutput": Symbol.tensor(),
    "grad": Symbol.tensor(),
    "x": Symbol.tensor(),
    "y": Symbol.tensor(),
    "negativeSlope": Symbol.scalar(),
    "alpha": Symbol.scalar(),
    "scale": Symbol.scalar(),
    "inputScale": Symbol.scalar(),
    "beta": Symbol.scalar(),
    "threshold": Symbol.scalar(),
    "s": Symbol.scalar(),
    "isResult": Symbol.flag(),
    "neg_slope": Symbol.scalar(),
}
GREEK = {"alpha": r"\alpha", "beta": r"\beta"}


def squash(latex: str) -> str:
    """Whitespace-insensitive form (the docs' line breaks differ from ours)."""
    return re.sub(r"\s+", " ", latex).strip()


def latex(text: str, symbols=None) -> str:
    return to_latex(parse(text, SYMBOLS), symbols or {})


def test_seed_000_leaky_relu_grad():
    # seed 000: output =
    # \begin{cases} gradOutput, &if\ self \gt 0 \\ gradOutput*negativeSlope, &if\ self \le 0 \end{cases}
    # but the last row is "otherwise": a NaN self takes it, and `self <= 0` is false for a NaN.
    got = latex("where(self > 0, gradOutput, gradOutput * negativeSlope)")
    want = r"\begin{cases} gradOutput, &if\ self \gt 0 \\ gradOutput*negativeSlope, &otherwise \end{cases}"
    assert squash(got) == squash(want)


def test_the_last_row_is_otherwise_as_a_nan_takes_it():
    expr = parse("where(x > 0, 1, 2)", SYMBOLS)
    assert evaluate(expr, {"x": np.array([np.nan])}).tolist() == [2.0]  # a NaN takes the else row
    assert squash(to_latex(expr)) == r"\begin{cases} 1, &if\ x \gt 0 \\ 2, &otherwise \end{cases}"  # not x <= 0


def test_seed_003_elu_grad_v2_on_result():
    got = latex("gradOutput * where(x > 0, scale, inputScale * (x + alpha * scale))", GREEK)
    want = (
        r"gradOutput * \begin{cases} scale, &if\ x \gt 0 \\" r" inputScale*(x + \alpha*scale), &otherwise \end{cases}"
    )
    assert squash(got) == squash(want)


def test_seed_003_elu_grad_v2_on_input():
    got = latex("gradOutput * where(x > 0, scale, inputScale * alpha * scale * exp(x * inputScale))", GREEK)
    want = (
        r"gradOutput * \begin{cases} scale, &if\ x \gt 0 \\"
        r" inputScale*\alpha*scale*exp(x*inputScale), &otherwise \end{cases}"
    )
    assert squash(got) == squash(want)


@pytest.mark.parametrize(
    "text,want",
    [
        # a chain of wheres on one subject: each row states the interval it covers
        (
            "where(x <= -3, 0, where(x >= 3, grad, grad * (x / 3 + 0.5)))",
            r"\begin{cases} 0, &if\ x \le -3 \\ grad, &if\ x \ge 3 \\"
            r" grad*\left(\frac{x}{3} + 0.5\right), &otherwise \end{cases}",
        ),
        (
            "where(x >= 6, 6, where(x > 0, x, 0))",
            r"\begin{cases} 6, &if\ x \ge 6 \\ x, &if\ 0 \lt x \lt 6 \\ 0, &otherwise \end{cases}",
        ),
        (
            "where(0 < x, x, where(x == 0, 1, -x))",
            r"\begin{cases} x, &if\ 0 \lt x \\ 1, &if\ x = 0 \\ -x, &otherwise \end{cases}",
        ),
        # and/or conditions negate by De Morgan
        (
            "where(x > -3 and x < 3, grad / 6, 0)",
            r"\begin{cases} \frac{grad}{6}, &if\ x \gt -3 \land x \lt 3 \\ 0, &otherwise \end{cases}",
        ),
        (
            "where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)",
            r"\begin{cases} x, &if\ x*\beta \gt threshold \\"
            r" \frac{\log(1 + exp(x*\beta))}{\beta}, &otherwise \end{cases}",
        ),
        # unrelated conditions: rows in order, the last one "otherwise"
        (
            "where(x > s, 1, where(y > 0, 2, 3))",
            r"\begin{cases} 1, &if\ x \gt s \\ 2, &if\ y \gt 0 \\ 3, &otherwise \end{cases}",
        ),
        ("where(isResult, x, y)", r"\begin{cases} x, &if\ isResult \\ y, &otherwise \end{cases}"),
        (
            "where(not isResult, x, y)",
            r"\begin{cases} x, &if\ \lnot isResult \\ y, &otherwise \end{cases}",
        ),
        # a where in the then-branch nests
        (
            "where(x > 0, where(y > 0, 1, 2), 3)",
            r"\begin{cases} \begin{cases} 1, &if\ y \gt 0 \\ 2, &otherwise \end{cases}, &if\ x \gt 0 \\"
            r" 3, &otherwise \end{cases}",
        ),
        ("where(x > 0, x, 0) * 2", r"\begin{cases} x, &if\ x \gt 0 \\ 0, &otherwise \end{cases} * 2"),
    ],
)
def test_cases(text, want):
    assert squash(latex(text, GREEK)) == squash(want)


@pytest.mark.parametrize(
    "text,want",
    [
        ("0.5 * x * (1 + erf(x / sqrt(2)))", r"0.5*x*\left(1 + erf\left(\frac{x}{\sqrt{2}}\right)\right)"),
        ("x * sigmoid(x)", r"x*sigmoid(x)"),
        ("tanh(x) + log(y)", r"\tanh(x) + \log(y)"),
        ("sqrt(x ** 2 + 1)", r"\sqrt{x^{2} + 1}"),
        ("(x + 1) ** 2", r"(x + 1)^{2}"),
        ("(x / 2) ** 2", r"\left(\frac{x}{2}\right)^{2}"),
        ("(-x) ** 2", r"(-x)^{2}"),
        ("-x ** 2", r"-x^{2}"),
        ("x ** 2 ** s", r"x^{2^{s}}"),
        ("x * -s", r"x*(-s)"),
        ("-(x * s)", r"-(x*s)"),
        ("x - (y - s)", r"x - (y - s)"),
        ("x - y - s", r"x - y - s"),
        ("x * (y * s)", r"x*(y*s)"),
        ("abs(x) + min(x, 0) + max(y, s)", r"\left|x\right| + \min(x, 0) + \max(y, s)"),
        ("rsqrt(x) + reciprocal(y)", r"\frac{1}{\sqrt{x}} + \frac{1}{y}"),
        ("expm1(x) * 2", r"(exp(x) - 1)*2"),
        ("log1p(x * s)", r"\log(1 + x*s)"),
        ("1e-05 * x + 2.5e-07 + pi", r"10^{-5}*x + 2.5 \times 10^{-7} + \pi"),
        ("x * -2", r"x*(-2)"),
        (
            "where(x != y, inf, nan)",
            r"\begin{cases} \infty, &if\ x \ne y \\ \mathrm{NaN}, &otherwise \end{cases}",
        ),
        ("x * neg_slope", r"x*neg\_slope"),
        ("x * alpha", r"x*\alpha"),
    ],
)
def test_expressions(text, want):
    assert latex(text, GREEK) == want


def test_describe_condition():
    cond = parse("x >= 0 and not isResult", SYMBOLS)
    assert describe_condition(cond) == r"x \ge 0 \land \lnot isResult"
    assert describe_condition(parse("x > 0 or (y < 0 and s == 1)", SYMBOLS)) == r"x \gt 0 \lor y \lt 0 \land s = 1"
    assert describe_condition(parse("(x > 0 or y < 0) and s <= 1", SYMBOLS)) == r"(x \gt 0 \lor y \lt 0) \land s \le 1"
