"""String literals in the formula language: a string parameter compared (== / !=) with "literal" only; every
consumer of the IR (folding, reference, printers) handles them, and fixing the parameter folds them away."""

from __future__ import annotations

import re

import numpy as np
import pytest

from opgen import formula as F
from opgen.formula.lexer import STRING, tokenize

SYMBOLS = {"x": F.Symbol.tensor(), "s": F.Symbol.scalar(), "f": F.Symbol.flag(), "mode": F.Symbol.string()}
TEXT = 'where(mode == "tanh", x * s, where(mode != "none", x, -x))'


def p(text: str) -> F.Expr:
    return F.parse(text, SYMBOLS)


def test_lexer_reads_both_quotes_and_no_escapes():
    assert [(t.kind, t.text) for t in tokenize("'tanh' \"a_b.1+-\"")[:2]] == [(STRING, "tanh"), (STRING, "a_b.1+-")]
    for bad, fragment in (('mode == "tanh', "unterminated"), ('mode == "ta nh"', "unexpected character ' '")):
        with pytest.raises(F.FormulaError, match=fragment):
            tokenize(bad)


def test_parse_builds_str_nodes_and_round_trips_through_text():
    expr = p(TEXT)
    assert F.Str("tanh") in list(F.walk(expr))
    assert p(F.to_text(expr)) == expr
    assert F.type_of(expr).value is F.ValueType.NUM


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("mode == 1", "its right operand is a number"),
        ('x == "tanh"', "its left operand is a number"),
        ('mode < "tanh"', "does not order strings"),
        ("mode + 1", "operand of '+'"),
        ('where(f, "a", "b")', "operand of where()"),
        ('exp("a")', "operand of exp()"),
        ('mode == "a" and "b"', "a string can only be compared"),
        ("-mode", "a string can only be compared"),
    ],
)
def test_strings_are_only_compared_for_equality(text, fragment):
    with pytest.raises(F.FormulaError, match=re.escape(fragment)):
        p(text)


def test_a_formula_cannot_produce_a_string():
    with pytest.raises(F.FormulaError, match="got a string"):
        F.parse("mode", SYMBOLS, expect="num")


def test_reference_compares_strings_on_the_host():
    x = np.array([-1.0, 2.0])
    expr = p(TEXT)
    np.testing.assert_array_equal(F.evaluate(expr, {"x": x, "s": 3.0, "mode": "tanh"}), x * 3)
    np.testing.assert_array_equal(F.evaluate(expr, {"x": x, "s": 3.0, "mode": "none"}), -x)
    np.testing.assert_array_equal(F.evaluate(expr, {"x": x, "s": 3.0, "mode": "erf"}), x)
    with pytest.raises(ValueError, match="needs a str"):
        F.evaluate(expr, {"x": x, "s": 3.0, "mode": 1})


def test_fixing_the_parameter_folds_the_comparison_away():
    expr = p(TEXT)
    assert F.fold_constants(F.substitute(expr, {"mode": "tanh"})) == p("x * s")
    assert F.fold_constants(F.substitute(expr, {"mode": "none"})) == p("-x")
    assert F.fold_constants(p('"a" == "a"')) == F.BoolConst(True)
    with pytest.raises(TypeError):
        F.substitute(expr, {"mode": 1.0})
    with pytest.raises(TypeError):
        F.substitute(expr, {"x": "tanh"})


def test_printers():
    expr = p('where(mode == "tanh", x, -x)')
    assert F.to_cpp(expr) == '((std::strcmp(mode, "tanh") == 0) ? x : (-x))'
    assert 'mode == "tanh"' in F.to_numpy(expr)
    assert r"\text{``tanh''}" in F.to_latex(expr)
    latex = F.to_latex(p('where(mode != "a_b", x, -x)'))
    assert latex.count(r"\text{``a\_b''}") == 1 and "otherwise" in latex  # the last row says otherwise


def test_the_derivative_ignores_string_conditions():
    derivative = F.differentiate(p('where(mode == "tanh", x * x, x)'), "x")
    at = {"x": np.array([3.0])}
    np.testing.assert_array_equal(F.evaluate(derivative, {**at, "mode": "tanh"}), [6.0])
    np.testing.assert_array_equal(F.evaluate(derivative, {**at, "mode": "none"}), [1.0])
