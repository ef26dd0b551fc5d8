"""Constant folding and mode specialisation: expected rewrites, and that they never change a value."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from random_formulas import SYMBOLS, random_bool, random_env, random_num, same_values

from opgen.formula import (
    BoolConst,
    Const,
    Symbol,
    evaluate,
    flags_used,
    fold_constants,
    is_constant,
    parse,
    specialize,
    substitute,
)


def p(text: str):
    return parse(text, SYMBOLS)


@pytest.mark.parametrize(
    "text,folded",
    [
        ("2 * 3 + x", "6 + x"),
        ("sqrt(2 / pi)", repr(math.sqrt(2 / math.pi))),
        ("-(2)", "-2"),
        ("- -x", "x"),
        ("x * 1", "x"),
        ("1 * x", "x"),
        ("x / 1", "x"),
        ("x - 0", "x"),
        ("x ** 1", "x"),
        ("x ** (3 - 2)", "x"),
        ("1 / 0", "inf"),
        ("0 / 0", "nan"),
        ("min(nan, 1)", "nan"),
        ("exp(1000)", "inf"),
        ("where(1 < 2, x, s)", "x"),
        ("where(nan > 0, x, s)", "s"),
        ("where(x > 0, s, s)", "s"),
        ("not true or x > 0", "x > 0"),
        ("f and false", "false"),
        ("true and f", "f"),
        ("f or true", "true"),
        ("not not f", "f"),
        ("where(2 > 1 and f, x, y)", "where(f, x, y)"),
        ("sign(nan)", "0"),
    ],
)
def test_fold_constants(text, folded):
    assert fold_constants(p(text)) == p(folded)


@pytest.mark.parametrize(
    "text",
    ["x + 0", "x * 0", "x - -0.0", "x ** 0", "x * 2 * 3", "x / 2 * 2", "not (x > 0)", "x + 1 - 1"],
)
def test_identities_that_are_not_ieee_exact_are_left_alone(text):
    # x + 0 turns -0 into +0, x * 0 is NaN for inf, reassociation changes rounding, not(x > 0) != x <= 0 for NaN.
    assert fold_constants(p(text)) == p(text)


def test_folding_never_changes_a_value():
    rng = random.Random(7)
    env = random_env()
    for i in range(250):
        expr = random_num(rng, 5) if i % 4 else random_bool(rng, 4)
        folded = fold_constants(expr)
        assert same_values(evaluate(folded, env), evaluate(expr, env)), expr


def test_specialising_never_changes_a_value():
    rng = random.Random(11)
    for i in range(150):
        expr = random_num(rng, 5)
        for f in (False, True):
            env = random_env(i) | {"f": f}
            special = specialize(expr, {"f": f})
            assert "f" not in flags_used(special)
            assert same_values(evaluate(special, env), evaluate(expr, env)), expr


ELU_SYMBOLS = {
    "gradOutput": Symbol.tensor(),
    "x": Symbol.tensor(),
    "alpha": Symbol.scalar(),
    "scale": Symbol.scalar(),
    "inputScale": Symbol.scalar(),
    "isResult": Symbol.flag(),
}
# EluGradV2 (seed 003): one formula, the isResult attribute picks the negative-side derivative.
ELU_GRAD_V2 = (
    "gradOutput * where(x > 0, scale, where(isResult, inputScale * (x + alpha * scale),"
    " inputScale * alpha * scale * exp(x * inputScale)))"
)


def test_specialize_elu_grad_v2_picks_the_branch_of_each_mode():
    expr = parse(ELU_GRAD_V2, ELU_SYMBOLS)
    assert flags_used(expr) == ("isResult",)
    on_result = specialize(expr, {"isResult": True})
    on_input = specialize(expr, {"isResult": False})
    assert on_result == parse("gradOutput * where(x > 0, scale, inputScale * (x + alpha * scale))", ELU_SYMBOLS)
    assert on_input == parse(
        "gradOutput * where(x > 0, scale, inputScale * alpha * scale * exp(x * inputScale))", ELU_SYMBOLS
    )
    assert flags_used(on_result) == flags_used(on_input) == ()


@pytest.mark.parametrize("is_result", [False, True])
def test_specialised_elu_grad_v2_matches_torch(is_result, torch):
    expr = specialize(parse(ELU_GRAD_V2, ELU_SYMBOLS), {"isResult": is_result})
    rng = np.random.default_rng(3)
    alpha, scale, input_scale = 1.3, 1.1, 0.7
    x = torch.from_numpy(np.concatenate([[0.0, -0.0, -1e-9, np.inf, -np.inf, np.nan], rng.standard_normal(250) * 3]))
    if is_result:  # torch then receives the forward output
        x = torch.ops.aten.elu(x, alpha, scale, input_scale)
    grad = torch.from_numpy(rng.standard_normal(x.numel()))
    want = torch.ops.aten.elu_backward(grad, alpha, scale, input_scale, is_result, x).numpy()
    env = {
        "gradOutput": grad.numpy(),
        "x": x.numpy(),
        "alpha": alpha,
        "scale": scale,
        "inputScale": input_scale,
    }
    np.testing.assert_allclose(evaluate(expr, env, np.float64), want, rtol=1e-13, atol=1e-14, equal_nan=True)


def test_specialize_ignores_unused_flags_and_rejects_misuse():
    expr = parse(ELU_GRAD_V2, ELU_SYMBOLS)
    assert specialize(p("x + 1"), {"isResult": True}) == p("x + 1")
    with pytest.raises(TypeError, match="needs a bool"):
        specialize(expr, {"isResult": 1})
    with pytest.raises(TypeError, match="'x' is a tensor and needs a number"):
        specialize(expr, {"x": True})


def test_substitute():
    assert substitute(p("x * s"), {"s": 2}) == p("x * 2")
    assert substitute(p("where(f, x, y)"), {"f": False}) == p("where(false, x, y)")
    assert substitute(p("x * s"), {"x": p("y + 1")}) == p("(y + 1) * s")
    with pytest.raises(TypeError, match="needs a bool"):
        substitute(p("where(f, x, y)"), {"f": 1.0})
    with pytest.raises(TypeError, match="must be a number, bool or Expr"):
        substitute(p("x"), {"x": "1"})


def test_is_constant():
    assert is_constant(fold_constants(p("2 ** 0.5"))) and is_constant(BoolConst(True)) and is_constant(Const(1))
    assert not is_constant(p("s"))
