"""IR -> source text of another language, driven by a dialect table (C++ and numpy share the walk)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
    Unary,
    children,
    walk,
)

COMPARE_SYMBOLS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


@dataclass(frozen=True)
class Dialect:
    literal: Callable[[float], str]
    true: str
    false: str
    infix: Mapping[str, str]  # Binary ops written `(a op b)`
    binary_calls: Mapping[str, str]  # other Binary ops, as templates over {a} and {b}
    logical: Mapping[str, str]  # and/or/not templates over {a} (and {b})
    calls: Mapping[str, str]  # math functions, templates over {}
    select: str  # template over {c}, {a}, {b}


def print_source(expr: Expr, dialect: Dialect, names: Mapping[str, str] | None = None) -> str:
    names = names or {}
    # Bottom-up over the tree (operands first), so printing never recurses, however deep the formula.
    emitted: dict[Expr, str] = {}
    for node in walk(expr, unique=True):
        emitted[node] = _emit(node, [emitted[c] for c in children(node)], dialect, names)
    return emitted[expr]


def _emit(node: Expr, operands: list[str], dialect: Dialect, names: Mapping[str, str]) -> str:
    """Source of `node`, given the source of its operands (in `children` order)."""
    if isinstance(node, Const):
        return dialect.literal(node.value)
    if isinstance(node, BoolConst):
        return dialect.true if node.value else dialect.false
    if isinstance(node, Name):
        return names.get(node.name, node.name)
    if isinstance(node, Unary):
        return f"(-{operands[0]})"
    if isinstance(node, Binary):
        a, b = operands
        if node.op in dialect.infix:
            return f"({a} {dialect.infix[node.op]} {b})"
        return dialect.binary_calls[node.op].format(a=a, b=b)
    if isinstance(node, Compare):
        return f"({operands[0]} {COMPARE_SYMBOLS[node.op]} {operands[1]})"
    if isinstance(node, Logical):
        return dialect.logical[node.op].format(a=operands[0], b=operands[-1])
    if isinstance(node, Call):
        return dialect.calls[node.func].format(operands[0])
    if isinstance(node, Select):
        c, a, b = operands
        return dialect.select.format(c=c, a=a, b=b)
    raise TypeError(f"not a formula IR node: {node!r}")
