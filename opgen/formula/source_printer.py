"""IR -> source text of another language, driven by a dialect table (C++ and numpy share the walk)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

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
    is_string,
    tie_operands,
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
    calls: Mapping[str, str]  # math functions, templates over {} (the argument) or {0}, {1}, ...
    select: str  # template over {c}, {a}, {b}
    string: Callable[[str], str]  # a string literal
    string_compare: Mapping[str, str]  # == / != of two strings, templates over {a} and {b}
    # reductions along dim by op (max, sum), templates over {} (the operand) and {a} (the axis, and the shape the
    # operand is broadcast to when the caller gives one); a language without them has none
    reductions: Mapping[str, str] = field(default_factory=dict)
    name: str = "this language"  # in the error for a node the dialect cannot write


@dataclass(frozen=True)
class Row:
    """Where a printed reduction reduces: the source of the axis and, optionally, of the shape its operand is
    broadcast to first (the formula's tensors' common shape; without it the operand's own)."""

    axis: str
    shape: str | None = None


def print_source(expr: Expr, dialect: Dialect, names: Mapping[str, str] | None = None, row: Row | None = None) -> str:
    """Source of `expr`; `row` says where its reductions reduce (needed when it has any)."""
    names = names or {}
    # Bottom-up over the tree (operands first), so printing never recurses, however deep the formula.
    emitted: dict[Expr, str] = {}
    for node in walk(expr, unique=True):
        operands = [emitted[c] for c in children(node)]
        if isinstance(node, Reduce):
            emitted[node] = _reduction(node, operands[0], dialect, row)
        else:
            emitted[node] = _emit(node, operands, dialect, names)
    return emitted[expr]


def _reduction(node: Reduce, operand: str, dialect: Dialect, row: Row | None) -> str:
    template = dialect.reductions.get(node.op)
    if template is None:
        raise ValueError(f"{dialect.name} has no reduction along dim ({node.op} of a row)")
    if row is None:
        raise ValueError("the formula reduces along the operator's dim: give the row's axis (Row)")
    axis = row.axis if row.shape is None else f"{row.axis}, shape={row.shape}"
    return _fill(template, _=operand, a=axis)


_PLACEHOLDER = re.compile(r"\{(\w?)\}")


def _fill(template: str, **operands: str) -> str:
    """The template with its operands (`{}` is operand `_`); an operand that is a whole call argument
    (`f({})`, `f({a}, {b})`) loses its own outer parentheses (`np.exp((a * b))` -> `np.exp(a * b)`), one that
    stands inside an expression keeps them."""

    def replace(match: re.Match[str]) -> str:
        text = operands[match.group(1) or "_"]
        before = template[: match.start()].rstrip(" ")
        after = template[match.end() :].lstrip(" ")
        whole_argument = before.endswith(("(", ",")) and after.startswith((")", ","))
        return _bare(text) if whole_argument else text

    return _PLACEHOLDER.sub(replace, template)


def _bare(text: str) -> str:
    """`text` without one pair of parentheses that encloses all of it."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and index < len(text) - 1:
            return text  # `(a) * (b)`: the first parenthesis closes early
    return text[1:-1]


def _emit(node: Expr, operands: list[str], dialect: Dialect, names: Mapping[str, str]) -> str:
    """Source of `node`, given the source of its operands (in `children` order)."""
    if isinstance(node, Const):
        return dialect.literal(node.value)
    if isinstance(node, BoolConst):
        return dialect.true if node.value else dialect.false
    if isinstance(node, Str):
        return dialect.string(node.value)
    if isinstance(node, Name):
        return names.get(node.name, node.name)
    if isinstance(node, Unary):
        return f"(-{operands[0]})"
    if isinstance(node, Binary):
        a, b = operands
        if node.op in dialect.infix:
            return f"({a} {dialect.infix[node.op]} {b})"
        if node.op in ("min", "max") and tie_operands(node)[0] is not node.a:
            a, b = b, a  # the operand kept on a tie first (min and max are symmetric otherwise)
        return _fill(dialect.binary_calls[node.op], a=a, b=b)
    if isinstance(node, Compare):
        if is_string(node.a):
            return _fill(dialect.string_compare[node.op], a=operands[0], b=operands[1])
        return f"({operands[0]} {COMPARE_SYMBOLS[node.op]} {operands[1]})"
    if isinstance(node, Logical):
        return _fill(dialect.logical[node.op], a=operands[0], b=operands[-1])
    if isinstance(node, Call):
        # `{}` is the first argument, `{0}`, `{1}`, ... each argument by position
        return _fill(dialect.calls[node.func], _=operands[0], **{str(i): op for i, op in enumerate(operands)})
    if isinstance(node, Select):
        c, a, b = operands
        return _fill(dialect.select, c=c, a=a, b=b)
    raise TypeError(f"not a formula IR node: {node!r}")
