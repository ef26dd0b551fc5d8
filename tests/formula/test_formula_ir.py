"""IR nodes (equality, hashing, validation), traversal helpers, and the type rules."""

from __future__ import annotations

import math

import pytest
from random_formulas import SYMBOLS

from opgen.formula import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    ExprType,
    FormulaError,
    Logical,
    Name,
    Select,
    SymbolKind,
    Unary,
    ValueType,
    children,
    depth,
    flags_used,
    free_names,
    parse,
    replace_children,
    rewrite,
    type_of,
    walk,
)

X = Name("x", SymbolKind.TENSOR)


def test_const_equality_is_by_bits():
    assert Const(0.0) != Const(-0.0)
    assert Const(math.nan) == Const(float("nan"))
    assert Const(2) == Const(2.0)
    assert len({Const(1.0), Const(1), Const(-0.0), Const(0.0)}) == 3


def test_nodes_are_frozen_and_hashable():
    a = parse("where(x > 0, x * s, exp(x))", SYMBOLS)
    b = parse("where(x > 0, x * s, exp(x))", SYMBOLS)
    assert a == b and hash(a) == hash(b) and a is not b
    assert {a: 1}[b] == 1
    with pytest.raises(AttributeError):
        a.cond = BoolConst(True)  # type: ignore[misc]
    assert parse("x + s", SYMBOLS) != parse("s + x", SYMBOLS)
    assert Name("x", SymbolKind.TENSOR) != Name("x", SymbolKind.SCALAR)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Binary("pow2", X, X),
        lambda: Compare(">", X, X),
        lambda: Unary("abs", X),
        lambda: Logical("xor", (X, X)),
        lambda: Logical("not", (X, X)),
        lambda: Call("cosh", (X,)),
        lambda: Call("exp", (X, X)),
        lambda: Const(True),
        lambda: BoolConst(1),
    ],
)
def test_malformed_nodes_are_refused(build):
    with pytest.raises((ValueError, TypeError)):
        build()


def test_walk_is_post_order_left_to_right():
    expr = parse("x * s + exp(x)", SYMBOLS)
    order = [type(n).__name__ + (f":{n.name}" if isinstance(n, Name) else "") for n in walk(expr)]
    assert order == ["Name:x", "Name:s", "Binary", "Name:x", "Call", "Binary"]


def test_walk_unique_yields_each_subexpression_once():
    expr = parse("exp(x * s) + exp(x * s) * x", SYMBOLS)
    nodes = list(walk(expr, unique=True))
    assert len(nodes) == len(set(nodes))
    assert sum(isinstance(n, Call) for n in nodes) == 1
    # still a valid evaluation order: every operand precedes its user
    position = {n: i for i, n in enumerate(nodes)}
    assert all(position[c] < position[n] for n in nodes for c in children(n))


def test_children_replace_children_and_rewrite():
    expr = parse("where(f, x, s) + 1", SYMBOLS)
    assert children(expr) == (expr.a, expr.b)
    assert replace_children(expr, children(expr)) is expr
    swapped = replace_children(expr.a, (expr.a.cond, expr.a.b, expr.a.a))
    assert swapped == parse("where(f, s, x)", SYMBOLS)
    doubled = rewrite(expr, lambda n: Binary("mul", n, Const(2)) if isinstance(n, Name) and n.name == "x" else n)
    assert doubled == parse("where(f, x * 2, s) + 1", SYMBOLS)
    assert depth(parse("x", SYMBOLS)) == 1 and depth(expr) == 3


def test_free_names_and_flags_in_first_appearance_order():
    expr = parse("where(g and f, y * s, x + where(f, t, y))", SYMBOLS)
    assert free_names(expr) == ("g", "f", "y", "s", "x", "t")
    assert free_names(expr, SymbolKind.TENSOR) == ("y", "x")
    assert flags_used(expr) == ("g", "f")
    assert flags_used(parse("x + 1", SYMBOLS)) == ()


@pytest.mark.parametrize(
    "text,value,varies",
    [
        ("x + s", "num", True),
        ("s * 2 + t", "num", False),
        ("1", "num", False),
        ("s > 0", "bool", False),
        ("x > 0", "bool", True),
        ("where(f, s, 1)", "num", False),
        ("where(f, x, 1)", "num", True),
        ("where(x > 0, s, t)", "num", True),
        ("f and s > 0", "bool", False),
        ("not (x > s)", "bool", True),
        ("x ** s", "num", True),
        ("exp(s)", "num", False),
        ("true", "bool", False),
    ],
)
def test_types_number_bool_varying_uniform(text, value, varies):
    assert type_of(parse(text, SYMBOLS)) == ExprType(ValueType(value), varies)


def test_type_str():
    assert str(type_of(parse("x > 0", SYMBOLS))) == "bool-varying"
    assert str(type_of(parse("s", SYMBOLS))) == "num-uniform"


def test_type_of_rejects_hand_built_ill_typed_ir():
    with pytest.raises(FormulaError, match="condition of where"):
        type_of(Select(X, X, X))
    with pytest.raises(FormulaError, match="exponent"):
        type_of(Binary("pow", X, X))
