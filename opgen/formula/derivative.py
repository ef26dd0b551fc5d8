"""Symbolic differentiation of formulas, and a numeric check that two formulas agree.

    d = differentiate(parse("x * sigmoid(x)", symbols), "x")   # sigmoid(x) + x * (sigmoid(x) * (1 - sigmoid(x)))
    first_difference(d, parse("...", symbols), {"beta": 1.0})  # None, or the first point where they differ

Rules: each math function's derivative comes from its record in the function table; `where`/`select`
differentiate branch-wise (the condition is not differentiated); min/max are piecewise with ties going to the
first argument (`max(a, b)` is `where(a >= b, a, b)`), so the derivative of clamp(x, lo, hi) is 1 on the closed
interval, as in PyTorch; abs, sign, floor and trunc are piecewise (abs' = sign, the others 0); comparisons and
logic are constant. A kink's value of the derivative is a convention: compare derivatives away from kinks,
which is what `first_difference` does.

Simplification is algebraic, not IEEE: 0 * e and 0 / e are 0 and e + 0 is e even where e is inf or NaN, as in
the mathematics of derivatives; then constants are folded exactly (`fold_constants`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .functions import FUNCTIONS
from .ir import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    Expr,
    Logical,
    Name,
    Select,
    Str,
    Unary,
    free_names,
    walk,
)
from .reference import evaluate
from .simplify import fold_constants
from .symbols import SymbolKind

_ZERO = Const(0.0)
_ONE = Const(1.0)


def differentiate(expr: Expr, wrt: str) -> Expr:
    """d expr / d wrt for the tensor named `wrt` (other names are constants), lightly simplified."""
    if wrt not in free_names(expr, SymbolKind.TENSOR) and wrt in free_names(expr):
        raise ValueError(f"differentiate: '{wrt}' is not a tensor of the formula")
    derivatives: dict[Expr, Expr] = {}
    for node in walk(expr, unique=True):  # operands first: a node's rule finds theirs ready
        derivatives[node] = _rule(node, derivatives, wrt)
    return fold_constants(derivatives[expr])


def _rule(node: Expr, d: dict[Expr, Expr], wrt: str) -> Expr:
    if isinstance(node, Const):
        return _ZERO
    if isinstance(node, Name):
        return _ONE if node.name == wrt and node.kind is SymbolKind.TENSOR else _ZERO
    if isinstance(node, (BoolConst, Str, Compare, Logical)):
        return _ZERO  # booleans: only ever a where() condition, which is not differentiated
    if isinstance(node, Unary):
        return _neg(d[node.x])
    if isinstance(node, Select):
        return _where(node.cond, d[node.a], d[node.b])
    if isinstance(node, Call):
        partials = FUNCTIONS[node.func].partials(*node.args)
        total: Expr = _ZERO
        for partial, arg in zip(partials, node.args, strict=True):
            total = _add(total, _mul(partial, d[arg]))
        return total
    assert isinstance(node, Binary)
    a, b, da, db = node.a, node.b, d[node.a], d[node.b]
    if node.op == "add":
        return _add(da, db)
    if node.op == "sub":
        return _sub(da, db)
    if node.op == "mul":
        return _add(_mul(da, b), _mul(a, db))
    if node.op == "div":
        # da / b - a * db / b**2, written so that a constant denominator stays a plain division
        return _sub(_div(da, b), _div(_mul(a, db), _mul(b, b)))
    if node.op == "pow":
        # the exponent is host-known (the type rules say so), so only the base varies: b * a**(b - 1) * da
        exponent = fold_constants(_sub(b, _ONE))
        return _mul(_mul(b, _pow(a, exponent)), da)
    if node.op == "max":
        return _where(Compare("ge", a, b), da, db)
    if node.op == "min":
        return _where(Compare("le", a, b), da, db)
    raise TypeError(f"not a formula IR node: {node!r}")


# ---- constructors that simplify as they build


def _is(node: Expr, value: float) -> bool:
    return isinstance(node, Const) and node.value == value  # 0.0 == -0.0: both are zero here


def _add(a: Expr, b: Expr) -> Expr:
    if _is(a, 0.0):
        return b
    if _is(b, 0.0):
        return a
    if isinstance(b, Unary):
        return _sub(a, b.x)
    return Binary("add", a, b)


def _sub(a: Expr, b: Expr) -> Expr:
    if _is(b, 0.0):
        return a
    if _is(a, 0.0):
        return _neg(b)
    return Binary("sub", a, b)


def _mul(a: Expr, b: Expr) -> Expr:
    if _is(a, 0.0) or _is(b, 0.0):
        return _ZERO
    if _is(a, 1.0):
        return b
    if _is(b, 1.0):
        return a
    if _is(a, -1.0):
        return _neg(b)
    if _is(b, -1.0):
        return _neg(a)
    if isinstance(a, Unary) and isinstance(b, Unary):
        return _mul(a.x, b.x)
    if isinstance(a, Unary) or isinstance(b, Unary):
        return _neg(_mul(a.x if isinstance(a, Unary) else a, b.x if isinstance(b, Unary) else b))
    return Binary("mul", a, b)


def _div(a: Expr, b: Expr) -> Expr:
    if _is(a, 0.0):
        return _ZERO
    if _is(b, 1.0):
        return a
    return Binary("div", a, b)


def _neg(a: Expr) -> Expr:
    if isinstance(a, Const):
        return Const(-a.value) if a.value != 0 else _ZERO
    if isinstance(a, Unary):
        return a.x
    return Unary("neg", a)


def _pow(a: Expr, exponent: Expr) -> Expr:
    if _is(exponent, 1.0):
        return a
    if _is(exponent, 0.0):
        return _ONE
    return Binary("pow", a, exponent)


def _where(cond: Expr, a: Expr, b: Expr) -> Expr:
    if a == b:
        return a
    return Select(cond, a, b)


# ---- numeric comparison


@dataclass(frozen=True)
class Difference:
    """Where two formulas disagree: the tensor values of the point and each formula's value there."""

    point: Mapping[str, float]
    first: float
    second: float


