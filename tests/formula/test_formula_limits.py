"""Limits of the formula language: hostile text gives a FormulaError (never another exception), and every
formula the parser accepts can go through every consumer without exhausting Python's stack."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import numpy as np
import pytest
from timing import deadline

from opgen.formula import (
    Binary,
    Const,
    Expr,
    FormulaError,
    Name,
    Symbol,
    SymbolKind,
    Unary,
    depth,
    describe_condition,
    evaluate,
    fold_constants,
    free_names,
    negate_condition,
    parse,
    parser,
    specialize,
    to_cpp,
    to_latex,
    to_numpy,
    to_text,
    type_of,
    walk,
)
from opgen.formula.parser import MAX_DEPTH, MAX_NESTING

SYMBOLS = {"x": Symbol.tensor(), "y": Symbol.tensor(), "s": Symbol.scalar(), "f": Symbol.flag()}


@pytest.mark.parametrize(
    "text,column",
    [
        ("self*²", 5),
        ("x*²", 2),
        ("x + ¹", 4),
        ("x * ٣", 4),  # an Arabic-Indic digit: numbers are ASCII
        ("x * ３", 4),  # a fullwidth digit
        ("2²", 0),
    ],
)
def test_non_ascii_digits_are_a_formula_error(text: str, column: int) -> None:
    symbols = {**SYMBOLS, "self": Symbol.tensor()}
    with pytest.raises(FormulaError) as info:
        parse(text, symbols)
    assert info.value.column == column
    assert 0 <= info.value.column <= len(text)


def _fuzz_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = (
        [chr(c) for c in range(0x20, 0x7F)]
        + list("²³¹⁰₀٣３½ⅷ①éßΩ汉字\u3000\u00a0\u200b\u202e\t\n\r\x00\x1f\x7f\x85\ufeff\ud800\U0001f600")
        + ["**", "<=", ">=", "==", "!=", "and", "or", "not", "where(", "min(", "clamp(", "exp(", "1e", "1.", ".5"]
        + ["x", "y", "s", "f", "pi", "inf", "nan", "true", "(", ")", ",", " "] * 3
    )
    texts = []
    for _ in range(count):
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))))
    return texts


@pytest.mark.parametrize("seed", range(4))
def test_random_text_gives_an_ir_or_a_formula_error(seed: int) -> None:
    parsed = 0
    for text in _fuzz_texts(seed, 1500):
        try:
            expr = parse(text, SYMBOLS)
        except FormulaError as err:
            assert 0 <= err.column <= len(text), (text, err)
        else:
            parsed += 1
            assert parse(to_text(expr), SYMBOLS) == expr
    assert parsed > 0


def test_random_edits_of_valid_formulas_give_an_ir_or_a_formula_error() -> None:
    rng = random.Random(7)
    base = "where(x > 0 and not f, min(x, s) ** 2, clamp(y, -1.5e3, s) / (x - -2))"
    noise = list("()*,.-+<=>!²٣ é\x00") + ["e", "**", "not ", "1e9", "where("]
    for _ in range(3000):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(chars) + 1)
            if rng.random() < 0.5 and chars:
                del chars[min(at, len(chars) - 1)]
            else:
                chars.insert(at, rng.choice(noise))
        text = "".join(chars)
        try:
            parse(text, SYMBOLS)
        except FormulaError as err:
            assert 0 <= err.column <= len(text)


# ---------------------------------------------------------------------------------------------- size limits


@pytest.mark.parametrize(
    "text",
    [
        " + ".join(["x"] * 100_000),
        " * ".join(["x"] * 100_000),
        " and ".join(["x > 0"] * 30_000),
        "x" + " ** s" * 50_000,
        "-" * 100_000 + "x",
        "not " * 50_000 + "f",
        "(" * 100_000 + "x" + ")" * 100_000,
        "exp(" * 50_000 + "x" + ")" * 50_000,
        "where(f, x, " * 20_000 + "x" + ")" * 20_000,
        "x " * 100_000,
    ],
    ids=["sum", "product", "and-chain", "power-tower", "signs", "nots", "parens", "calls", "wheres", "junk"],
)
def test_huge_formulas_are_a_formula_error(text: str) -> None:
    with pytest.raises(FormulaError):
        parse(text, SYMBOLS)


def test_formula_length_is_bounded() -> None:
    limit = parser.MAX_LENGTH
    longest = "x" + " " * (limit - 1)
    assert parse(longest, SYMBOLS) == Name("x", SymbolKind.TENSOR)
    with pytest.raises(FormulaError, match=f"longer than {limit} characters") as info:
        parse(longest + " ", SYMBOLS)
    assert info.value.column == limit


def test_too_deep_is_reported_where_the_deep_part_starts() -> None:
    text = "where(f, x, (" + " + ".join(["x"] * (MAX_DEPTH + 5)) + "))"
    with pytest.raises(FormulaError, match=f"more than {MAX_DEPTH} operations deep") as info:
        parse(text, SYMBOLS)
    assert info.value.column == text.index("(x") + 1  # the chain that grows too tall


# ---------------------------------------------------------------------------------------------- accepted limits


def _deepest(build: Callable[[int], str]) -> str:
    """The deepest formula of a family the parser still accepts (acceptance is monotone in n)."""

    def accepted(n: int) -> bool:
        try:
            parse(build(n), SYMBOLS)
        except FormulaError:
            return False
        return True

    assert accepted(1)
    low, high = 1, 2 * MAX_DEPTH + 2  # accepted(low); not accepted(high)
    assert not accepted(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if accepted(middle) else (low, middle)
    return build(low)


def _nested_chain(n: int) -> str:
    # Every nesting level holds a left-associative chain: the tallest trees the limits allow.
    per_level = max(1, (MAX_DEPTH - MAX_NESTING) // MAX_NESTING)
    levels = min(n, MAX_NESTING)
    text = "x"
    for level in range(levels):
        op = ["+", "*", "-", "/"][level % 4]
        text = f"({text} {op} " + f" {op} ".join(["y"] * per_level) + ")"
    return " + ".join([text] + ["x"] * max(0, n - levels))


FAMILIES: dict[str, Callable[[int], str]] = {
    "sum": lambda n: " + ".join(["x"] * n),
    "sub-chain": lambda n: " - ".join(["x"] * n),
    "signs": lambda n: "-" * n + "x",
    "nots": lambda n: "not " * n + "f",
    "parens": lambda n: "(" * n + "x" + ")" * n,
    "calls": lambda n: "exp(" * n + "x" + ")" * n,
    "sqrt-calls": lambda n: "sqrt(" * n + "x" + ")" * n,
    "log1p-calls": lambda n: "log1p(" * n + "x" + ")" * n,
    "min-calls": lambda n: "min(x, " * n + "x" + ")" * n,
    "clamps": lambda n: "clamp(" * n + "x" + ", s, 1)" * n,
    "power-tower": lambda n: "x" + " ** s" * n,
    "negated-powers": lambda n: "x" + " ** -s" * n,
    "divisions": lambda n: "x / (" * n + "y" + ")" * n,
    "right-products": lambda n: "x * (" * n + "y" + ")" * n,
    "where-else": lambda n: "where(x > 0, x, " * n + "y" + ")" * n,
    "where-then": lambda n: "where(x > 0, " * n + "y" + ", x)" * n,
    "where-bounds": lambda n: "".join(f"where(x < {i}, {i}, " for i in range(n)) + "x" + ")" * n,
    "and-chain": lambda n: " and ".join(["x > 0"] * n),
    "or-not": lambda n: "not (f or " * n + "f" + ")" * n,
    "compare-of-sums": lambda n: " + ".join(["x"] * n) + " > " + " + ".join(["y"] * n),
    "nested-chains": _nested_chain,
}


def _with_stack_used(frames: int, fn: Callable[[], object]) -> object:
    """Call `fn` with `frames` Python frames already on the stack (a CLI, a loader, a template engine...)."""
    if frames <= 0:
        return fn()
    return _with_stack_used(frames - 1, fn)


def _consumers(expr: Expr) -> list[Callable[[], object]]:
    env = {"x": np.array([-1.0, 0.0, 2.0]), "y": np.array([0.5, -0.5, 3.0]), "s": 0.5, "f": True}
    other = parse(to_text(expr), SYMBOLS)  # a separately built, equal tree
    calls: list[Callable[[], object]] = [
        lambda: type_of(expr),
        lambda: fold_constants(expr),
        lambda: specialize(expr, {"f": False}),
        lambda: evaluate(expr, env),
        lambda: to_text(expr),
        lambda: parse(to_text(expr), SYMBOLS),
        lambda: to_latex(expr),
        lambda: to_cpp(expr),
        lambda: to_numpy(expr),
        lambda: depth(expr),
        lambda: free_names(expr),
        lambda: list(walk(expr)),
        lambda: hash(expr),
        lambda: expr == other,
        lambda: repr(expr),
    ]
    if type_of(expr).is_bool:
        calls += [lambda: describe_condition(expr), lambda: to_latex(negate_condition(expr))]
    return calls


# Frames a caller may already have used: Python's limit is 1000; pytest, the CLI, the loader and Jinja use
# some. Every consumer must fit in what is left.
STACK_ALREADY_USED = 350


def _through_every_consumer(text: str) -> None:
    assert sys.getrecursionlimit() >= 1000
    with deadline(30):
        expr = _with_stack_used(STACK_ALREADY_USED, lambda: parse(text, SYMBOLS))
        assert isinstance(expr, Expr)
        for consume in _consumers(expr):
            _with_stack_used(STACK_ALREADY_USED, consume)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_deepest_accepted_formulas_go_through_every_consumer(family: str) -> None:
    _through_every_consumer(_deepest(FAMILIES[family]))


def _where_in_condition(n: int) -> str:
    return "where(" * n + "x > 0" + ", f, f)" * n


def test_latex_of_wheres_in_conditions_grows_linearly() -> None:
    # The else row of a single where states the negated condition: a condition holding a where() would be
    # written twice per level, 2**64 times over for the deepest such formula.
    for n in (2, 4, 8, 12, 16):
        text = _where_in_condition(n)
        latex = to_latex(parse(text, SYMBOLS))
        assert len(latex) < 40 * len(text), (n, len(latex))
    _through_every_consumer(_deepest(_where_in_condition))


def test_hashing_a_hand_built_deep_tree_does_not_recurse() -> None:
    expr: Expr = Name("x", SymbolKind.TENSOR)
    for i in range(20_000):
        expr = Binary("add", expr, Const(float(i))) if i % 2 else Unary("neg", expr)
    assert hash(expr) == hash(expr)
    assert depth(expr) == 20_001
    assert free_names(expr) == ("x",)
    assert len({expr, expr}) == 1
