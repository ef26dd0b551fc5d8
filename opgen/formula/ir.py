"""Typed expression IR of operator formulas.

Nodes are frozen and hashable (hash cached per node) so that callers can hash-cons them, find common
subexpressions and count live buffers. Structural equality is exact: `Const` compares by the bits
of its float (so -0.0 != 0.0, and every NaN equals every NaN), which keeps rewriting IEEE-faithful.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any, TypeVar, dataclass_transform

from .grammar import CALL_ARITY, REDUCTION_SPELLING
from .symbols import SymbolKind

ARITH_OPS = frozenset({"add", "sub", "mul", "div", "pow", "min", "max"})
COMPARE_OPS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
LOGICAL_ARITY = {"and": 2, "or": 2, "not": 1}
UNARY_OPS = frozenset({"neg"})
REDUCE_OPS = frozenset(REDUCTION_SPELLING)


class Expr:
    """Base of all IR nodes."""

    __slots__ = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]


_E = TypeVar("_E", bound=Expr)


@dataclass_transform(frozen_default=True, eq_default=False)
def _node(cls: type[_E]) -> type[_E]:
    """Make `cls` a frozen dataclass whose hash is computed once and whose equality short-cuts on it.

    The hash is computed when the node is built, from its operands' (already computed) hashes: hashing a
    tree never recurses, however deep it is.
    """
    node_cls: Any = dataclass(frozen=True, eq=False, repr=False)(cls)
    init = node_cls.__init__

    @functools.wraps(init)
    def __init__(self: Expr, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        object.__setattr__(self, "_hash", hash((type(self).__name__,) + self._key()))

    def __hash__(self: Expr) -> int:
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:  # e.g. unpickled from another process (string hashes differ between processes)
            cached = hash((type(self).__name__,) + self._key())
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self: Expr) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __eq__(self: Expr, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        return hash(self) == hash(other) and _same_tree(self, other)

    node_cls.__init__ = __init__
    node_cls.__getstate__ = __getstate__
    node_cls.__hash__ = __hash__
    node_cls.__eq__ = __eq__
    node_cls.__repr__ = _repr
    return cls


def _same_tree(first: Expr, second: Expr) -> bool:
    """Structural equality, compared with an explicit stack: deep trees do not recurse."""
    pending = [(first, second)]
    while pending:
        a, b = pending.pop()
        if a is b:
            continue
        if type(a) is not type(b) or hash(a) != hash(b):
            return False
        a_kids, b_kids = children(a), children(b)
        if len(a_kids) != len(b_kids) or _own_key(a) != _own_key(b):
            return False
        pending.extend(zip(a_kids, b_kids, strict=True))
    return True


def _repr(expr: Expr) -> str:
    """The dataclass repr, `Binary(op='add', a=Name(...), b=Const(value=1.0))`, built bottom-up (no recursion)."""
    done: dict[Expr, str] = {}
    for node in walk(expr, unique=True):
        parts = []
        for f in fields(node):  # type: ignore[arg-type]
            value = getattr(node, f.name)
            if isinstance(value, Expr):
                text = done[value]
            elif isinstance(value, tuple) and all(isinstance(v, Expr) for v in value):
                items = [done[v] for v in value]
                text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            else:
                text = repr(value)
            parts.append(f"{f.name}={text}")
        done[node] = f"{type(node).__qualname__}({', '.join(parts)})"
    return done[expr]


def _own_key(node: Expr) -> tuple:
    """The parts of a node's key that are not operands (op names, values, symbol names)."""
    return tuple(part for part in node._key() if not isinstance(part, (Expr, tuple)))


@_node
class Const(Expr):
    value: float

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise TypeError(f"Const needs a number, got {self.value!r}")
        value = float(self.value)
        object.__setattr__(self, "value", math.nan if math.isnan(value) else value)

    def _key(self) -> tuple:
        return (self.value.hex(),)


@_node
class BoolConst(Expr):
    value: bool

    def __post_init__(self) -> None:
        if not isinstance(self.value, bool):
            raise TypeError(f"BoolConst needs a bool, got {self.value!r}")


