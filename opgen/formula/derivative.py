"""Symbolic differentiation of formulas, and a numeric check that two formulas agree.

    d = differentiate(parse("x * sigmoid(x)", symbols), "x")   # sigmoid(x) + x * (sigmoid(x) * (1 - sigmoid(x)))
    first_difference(d, parse("...", symbols), {"beta": 1.0})  # None, or the first point where they differ

Rules: each math function's derivative comes from its record in the function table; `where`/`select`
differentiate branch-wise (the condition is not differentiated); min/max are piecewise with ties going to the
first argument (`max(a, b)` is `where(a >= b, a, b)`), so the derivative of clamp(x, lo, hi) is 1 on the closed
interval, as in PyTorch; abs, sign, floor and trunc are piecewise (abs' = sign, the others 0); comparisons and
logic are constant. A kink's value of the derivative is a convention: compare derivatives away from kinks,
which is what `first_difference` does.

Reductions along the operator's dim make each output element depend on its whole row, so the derivative is a
Jacobian per row. `differentiate` then gives the derivative along the direction that moves every element of the
tensor alike (rowsum(e)' = rowsum(e'), rowmax(e)' = e' at the row's maximum, shared among ties as torch's amax);
`vjp` gives what a backward computes, the gradient times the Jacobian, symbolically (reverse mode: a reduction's
adjoint is the row sum of its users' adjoints, spread over the row's elements), and `first_row_difference` compares
two formulas over sample rows.

Simplification is algebraic, not IEEE: 0 * e and 0 / e are 0 and e + 0 is e even where e is inf or NaN, as in
the mathematics of derivatives; then constants are folded exactly (`fold_constants`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
    Reduce,
    Select,
    Str,
    Unary,
    children,
    free_names,
    has_reduction,
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
    if isinstance(node, Reduce):
        if node.op == "sum":
            return _reduce("sum", d[node.x])
        at_max = Compare("eq", node.x, node)  # the row's maxima (several on a tie) share the change
        return _div(_reduce("sum", _where(at_max, d[node.x], _ZERO)), _reduce("sum", _where(at_max, _ONE, _ZERO)))
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


def vjp(expr: Expr, wrt: str, grad: Expr) -> Expr:
    """What a backward computes for the forward `expr`: at each element k of the tensor `wrt`, the sum over the
    elements j of its row of grad_j * d expr_j / d wrt_k (for an elementwise `expr`, grad * differentiate(expr, wrt)).
    Reverse mode over the IR: each node's adjoint is the sum of what its users pass back, a reduction passing back
    the row sum of its own adjoint (rowsum to every element, rowmax to the row's maxima, shared among ties)."""
    if wrt not in free_names(expr, SymbolKind.TENSOR) and wrt in free_names(expr):
        raise ValueError(f"vjp: '{wrt}' is not a tensor of the formula")
    order = list(walk(expr, unique=True))  # operands before users: reversed, every user comes before its operands
    depends: dict[Expr, bool] = {}
    for node in order:
        is_wrt = isinstance(node, Name) and node.name == wrt and node.kind is SymbolKind.TENSOR
        depends[node] = is_wrt or any(depends[c] for c in children(node))
    adjoint: dict[Expr, Expr] = {expr: grad}
    for node in reversed(order):
        total = adjoint.get(node)
        if total is None or _is(total, 0.0):
            continue
        for operand, passed in _pullback(node, total):
            if depends[operand] and not _is(passed, 0.0):
                adjoint[operand] = _add(adjoint[operand], passed) if operand in adjoint else passed
    return fold_constants(adjoint.get(Name(wrt, SymbolKind.TENSOR), _ZERO))


def _pullback(node: Expr, adj: Expr) -> list[tuple[Expr, Expr]]:
    """(operand, the adjoint `node` passes it) for each operand a number flows through."""
    if isinstance(node, Unary):
        return [(node.x, _neg(adj))]
    if isinstance(node, Select):
        return [(node.a, _where(node.cond, adj, _ZERO)), (node.b, _where(node.cond, _ZERO, adj))]
    if isinstance(node, Call):
        partials = FUNCTIONS[node.func].partials(*node.args)
        return [(arg, _mul(adj, partial)) for partial, arg in zip(partials, node.args, strict=True)]
    if isinstance(node, Reduce):
        row = _reduce("sum", adj)
        if node.op == "sum":
            return [(node.x, row)]
        at_max = Compare("eq", node.x, node)
        return [(node.x, _where(at_max, _div(row, _reduce("sum", _where(at_max, _ONE, _ZERO))), _ZERO))]
    if not isinstance(node, Binary):
        return []  # constants, names, booleans: nothing flows further
    a, b = node.a, node.b
    if node.op == "add":
        return [(a, adj), (b, adj)]
    if node.op == "sub":
        return [(a, adj), (b, _neg(adj))]
    if node.op == "mul":
        return [(a, _mul(adj, b)), (b, _mul(adj, a))]
    if node.op == "div":
        return [(a, _div(adj, b)), (b, _neg(_div(_mul(adj, a), _mul(b, b))))]
    if node.op == "pow":  # the exponent is host-known
        return [(a, _mul(adj, _mul(b, _pow(a, fold_constants(_sub(b, _ONE))))))]
    taken = Compare("ge" if node.op == "max" else "le", a, b)  # ties to the first, as differentiate
    return [(a, _where(taken, adj, _ZERO)), (b, _where(taken, _ZERO, adj))]


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


def _reduce(op: str, x: Expr) -> Expr:
    if _is(x, 0.0):
        return _ZERO
    return Reduce(op, x)


# ---- numeric comparison


# How close a formula must be to a central-difference estimate of a derivative (`first_difference`'s estimate): the
# estimate's own error is about its step squared and eps over the step, relative.
ESTIMATE_RTOL = 1e-6


@dataclass(frozen=True)
class Difference:
    """Where two formulas disagree: the tensor values of the point and each formula's value there. Compared over
    rows (`first_row_difference`), the point is each tensor's row and `element` the row's element that differs."""

    point: Mapping[str, float | tuple[float, ...]]
    first: float
    second: float
    element: int | None = None


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
    estimate: Callable[[Mapping[str, Any]], np.ndarray] | None = None,
) -> Difference | None:
    """The first sample point where `first` and `second` differ (float64), or None if they agree at all.

    `values` gives every scalar and flag. Tensors take random values in [-span, span]; then each tensor in turn
    sweeps, the others held, over random points and over points just either side of every branch boundary either
    formula has along it (where a comparison, min/max, abs/sign or floor/trunc switches), never on one: there a
    derivative's value is a convention. Values agree when both are NaN, equal infinities, or within
    atol + rtol * |second|.

    `estimate` (the environment of the points -> another value of `second` there) stands in where `second` is NaN
    and `first` is not: a symbolic derivative evaluated in float64 gives NaN where an intermediate overflows (inf /
    inf) though the derivative exists; a central difference of the differentiated function estimates it there
    (`first` agreeing within ESTIMATE_RTOL), and is NaN itself where that function is.
    """
    if has_reduction(first) or has_reduction(second):
        raise ValueError("first_difference: a formula reduces along dim; compare rows with first_row_difference")
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
    broken = np.isnan(b) & ~np.isnan(a)
    if estimate is not None and broken.any():
        guess = np.broadcast_to(estimate(env), (len(points),))
        with np.errstate(invalid="ignore"):
            near = (a == guess) | (np.abs(a - guess) <= atol + ESTIMATE_RTOL * np.abs(guess))
        same |= broken & near
        b = np.where(broken, guess, b)
    if same.all():
        return None
    index = int(np.argmin(same))
    return Difference(points[index], float(a[index]), float(b[index]))