def first_difference(
    first: Expr,
    second: Expr,
    values: Mapping[str, float | bool | int | str],
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    samples: int = 200,
    span: float = 40.0,
    seed: int = 0,
) -> Difference | None:
    """The first sample point where `first` and `second` differ (float64), or None if they agree at all.

    `values` gives every scalar and flag. Tensors take random values in [-span, span]; then each tensor in turn
    sweeps, the others held, over random points and over points just either side of every branch boundary either
    formula has along it (where a comparison, min/max, abs/sign or floor/trunc switches), never on one: there a
    derivative's value is a convention. Values agree when both are NaN, equal infinities, or within
    atol + rtol * |second|.
    """
    tensors = sorted(set(free_names(first, SymbolKind.TENSOR)) | set(free_names(second, SymbolKind.TENSOR)))
    rng = np.random.default_rng(seed)
    base = {name: float(rng.uniform(-3.0, 3.0)) for name in tensors}
    points: list[dict[str, float]] = [dict(base)]
    for name in tensors:
        along = list(_boundary_neighbours(first, name, base, values, span))
        along += _boundary_neighbours(second, name, base, values, span)
        along += list(rng.uniform(-span, span, samples))
        points += [{**base, name: float(t)} for t in along]
    env = {**values, **{name: np.array([p[name] for p in points]) for name in tensors}}
    a = np.broadcast_to(evaluate(first, env), (len(points),))
    b = np.broadcast_to(evaluate(second, env), (len(points),))
    with np.errstate(invalid="ignore"):
        same = (np.isnan(a) & np.isnan(b)) | (a == b) | (np.abs(a - b) <= atol + rtol * np.abs(b))
    if same.all():
        return None
    index = int(np.argmin(same))
    return Difference(points[index], float(a[index]), float(b[index]))


def _boundary_neighbours(
    expr: Expr, name: str, base: Mapping[str, float], values: Mapping[str, float | bool | int | str], span: float
) -> list[float]:
    """Points just either side of each place along `name` where a piece of `expr` switches."""
    grid = np.linspace(-span, span, 8001)
    result: list[float] = []
    for indicator in _switches(expr):
        if name not in free_names(indicator):
            continue

        def side(t: np.ndarray, indicator: Expr = indicator) -> np.ndarray:
            env = {**values, **base, name: t}
            return np.broadcast_to(evaluate(indicator, env), np.shape(t))

        with np.errstate(all="ignore"):
            states = side(grid)
            changes = np.nonzero(states[1:] != states[:-1])[0]
            if changes.size == 0:
                continue
            lo, hi = grid[changes], grid[changes + 1]
            left = states[changes]
            for _ in range(48):  # bisect every switch at once (to ~1e-16 of the grid step), lo on the left side
                mid = (lo + hi) / 2
                on_left = side(mid) == left
                lo, hi = np.where(on_left, mid, lo), np.where(on_left, hi, mid)
            step = 1e-6 * np.maximum(1.0, np.abs(lo))
            result += [float(v) for pair in zip(lo - step, hi + step, strict=True) for v in pair]
    return result


def _switches(expr: Expr) -> list[Expr]:
    """Expressions (over the formula's names) whose value changes exactly where a piece of `expr` switches."""
    found: list[Expr] = []
    for node in walk(expr, unique=True):
        if isinstance(node, Compare):
            found.append(node)
        elif isinstance(node, Binary) and node.op in ("min", "max"):
            found.append(Compare("le", node.a, node.b))
        elif isinstance(node, Call) and node.func in ("abs", "sign"):
            found.append(Compare("gt", node.args[0], _ZERO))
            found.append(Compare("lt", node.args[0], _ZERO))
        elif isinstance(node, Call) and node.func in ("floor", "trunc"):
            found.append(node)
    return found