@_node
class Str(Expr):
    """A string literal: compared (== / !=) with a string parameter, folded away when the kernel mode is fixed."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str):
            raise TypeError(f"Str needs a str, got {self.value!r}")


@_node
class Name(Expr):
    name: str
    kind: SymbolKind


@_node
class Unary(Expr):
    op: str  # "neg"
    x: Expr

    def __post_init__(self) -> None:
        _check_op(self.op, UNARY_OPS, "Unary")


@_node
class Binary(Expr):
    op: str  # add sub mul div pow min max
    a: Expr
    b: Expr

    def __post_init__(self) -> None:
        _check_op(self.op, ARITH_OPS, "Binary")


@_node
class Compare(Expr):
    op: str  # lt le gt ge eq ne
    a: Expr
    b: Expr

    def __post_init__(self) -> None:
        _check_op(self.op, COMPARE_OPS, "Compare")


@_node
class Logical(Expr):
    op: str  # and, or (two args); not (one arg)
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _check_op(self.op, LOGICAL_ARITY, "Logical")
        object.__setattr__(self, "args", tuple(self.args))
        if len(self.args) != LOGICAL_ARITY[self.op]:
            raise ValueError(f"Logical '{self.op}' takes {LOGICAL_ARITY[self.op]} operands, got {len(self.args)}")


@_node
class Call(Expr):
    func: str  # a function of the language (grammar.CALL_ARITY; functions.FUNCTIONS says what it computes)
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _check_op(self.func, CALL_ARITY, "Call")
        object.__setattr__(self, "args", tuple(self.args))
        arity = CALL_ARITY[self.func]
        if len(self.args) != arity:
            plural = "argument" if arity == 1 else "arguments"
            raise ValueError(f"{self.func}() takes {arity} {plural}, got {len(self.args)}")


@_node
class Select(Expr):
    cond: Expr
    a: Expr  # taken where cond is true
    b: Expr  # taken where cond is false (including comparisons with NaN, as in PyTorch)


@_node
class Reduce(Expr):
    """A reduction of `x` along the operator's dim, broadcast back along it: every element of a row (the elements
    sharing every index but dim's) gets the row's max or sum. Spelled rowmax(x) / rowsum(x)."""

    op: str  # max sum
    x: Expr

    def __post_init__(self) -> None:
        _check_op(self.op, REDUCE_OPS, "Reduce")


def _check_op(op: str, allowed, node: str) -> None:
    if op not in allowed:
        raise ValueError(f"{node} op must be one of {sorted(allowed)}, got {op!r}")


def children(node: Expr) -> tuple[Expr, ...]:
    """Direct operands of `node`, left to right."""
    if isinstance(node, (Const, BoolConst, Str, Name)):
        return ()
    if isinstance(node, (Unary, Reduce)):
        return (node.x,)
    if isinstance(node, (Binary, Compare)):
        return (node.a, node.b)
    if isinstance(node, (Logical, Call)):
        return node.args
    if isinstance(node, Select):
        return (node.cond, node.a, node.b)
    raise TypeError(f"not a formula IR node: {node!r}")


def replace_children(node: Expr, new: tuple[Expr, ...] | list[Expr]) -> Expr:
    """`node` with its operands replaced by `new` (same order as `children`)."""
    new = tuple(new)
    if new == children(node):
        return node
    if isinstance(node, Unary):
        return Unary(node.op, *new)
    if isinstance(node, Binary):
        return Binary(node.op, *new)
    if isinstance(node, Compare):
        return Compare(node.op, *new)
    if isinstance(node, Logical):
        return Logical(node.op, new)
    if isinstance(node, Call):
        return Call(node.func, new)
    if isinstance(node, Select):
        return Select(*new)
    if isinstance(node, Reduce):
        return Reduce(node.op, *new)
    raise ValueError(f"{type(node).__name__} has no operands to replace")


def walk(expr: Expr, *, unique: bool = False) -> Iterator[Expr]:
    """Post-order traversal: every operand before the node using it, operands left to right.

    With `unique=True` each distinct (equal) subexpression is yielded once, at its first occurrence,
    which is the order a common-subexpression-eliminating code generator would compute them in.
    """
    seen: set[Expr] = set()
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if unique:
                if node in seen:
                    continue
                seen.add(node)
            yield node
            continue
        if unique and node in seen:
            continue
        stack.append((node, True))
        for child in reversed(children(node)):
            stack.append((child, False))


def rewrite(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """Rebuild `expr` bottom-up: `fn` sees each node with its operands already rewritten."""
    done: dict[Expr, Expr] = {}
    for node in walk(expr, unique=True):
        rebuilt = replace_children(node, [done[c] for c in children(node)])
        done[node] = fn(rebuilt)
    return done[expr]


def depth(expr: Expr) -> int:
    """Height of the tree (a leaf has depth 1)."""
    heights: dict[Expr, int] = {}
    for node in walk(expr, unique=True):
        heights[node] = 1 + max((heights[c] for c in children(node)), default=0)
    return heights[expr]


def free_names(expr: Expr, kind: SymbolKind | None = None) -> tuple[str, ...]:
    """Names used by `expr` (optionally only those of `kind`), in order of first appearance."""
    found: dict[str, None] = {}
    for node in walk(expr, unique=True):
        if isinstance(node, Name) and (kind is None or node.kind is kind):
            found.setdefault(node.name)
    return tuple(found)


def has_reduction(expr: Expr) -> bool:
    """Whether `expr` reduces along the operator's dim anywhere (a Reduce node)."""
    return any(isinstance(node, Reduce) for node in walk(expr, unique=True))


def reductions(expr: Expr) -> tuple[Reduce, ...]:
    """The reductions in `expr`, innermost first (each distinct one once)."""
    return tuple(node for node in walk(expr, unique=True) if isinstance(node, Reduce))


def varies_along_row(expr: Expr) -> bool:
    """Whether `expr` may differ between the elements of a row: it reads a tensor outside every reduction. One that
    does not (`rowsum(-labels * log(p))`) has one value per row, and may be an output with dim removed."""
    along: dict[Expr, bool] = {}
    for node in walk(expr, unique=True):
        if isinstance(node, Reduce):
            along[node] = False
        elif isinstance(node, Name):
            along[node] = node.kind is SymbolKind.TENSOR
        else:
            along[node] = any(along[c] for c in children(node))
    return along[expr]


def is_string(node: Expr) -> bool:
    """A string operand: a literal or a string parameter (the type rules allow nothing else to be a string)."""
    return isinstance(node, Str) or (isinstance(node, Name) and node.kind is SymbolKind.STRING)


def flags_used(expr: Expr) -> tuple[str, ...]:
    """Mode flags `expr` depends on, in order of first appearance."""
    return free_names(expr, SymbolKind.FLAG)


def tie_operands(node: Binary) -> tuple[Expr, Expr]:
    """min/max's operands, the one it returns on a tie (-0.0 against 0.0) first: the tensor operand against a bound
    known on the host (torch's clamp and relu keep x, so max(0, x) and max(x, 0) are relu alike), else the first
    (torch.maximum/minimum). Every evaluation of min/max (reference, generated sources, kernel) takes this order."""
    a, b = node.a, node.b
    if not free_names(a, SymbolKind.TENSOR) and free_names(b, SymbolKind.TENSOR):
        return b, a
    return a, b