ROW_LENGTHS = (1, 2, 3, 5)  # a row of one element, and short rows with a maximum among others


def first_row_difference(
    first: Expr,
    second: Expr,
    values: Mapping[str, float | bool | int | str],
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    lengths: tuple[int, ...] = ROW_LENGTHS,
    samples: int = 24,
    span: float = 40.0,
    seed: int = 0,
) -> Difference | None:
    """The first sample row where `first` and `second` (formulas that may reduce along dim) differ at an element, or
    None if they agree everywhere (float64; values agree as in `first_difference`).

    For each row length, tensors take random rows in [-3, 3]; then each element of each tensor in turn sweeps, the
    rest of the rows held, over random values in [-span, span] and over values just either side of every place
    where a piece of either formula switches along it (a comparison, min/max, abs/sign, floor/trunc, and which
    element is the row's maximum), never on one."""
    tensors = sorted(set(free_names(first, SymbolKind.TENSOR)) | set(free_names(second, SymbolKind.TENSOR)))
    rng = np.random.default_rng(seed)
    for length in lengths:
        rows = {name: rng.uniform(-3.0, 3.0, (samples, length)) for name in tensors}
        base = {name: rows[name][0] for name in tensors}
        for name in tensors:
            for element in range(length):
                along = _row_boundaries(first, name, element, base, values, span)
                along += _row_boundaries(second, name, element, base, values, span)
                along += list(rng.uniform(-span, span, samples))
                for other in tensors:
                    swept = np.tile(base[other], (len(along), 1))
                    if other == name:
                        swept[:, element] = along
                    rows[other] = np.concatenate([rows[other], swept])
        found = _first_row_mismatch(first, second, values, rows, rtol, atol)
        if found is not None:
            return found
    return None


