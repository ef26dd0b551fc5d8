"""Parser: precedence and associativity, canonical text round trip, every error with its column."""

from __future__ import annotations

import math
import pickle
import random

import pytest
from random_formulas import SYMBOLS, random_bool, random_num

from opgen.formula import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    FormulaError,
    Logical,
    Name,
    Select,
    Symbol,
    SymbolKind,
    Unary,
    parse,
    to_text,
)

X, Y = Name("x", SymbolKind.TENSOR), Name("y", SymbolKind.TENSOR)
S = Name("s", SymbolKind.SCALAR)
F = Name("f", SymbolKind.FLAG)


def c(value: float) -> Const:
    return Const(value)


def add(a, b):
    return Binary("add", a, b)


def sub(a, b):
    return Binary("sub", a, b)


def mul(a, b):
    return Binary("mul", a, b)


def div(a, b):
    return Binary("div", a, b)


def pow_(a, b):
    return Binary("pow", a, b)


def neg(a):
    return Unary("neg", a)


def gt(a, b):
    return Compare("gt", a, b)


def and_(a, b):
    return Logical("and", (a, b))


def or_(a, b):
    return Logical("or", (a, b))


def not_(a):
    return Logical("not", (a,))


PRECEDENCE = [
    ("x + y * s", add(X, mul(Y, S))),
    ("x * y + s", add(mul(X, Y), S)),
    ("x - y - s", sub(sub(X, Y), S)),
    ("x / y / s", div(div(X, Y), S)),
    ("x - y + s", add(sub(X, Y), S)),
    ("x / y * s", mul(div(X, Y), S)),
    ("(x + y) * s", mul(add(X, Y), S)),
    ("x * (y + s)", mul(X, add(Y, S))),
    ("x - (y - s)", sub(X, sub(Y, S))),
    ("x ** 2 ** 3", pow_(X, pow_(c(2), c(3)))),
    ("(x ** 2) ** 3", pow_(pow_(X, c(2)), c(3))),
    ("-x ** 2", neg(pow_(X, c(2)))),
    ("-2 ** 2", neg(pow_(c(2), c(2)))),
    ("x ** -2", pow_(X, c(-2))),
    ("x ** -s", pow_(X, neg(S))),
    ("-x * y", mul(neg(X), Y)),
    ("x * -y", mul(X, neg(Y))),
    ("- -x", neg(neg(X))),
    ("+x", X),
    ("-2", c(-2)),
    ("- 2.5", c(-2.5)),
    ("-(2)", neg(c(2))),
    ("- -2", neg(c(-2))),
    ("2 * -3", mul(c(2), c(-3))),
    ("x - -2", sub(X, c(-2))),
    ("-inf", c(-math.inf)),
    ("-pi * x", mul(c(-math.pi), X)),
    ("x + 1 > y * 2", gt(add(X, c(1)), mul(Y, c(2)))),
    ("not x > 0", not_(gt(X, c(0)))),
    ("not not f", not_(not_(F))),
    ("x > 0 and y > 0 or f", or_(and_(gt(X, c(0)), gt(Y, c(0))), F)),
    ("f or x > 0 and y > 0", or_(F, and_(gt(X, c(0)), gt(Y, c(0))))),
    ("not f and f", and_(not_(F), F)),
    ("f and f and f", and_(and_(F, F), F)),
    ("f and (f and f)", and_(F, and_(F, F))),
    ("f or f or f", or_(or_(F, F), F)),
    ("(f or f) and f", and_(or_(F, F), F)),
    ("min(x, y) + max(x, 1)", add(Binary("min", X, Y), Binary("max", X, c(1)))),
    ("clamp(x, 0, 6)", Binary("min", Binary("max", X, c(0)), c(6))),
    ("where(f, x, y)", Select(F, X, Y)),
    ("select(f, x, y)", Select(F, X, Y)),
    ("exp(-x)", Call("exp", (neg(X),))),
    ("sigmoid(x) * tanh(y)", mul(Call("sigmoid", (X,)), Call("tanh", (Y,)))),
    ("where(x > 0, true, false)", Select(gt(X, c(0)), BoolConst(True), BoolConst(False))),
    ("x <= 1 ", Compare("le", X, c(1))),
    ("x == y", Compare("eq", X, Y)),
    ("x != y", Compare("ne", X, Y)),
    ("x >= y", Compare("ge", X, Y)),
    ("x < y", Compare("lt", X, Y)),
]


