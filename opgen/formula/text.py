"""Canonical formula text of an IR: `parse(to_text(e), symbols) == e` for every well-typed `e`.

Parentheses appear only where precedence or associativity needs them; `where`, `min` and `max` are
spelled as calls, `clamp` comes back as its `min(max(...))` expansion.
"""

from __future__ import annotations

import math

from .grammar import ARITH_PREC, ARITH_TOKENS, COMPARE_TOKENS, REDUCTION_SPELLING, Prec
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
    walk,
)

_ARITH_SPELLING = {op: tok for tok, op in ARITH_TOKENS.items()}
_COMPARE_SPELLING = {op: tok for tok, op in COMPARE_TOKENS.items()}
_LOGICAL_PREC = {"or": Prec.OR, "and": Prec.AND}


def number_text(value: float) -> str:
    """Shortest text that parses back to exactly `value` (named constants by name)."""
    if math.isnan(value):
        return "nan"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    magnitude = abs(value)
    if math.isinf(magnitude):
        body = "inf"
    elif magnitude == math.pi:
        body = "pi"
    elif magnitude == math.e:
        body = "e"
    elif magnitude.is_integer() and magnitude < 1e16:
        body = str(int(magnitude))
    else:
        body = repr(magnitude)
    return sign + body


def to_text(expr: Expr) -> str:
    # Bottom-up over the tree (operands first), so printing never recurses, however deep the formula.
    printed: dict[Expr, tuple[str, Prec]] = {}
    for node in walk(expr, unique=True):
        printed[node] = _format(node, printed)
    return printed[expr][0]


def _wrap(node: Expr, min_prec: int, printed: dict[Expr, tuple[str, Prec]]) -> str:
    text, prec = printed[node]
    return text if prec >= min_prec else f"({text})"


def _format(node: Expr, printed: dict[Expr, tuple[str, Prec]]) -> tuple[str, Prec]:
    """Text and precedence of `node`, given those of its operands in `printed`."""

    def text(operand: Expr) -> str:
        return printed[operand][0]

    def wrap(operand: Expr, min_prec: int) -> str:
        return _wrap(operand, min_prec, printed)

    if isinstance(node, Const):
        value = number_text(node.value)
        return value, Prec.UNARY if value.startswith("-") else Prec.ATOM
    if isinstance(node, BoolConst):
        return ("true" if node.value else "false"), Prec.ATOM
    if isinstance(node, Str):
        return f'"{node.value}"', Prec.ATOM  # values hold no quotes (the lexer's string body)
    if isinstance(node, Name):
        return node.name, Prec.ATOM
    if isinstance(node, Unary):
        # A sign glued to a literal would fold into the constant; parentheses keep the negation.
        operand = f"({text(node.x)})" if isinstance(node.x, Const) else wrap(node.x, Prec.UNARY)
        return f"-{operand}", Prec.UNARY
    if isinstance(node, Binary):
        if node.op in ("min", "max"):
            return f"{node.op}({text(node.a)}, {text(node.b)})", Prec.ATOM
        if node.op == "pow":
            return f"{wrap(node.a, Prec.ATOM)} ** {wrap(node.b, Prec.UNARY)}", Prec.POW
        prec = ARITH_PREC[node.op]
        return f"{wrap(node.a, prec)} {_ARITH_SPELLING[node.op]} {wrap(node.b, prec + 1)}", prec
    if isinstance(node, Compare):
        # Operands one level tighter than comparisons: they never chain.
        return (
            f"{wrap(node.a, Prec.ADD)} {_COMPARE_SPELLING[node.op]} {wrap(node.b, Prec.ADD)}",
            Prec.COMPARE,
        )
    if isinstance(node, Logical):
        if node.op == "not":
            return f"not {wrap(node.args[0], Prec.NOT)}", Prec.NOT
        prec = _LOGICAL_PREC[node.op]
        left, right = node.args
        return f"{wrap(left, prec)} {node.op} {wrap(right, prec + 1)}", prec
    if isinstance(node, Call):
        return f"{node.func}({', '.join(text(a) for a in node.args)})", Prec.ATOM
    if isinstance(node, Reduce):
        return f"{REDUCTION_SPELLING[node.op]}({text(node.x)})", Prec.ATOM
    if isinstance(node, Select):
        return f"where({text(node.cond)}, {text(node.a)}, {text(node.b)})", Prec.ATOM
    raise TypeError(f"not a formula IR node: {node!r}")
