"""Spellings, reserved words and precedence of the formula language, shared by the lexer, the parser
and the printers so that the three can never disagree."""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import IntEnum

KEYWORDS = frozenset({"and", "or", "not", "true", "false"})
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}
# Names a symbol table may not bind: they would make the text ambiguous.
RESERVED = KEYWORDS | frozenset(CONSTANTS)

# The math functions a formula calls (a Call node of the IR) and their arity. What each computes, how it lowers
# and differentiates is functions.py's table, which defines exactly these names (tests/formula/test_functions.py).
_CALLS = ("exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "tanh", "erf", "erfinv", "sigmoid",
          "softplus", "abs", "sign", "floor", "trunc", "square")  # fmt: skip
CALL_ARITY: Mapping[str, int] = dict.fromkeys(_CALLS, 1)

# Reductions along the operator's `dim` (a Reduce node of the IR), each by its spelling: `rowmax(e)` is the largest
# element of e's row (the elements that share every index but dim's), `rowsum(e)` their sum, broadcast back along
# the row. `row` keeps them apart from the binary min(a, b) / max(a, b) and says what is reduced.
REDUCTIONS: Mapping[str, str] = {"rowmax": "max", "rowsum": "sum"}
REDUCTION_SPELLING: Mapping[str, str] = {op: spelling for spelling, op in REDUCTIONS.items()}

ARITH_TOKENS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow"}
COMPARE_TOKENS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
OP_SPELLING = {op: tok for tok, op in (ARITH_TOKENS | COMPARE_TOKENS).items()} | {
    "min": "min()",
    "max": "max()",
    "neg": "unary '-'",
    "and": "and",
    "or": "or",
    "not": "not",
}


class Prec(IntEnum):
    """Binding strength, loosest first (Python's order)."""

    OR = 1
    AND = 2
    NOT = 3
    COMPARE = 4
    ADD = 5
    MUL = 6
    UNARY = 7
    POW = 8
    ATOM = 9


ARITH_PREC = {"add": Prec.ADD, "sub": Prec.ADD, "mul": Prec.MUL, "div": Prec.MUL, "pow": Prec.POW}
