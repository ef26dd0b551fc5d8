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

    def emit(node: Expr) -> str:
        if isinstance(node, Const):
            return dialect.literal(node.value)
        if isinstance(node, BoolConst):
            return dialect.true if node.value else dialect.false
        if isinstance(node, Name):
            return names.get(node.name, node.name)
        if isinstance(node, Unary):
            return f"(-{emit(node.x)})"
        if isinstance(node, Binary):
            a, b = emit(node.a), emit(node.b)
            if node.op in dialect.infix:
                return f"({a} {dialect.infix[node.op]} {b})"
            return dialect.binary_calls[node.op].format(a=a, b=b)
        if isinstance(node, Compare):
            return f"({emit(node.a)} {COMPARE_SYMBOLS[node.op]} {emit(node.b)})"
        if isinstance(node, Logical):
            operands = [emit(arg) for arg in node.args]
            return dialect.logical[node.op].format(a=operands[0], b=operands[-1])
        if isinstance(node, Call):
            return dialect.calls[node.func].format(emit(node.args[0]))
        if isinstance(node, Select):
            return dialect.select.format(c=emit(node.cond), a=emit(node.a), b=emit(node.b))
        raise TypeError(f"not a formula IR node: {node!r}")

    return emit(expr)
