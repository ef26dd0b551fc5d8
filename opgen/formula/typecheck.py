"""Types of formula expressions: number or boolean, and varying (per element) or uniform (host-known).

`node_type` checks one node given its operands' types; the parser uses it while building the IR so
that errors point at the offending operand's column. `type_of` checks a whole (possibly hand-built)
expression.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .errors import FormulaError
from .grammar import OP_SPELLING, REDUCTION_SPELLING
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
    walk,
)
from .symbols import SymbolKind


class ValueType(Enum):
    NUM = "num"
    BOOL = "bool"
    STR = "str"  # a string literal or string parameter: only compared (== / !=) with another string


@dataclass(frozen=True)
class ExprType:
    value: ValueType
    varies: bool  # True: depends on tensor data; False: uniform, known on the host before launch

    @property
    def is_bool(self) -> bool:
        return self.value is ValueType.BOOL

    @property
    def is_str(self) -> bool:
        return self.value is ValueType.STR

    def __str__(self) -> str:
        return f"{self.value.value}-{'varying' if self.varies else 'uniform'}"


NUM_VARYING = ExprType(ValueType.NUM, True)
NUM_UNIFORM = ExprType(ValueType.NUM, False)
BOOL_VARYING = ExprType(ValueType.BOOL, True)
BOOL_UNIFORM = ExprType(ValueType.BOOL, False)
STR_UNIFORM = ExprType(ValueType.STR, False)

_NAME_TYPES = {
    SymbolKind.TENSOR: NUM_VARYING,
    SymbolKind.SCALAR: NUM_UNIFORM,
    SymbolKind.FLAG: BOOL_UNIFORM,
    SymbolKind.STRING: STR_UNIFORM,
}
_STRING_USE = 'a string can only be compared with == or != to another string, e.g. approximate == "tanh"'
_SIDES = ("left operand", "right operand")
_ORDINALS = ("first argument", "second argument", "third argument")


class TypeMismatch(Exception):
    """A type rule broken by one node; `operand` is the index of the operand to blame (None: the node)."""

    def __init__(self, message: str, operand: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.operand = operand


def _noun(t: ExprType) -> str:
    return {ValueType.BOOL: "a boolean", ValueType.NUM: "a number", ValueType.STR: "a string"}[t.value]


def _describe(node: Expr) -> str:
    if isinstance(node, Call):
        return f"{node.func}()"
    if isinstance(node, Select):
        return "where()"
    if isinstance(node, Reduce):
        return f"{REDUCTION_SPELLING[node.op]}()"
    if isinstance(node, (Binary, Logical)):
        return f"'{OP_SPELLING.get(node.op, node.op)}'"
    return "'-'"


def node_type(node: Expr, operand_types: Sequence[ExprType]) -> ExprType:
    """Type of `node` given the types of `children(node)`; raises TypeMismatch on a broken rule."""
    varies = any(t.varies for t in operand_types)
    if isinstance(node, Const):
        return NUM_UNIFORM
    if isinstance(node, Str):
        return STR_UNIFORM
    if isinstance(node, Compare):
        strings = [t.is_str for t in operand_types]
        if any(strings):
            if not all(strings):
                blame = strings.index(False)
                raise TypeMismatch(f"{_STRING_USE}; its {_SIDES[blame]} is {_noun(operand_types[blame])}", blame)
            if node.op not in ("eq", "ne"):
                raise TypeMismatch(f"operator '{OP_SPELLING[node.op]}' does not order strings; {_STRING_USE}", None)
            return BOOL_UNIFORM
    for i, t in enumerate(operand_types):
        if t.is_str:
            raise TypeMismatch(f"{_STRING_USE}; here it is an operand of {_describe(node)}", i)
    if isinstance(node, BoolConst):
        return BOOL_UNIFORM
    if isinstance(node, Name):
        return _NAME_TYPES[node.kind]
    if isinstance(node, Unary):
        if operand_types[0].is_bool:
            raise TypeMismatch("cannot negate a boolean; use 'not'", 0)
        return ExprType(ValueType.NUM, varies)
    if isinstance(node, Binary):
        spelled = OP_SPELLING[node.op]
        for i, t in enumerate(operand_types):
            if t.is_bool:
                if node.op in ("min", "max"):
                    raise TypeMismatch(f"{spelled} needs numbers, but its {_ORDINALS[i]} is a boolean", i)
                raise TypeMismatch(f"operator '{spelled}' needs numbers, but its {_SIDES[i]} is a boolean", i)
        if node.op == "pow" and operand_types[1].varies:
            raise TypeMismatch(
                "the exponent of '**' must be host-known (a constant or scalar), not tensor data;"
                " write exp(y * log(x)) for a tensor exponent",
                1,
            )
        return ExprType(ValueType.NUM, varies)
    if isinstance(node, Compare):
        for i, t in enumerate(operand_types):
            if t.is_bool:
                raise TypeMismatch(
                    f"operator '{OP_SPELLING[node.op]}' compares numbers, but its {_SIDES[i]} is a boolean", i
                )
        return ExprType(ValueType.BOOL, varies)
    if isinstance(node, Logical):
        for i, t in enumerate(operand_types):
            if not t.is_bool:
                raise TypeMismatch(
                    f"operand of '{node.op}' must be boolean, got a number (compare it, e.g. 'x > 0')", i
                )
        return ExprType(ValueType.BOOL, varies)
    if isinstance(node, Call):
        for i, t in enumerate(operand_types):
            if t.is_bool:
                which = "argument" if len(operand_types) == 1 else _ORDINALS[i]
                raise TypeMismatch(f"{which} of {node.func}() must be a number, got a boolean", i)
        return ExprType(ValueType.NUM, varies)
    if isinstance(node, Reduce):
        # Nested reductions are allowed (softmax's sum reduces exp(x - rowmax(x))); the argument must be tensor data,
        # since a host-known value has no row to reduce.
        spelled = REDUCTION_SPELLING[node.op]
        if operand_types[0].is_bool:
            raise TypeMismatch(f"argument of {spelled}() must be a number, got a boolean", 0)
        if not operand_types[0].varies:
            raise TypeMismatch(
                f"{spelled}() reduces tensor data along the operator's dim, but its argument is host-known"
                " (it reads no tensor)",
                0,
            )
        return NUM_VARYING
    if isinstance(node, Select):
        cond, a, b = operand_types
        if not cond.is_bool:
            raise TypeMismatch("condition of where() must be boolean, got a number (e.g. 'x > 0')", 0)
        if a.value is not b.value:
            raise TypeMismatch(f"branches of where() must have the same type, got {_noun(a)} and {_noun(b)}", 2)
        return ExprType(a.value, varies)
    raise TypeError(f"not a formula IR node: {node!r}")


def type_of(expr: Expr) -> ExprType:
    """Type of a whole expression. A broken rule raises FormulaError at column 0 (IR has no columns)."""
    types: dict[Expr, ExprType] = {}
    for node in walk(expr, unique=True):
        try:
            types[node] = node_type(node, [types[c] for c in children(node)])
        except TypeMismatch as err:
            raise FormulaError(err.message, 0) from None
    return types[expr]