def _first_row_mismatch(
    first: Expr,
    second: Expr,
    values: Mapping[str, float | bool | int | str],
    rows: Mapping[str, np.ndarray],
    rtol: float,
    atol: float,
) -> Difference | None:
    env = {**values, **rows}
    shape = next(iter(rows.values())).shape if rows else ()
    a = np.broadcast_to(evaluate(first, env, axis=-1), shape)
    b = np.broadcast_to(evaluate(second, env, axis=-1), shape)
    with np.errstate(invalid="ignore"):
        same = (np.isnan(a) & np.isnan(b)) | (a == b) | (np.abs(a - b) <= atol + rtol * np.abs(b))
    if same.all():
        return None
    row, element = (int(i) for i in np.unravel_index(int(np.argmin(same)), same.shape))
    point = {name: tuple(float(v) for v in values_[row]) for name, values_ in rows.items()}
    return Difference(point, float(a[row, element]), float(b[row, element]), element)


def _row_boundaries(
    expr: Expr,
    name: str,
    element: int,
    base: Mapping[str, np.ndarray],
    values: Mapping[str, float | bool | int | str],
    span: float,
) -> list[float]:
    """Values of `name`'s `element` (the rest of the rows at `base`) just either side of each place where a piece
    of `expr` switches at any element of the row."""
    grid = np.linspace(-span, span, 8001)
    result: list[float] = []
    for indicator in _switches(expr):
        if name not in free_names(indicator):
            continue

        def side(t: np.ndarray, indicator: Expr = indicator) -> np.ndarray:
            env: dict[str, object] = {**values, **{k: np.tile(v, (t.size, 1)) for k, v in base.items()}}
            row = np.tile(base[name], (t.size, 1))
            row[:, element] = t
            env[name] = row
            return np.broadcast_to(evaluate(indicator, env, axis=-1), row.shape)  # type: ignore[arg-type]

        with np.errstate(all="ignore"):
            states = side(grid)
            changes = np.nonzero(np.any(states[1:] != states[:-1], axis=1))[0]
            if changes.size == 0:
                continue
            lo, hi = grid[changes], grid[changes + 1]
            left = states[changes]
            for _ in range(48):  # bisect every switch at once, lo on the left side (as _boundary_neighbours)
                mid = (lo + hi) / 2
                on_left = np.all(side(mid) == left, axis=1)
                lo, hi = np.where(on_left, mid, lo), np.where(on_left, hi, mid)
            step = 1e-6 * np.maximum(1.0, np.abs(lo))
            result += [float(v) for pair in zip(lo - step, hi + step, strict=True) for v in pair]
    return result


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
        elif isinstance(node, Reduce) and node.op == "max":
            found.append(Compare("ge", node.x, node))  # which elements are the row's maximum
    return found
