"""Constant folding and mode specialisation.

Folding is IEEE-exact: constant subexpressions are computed in float64 exactly as the reference does,
and only identities that hold for every float (NaN, inf and -0.0 included) are applied: x*1, 1*x,
x/1, x-0, x**1, -(-x), not(not c), where(true/false, a, b), where(c, a, a), and/or with a constant, and the
max of a row whose elements are all one value (rowmax(rowsum(x)) is rowsum(x): a row with elements; an empty row
has no element to take it).
Nothing is reassociated, so folding never changes a result.
"""

from __future__ import annotations

from collections.abc import Mapping

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
    rewrite,
    varies_along_row,
)
from .reference import BINARY, COMPARE
from .symbols import SymbolKind


def _is_const(node: Expr, value: float | None = None) -> bool:
    if not isinstance(node, Const):
        return False
    # Compare bit patterns: x - (-0.0) is not x when x is -0.0.
    return value is None or node.value.hex() == float(value).hex()


def _f64(value: float) -> np.ndarray:
    """`value` as a 0-d float64 array, for the reference's numpy functions."""
    return np.asarray(value, dtype=np.float64)


def _fold_node(node: Expr) -> Expr:
    with np.errstate(all="ignore"):
        if isinstance(node, Unary):
            if isinstance(node.x, Const):
                return Const(-node.x.value)
            if isinstance(node.x, Unary):
                return node.x.x
            return node
        if isinstance(node, Binary):
            return _fold_binary(node)
        if isinstance(node, Compare):
            if isinstance(node.a, Str) and isinstance(node.b, Str):
                return BoolConst((node.a.value == node.b.value) == (node.op == "eq"))
            if isinstance(node.a, Const) and isinstance(node.b, Const):
                return BoolConst(bool(COMPARE[node.op](_f64(node.a.value), _f64(node.b.value))))
            return node
        if isinstance(node, Call):
            if all(isinstance(a, Const) for a in node.args):
                values = [_f64(a.value) for a in node.args if isinstance(a, Const)]
                return Const(float(FUNCTIONS[node.func].evaluate(*values)))
            return node
    if isinstance(node, Logical):
        return _fold_logical(node)
    if isinstance(node, Reduce) and node.op == "max" and not varies_along_row(node.x):
        return node.x
    if isinstance(node, Select):
        if isinstance(node.cond, BoolConst):
            return node.a if node.cond.value else node.b
        if node.a == node.b:
            return node.a
    return node


def _fold_binary(node: Binary) -> Expr:
    a, b = node.a, node.b
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(float(BINARY[node.op](_f64(a.value), _f64(b.value))))
    if node.op == "mul":
        if _is_const(b, 1.0):
            return a
        if _is_const(a, 1.0):
            return b
    if node.op in ("div", "pow") and _is_const(b, 1.0):
        return a
    if node.op == "sub" and _is_const(b, 0.0):
        return a
    return node


def _fold_logical(node: Logical) -> Expr:
    if node.op == "not":
        (x,) = node.args
        if isinstance(x, BoolConst):
            return BoolConst(not x.value)
        if isinstance(x, Logical) and x.op == "not":
            return x.args[0]
        return node
    # and: a false operand decides, a true one drops out; or: the mirror image.
    decisive = node.op == "or"
    left, right = node.args
    for this, other in ((left, right), (right, left)):
        if isinstance(this, BoolConst):
            return this if this.value is decisive else other
    return node


def fold_constants(expr: Expr) -> Expr:
    """`expr` with constant subexpressions computed and IEEE-exact identities applied."""
    return rewrite(expr, _fold_node)


def substitute(expr: Expr, values: Mapping[str, float | bool | str | Expr]) -> Expr:
    """`expr` with names replaced: a number becomes Const, a bool BoolConst, a str Str, an Expr is used as is.

    A bool may only replace a flag, a str only a string and a number only a tensor or scalar; no folding is done.
    """
    replacements: dict[str, Expr] = {}
    for name, value in values.items():
        if isinstance(value, Expr):
            replacements[name] = value
        elif isinstance(value, str):
            replacements[name] = Str(value)
        elif isinstance(value, (bool, np.bool_)):
            replacements[name] = BoolConst(bool(value))
        elif isinstance(value, (int, float, np.integer, np.floating)):
            replacements[name] = Const(float(value))
        else:
            raise TypeError(f"substitute: value for '{name}' must be a number, bool or Expr, got {value!r}")

    def replace(node: Expr) -> Expr:
        if not isinstance(node, Name) or node.name not in replacements:
            return node
        new = replacements[node.name]
        if isinstance(new, Str) and node.kind is not SymbolKind.STRING:
            raise TypeError(f"substitute: value for '{node.name}' must be a number, bool or Expr, got {new.value!r}")
        if node.kind is SymbolKind.STRING and isinstance(new, (BoolConst, Const)):
            raise TypeError(f"substitute: '{node.name}' is a string and needs a str")
        if isinstance(new, (BoolConst, Const)) and isinstance(new, BoolConst) != (node.kind is SymbolKind.FLAG):
            want = "a bool" if node.kind is SymbolKind.FLAG else "a number"
            raise TypeError(f"substitute: '{node.name}' is a {node.kind.value} and needs {want}")
        return new

    return rewrite(expr, replace)


def specialize(expr: Expr, flags: Mapping[str, bool]) -> Expr:
    """`expr` for one combination of mode flags, folded: where(isResult, A, B) becomes A or B.

    Flags not used by `expr` are ignored (one combination can serve several formulas); naming a
    tensor or scalar, or giving a non-bool value, is an error.
    """
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"specialize: flag '{name}' needs a bool, got {value!r}")
    return fold_constants(substitute(expr, dict(flags)))


def is_constant(expr: Expr) -> bool:
    """Whether `expr` is a literal (after folding, e.g. the exponent of a lowered power)."""
    return isinstance(expr, (Const, BoolConst, Str))