@pytest.mark.parametrize("text,expected", PRECEDENCE, ids=[t for t, _ in PRECEDENCE])
def test_precedence_and_associativity(text, expected):
    assert parse(text, SYMBOLS) == expected


@pytest.mark.parametrize(
    "text,value",
    [
        ("1e-3", 1e-3),
        ("1.5E+2", 150.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("007", 7.0),
        ("pi", math.pi),
        ("e", math.e),
        ("inf", math.inf),
        ("1e400", math.inf),
    ],
)
def test_number_literals(text, value):
    assert parse(text, SYMBOLS) == Const(value)


def test_nan_literal_is_a_const_equal_to_itself():
    assert parse("nan", SYMBOLS) == Const(math.nan)
    assert hash(parse("nan", SYMBOLS)) == hash(Const(float("nan")))


def test_symbol_kinds_and_symbolkind_shorthand():
    expr = parse("x * s", {"x": SymbolKind.TENSOR, "s": Symbol(SymbolKind.SCALAR)})
    assert expr == mul(X, S)


def test_function_names_are_not_reserved_as_symbols():
    # aclnnClamp has inputs called min and max: a name is a call only when '(' follows.
    table = {"self": Symbol.tensor(), "min": Symbol.scalar(), "max": Symbol.scalar()}
    expr = parse("min(max(self, min), max)", table)
    lo, hi = Name("min", SymbolKind.SCALAR), Name("max", SymbolKind.SCALAR)
    assert expr == Binary("min", Binary("max", Name("self", SymbolKind.TENSOR), lo), hi)
    assert parse(to_text(expr), table) == expr


ROUND_TRIP = [t for t, _ in PRECEDENCE] + [
    "where(self > 0, gradOutput, gradOutput * negativeSlope)",
    "gradOutput * where(x > 0, scale, where(isResult, inputScale * (x + alpha * scale),"
    " inputScale * alpha * scale * exp(x * inputScale)))",
    "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3)))",
    "where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)",
    "x / (y / s)",
    "x * (y * s)",
    "(x - y) ** 2",
    "(-x) ** 2",
    "(-2) ** s",
    "2 ** -(2)",
    "-0.0 * x",
    "1e-300 * x + 1.7976931348623157e308",
    "0.1 + 0.2 + 1 / 3",
    "not (f and f)",
    "not (x > 0) or f",
    "where(f, x > 0, not f) and f",
    "x + -inf + nan",
]
EXTRA = {
    "self": Symbol.tensor(),
    "gradOutput": Symbol.tensor(),
    "negativeSlope": Symbol.scalar(),
    "scale": Symbol.scalar(),
    "inputScale": Symbol.scalar(),
    "alpha": Symbol.scalar(),
    "beta": Symbol.scalar(),
    "threshold": Symbol.scalar(),
    "isResult": Symbol.flag(),
}


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip_of_written_formulas(text):
    table = SYMBOLS | EXTRA
    expr = parse(text, table)
    canonical = to_text(expr)
    assert parse(canonical, table) == expr
    assert to_text(parse(canonical, table)) == canonical  # canonical text is a fixed point


def test_canonical_text_uses_minimal_parentheses():
    assert to_text(parse("((x) + (y * s))", SYMBOLS)) == "x + y * s"
    assert to_text(parse("(x + y) * s", SYMBOLS)) == "(x + y) * s"
    assert to_text(parse("x - (y - s)", SYMBOLS)) == "x - (y - s)"
    assert to_text(parse("x ** (2 ** 3)", SYMBOLS)) == "x ** 2 ** 3"
    assert to_text(parse("(not f) and f", SYMBOLS)) == "not f and f"
    assert to_text(parse("select(f, x, 1.0)", SYMBOLS)) == "where(f, x, 1)"


def test_round_trip_of_hand_built_ir():
    # IR that the parser itself never produces directly must still print to text that rebuilds it.
    for expr in [
        neg(c(2)),
        neg(c(-2)),
        pow_(c(-2), S),
        pow_(neg(X), c(2)),
        sub(X, c(-0.0)),
        mul(c(-math.inf), X),
    ]:
        assert parse(to_text(expr), SYMBOLS) == expr, to_text(expr)


def test_round_trip_of_random_ir():
    rng = random.Random(1234)
    for i in range(300):
        expr = random_num(rng, 5) if i % 3 else random_bool(rng, 4)
        text = to_text(expr)
        assert parse(text, SYMBOLS) == expr, text


ERRORS = [
    ("", "empty formula", 0),
    ("   ", "empty formula", 0),
    ("x +", "unexpected end of formula", 3),
    ("x + )", "unexpected ')'", 4),
    ("x)", "unexpected ')' after a complete expression", 1),
    ("()", "unexpected ')'", 1),
    ("(x + 1", "missing ')' to close '(' at column 0", 6),
    ("where(x > 0, x", "missing ')'", 14),
    ("(x y)", "unexpected name 'y'; expected ')'", 3),
    ("where(x > 0 x, y)", "expected ',' or ')' in the call to where()", 12),
    ("exp(x,)", "unexpected ')'", 6),
    ("x y", "unexpected name 'y'", 2),
    ("x $ y", "unexpected character '$'", 2),
    ("x ^ 2", "use '**'", 2),
    ("x = 1", "use '=='", 2),
    ("x && f", "use 'and'", 2),
    ("x || f", "use 'or'", 2),
    ("!f", "use 'not'", 0),
    ("c ? a : b", "use where(cond, a, b)", 2),
    ("2x", "malformed number '2x'; write '2 * x'", 0),
    ("y + 1e", "malformed number '1e'", 4),
    ("1.2.3", "malformed number '1.2.3'", 0),
    ("x < y < s", "comparisons cannot be chained", 6),
    ("x + qqq", "undefined name 'qqq'", 4),
    ("exq(x)", "unknown function 'exq' (did you mean 'exp'?)", 0),
    ("1 + sigmiod(x)", "unknown function 'sigmiod' (did you mean 'sigmoid'?)", 4),
    ("x(1)", "'x' is a tensor, not a function", 0),
    ("where(x > 0, 1)", "where() takes 3 arguments, got 2", 0),
    ("1 + exp(x, y)", "exp() takes 1 argument, got 2", 4),
    ("min(x)", "min() takes 2 arguments, got 1", 0),
    ("clamp(x, 1)", "clamp() takes 3 arguments, got 2", 0),
    ("exp", "exp is a function; call it as exp(...)", 0),
    ("x + and", "unexpected 'and'", 4),
    ("x + not f", "unexpected 'not'", 4),
    ("where(x if f else y)", "unexpected name 'if'", 8),
    ("where(x, 1, 2)", "condition of where() must be boolean", 6),
    ("where(1 + s, 1, 2)", "condition of where() must be boolean", 6),
    ("where(x > 0, 1, x > 0)", "branches of where() must have the same type", 16),
    ("x + (y > 0)", "operator '+' needs numbers, but its right operand is a boolean", 4),
    ("f * 2", "operator '*' needs numbers, but its left operand is a boolean", 0),
    ("-(x > 0)", "cannot negate a boolean", 1),
    ("+f", "unary '+' needs a number", 1),
    ("x > 0 and y", "operand of 'and' must be boolean", 10),
    ("s or f", "operand of 'or' must be boolean", 0),
    ("not x", "operand of 'not' must be boolean", 4),
    ("exp(x > 0)", "argument of exp() must be a number", 4),
    ("(x > 0) < 1", "operator '<' compares numbers, but its left operand is a boolean", 0),
    ("x ** y", "exponent of '**' must be host-known", 5),
    ("min(f, x)", "min() needs numbers, but its first argument is a boolean", 4),
    ("max(x, true)", "max() needs numbers, but its second argument is a boolean", 7),
    ("(" * 70 + "x" + ")" * 70, "nests more than 64 levels", 64),
    ("x" + " + x" * 250, "more than 200 operations deep", 0),
]


@pytest.mark.parametrize("text,message,column", ERRORS, ids=[e[1] + "|" + e[0][:20] for e in ERRORS])
def test_errors_have_message_and_column(text, message, column):
    with pytest.raises(FormulaError) as info:
        parse(text, SYMBOLS)
    assert message in info.value.message
    assert info.value.column == column
    assert info.value.text == text


def test_undefined_name_suggests_the_closest_symbol():
    table = {"negativeSlope": Symbol.scalar(), "self": Symbol.tensor(), "gradOutput": Symbol.tensor()}
    text = "where(self > 0, gradOutput, gradOutput * negativeSlop)"
    with pytest.raises(FormulaError) as info:
        parse(text, table)
    assert info.value.message == "undefined name 'negativeSlop' (did you mean 'negativeSlope'?)"
    assert info.value.column == text.index("negativeSlop)")
    with pytest.raises(FormulaError) as info:
        parse("x + qqq", SYMBOLS)
    assert "did you mean" not in info.value.message


def test_error_text_points_a_caret_at_the_column():
    with pytest.raises(FormulaError) as info:
        parse("x + qqq", SYMBOLS)
    lines = str(info.value).splitlines()
    assert lines[1].strip() == "x + qqq"
    assert lines[2].index("^") - lines[1].index("x") == 4


def test_formula_error_pickles():
    err = FormulaError("boom", 3, "x + 1")
    again = pickle.loads(pickle.dumps(err))
    assert (again.message, again.column, again.text) == ("boom", 3, "x + 1")


def test_expect_checks_the_result_type():
    assert parse("x > 0", SYMBOLS, expect="bool") == gt(X, c(0))
    with pytest.raises(FormulaError, match="formula must produce a number, got a boolean"):
        parse("x > 0", SYMBOLS, expect="num")
    with pytest.raises(FormulaError, match="formula must produce a boolean, got a number"):
        parse("x", SYMBOLS, expect="bool")


@pytest.mark.parametrize(
    "table,message",
    [
        ({"e": Symbol.tensor()}, "reserved"),
        ({"not": Symbol.flag()}, "reserved"),
        ({"inf": Symbol.scalar()}, "reserved"),
        ({"1x": Symbol.tensor()}, "not an identifier"),
        ({"x": "tensor"}, "expected a Symbol or SymbolKind"),
    ],
)
def test_bad_symbol_tables_are_rejected(table, message):
    with pytest.raises(ValueError, match=message):
        parse("1", table)


def test_any_text_gives_an_ir_or_a_formula_error():
    # Fuzz with fragments of valid and invalid syntax: no other exception may escape the parser.
    pieces = ["x", "s", "f", "1", "2.5", "1e", ".", "e", "pi", "(", ")", ",", "+", "-", "*", "/", "**", "<", "<=",
              "==", "=", "!", "and", "or", "not", "where", "min", "exp", "clamp", "true", " ", "$", "é",
              "\t"]  # fmt: skip
    rng = random.Random(99)
    parsed = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        try:
            expr = parse(text, SYMBOLS)
        except FormulaError as err:
            assert 0 <= err.column <= len(text)
        else:
            parsed += 1
            assert parse(to_text(expr), SYMBOLS) == expr
    assert parsed > 50  # the fuzz does reach valid formulas too
