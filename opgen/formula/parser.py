"""Recursive-descent parser: formula text -> typed IR. Nothing is ever evaluated.

Grammar (loosest first; Python's precedence, but comparisons do not chain):

    formula    := or_expr END
    or_expr    := and_expr ('or' and_expr)*                      left-assoc
    and_expr   := not_expr ('and' not_expr)*                     left-assoc
    not_expr   := 'not' not_expr | comparison
    comparison := additive [('<'|'<='|'>'|'>='|'=='|'!=') additive]
    additive   := term (('+'|'-') term)*                         left-assoc
    term       := unary (('*'|'/') unary)*                       left-assoc
    unary      := ('-'|'+') unary | power
    power      := primary ['**' unary]                           right-assoc, -x**2 == -(x**2)
    primary    := NUMBER | STRING | 'true' | 'false' | 'pi' | 'e' | 'inf' | 'nan'
                | NAME | NAME '(' [or_expr (',' or_expr)*] ')' | '(' or_expr ')'

A STRING ("tanh" or 'tanh') may only be compared, with == or !=, with a string parameter (typecheck.py).

A call names a math function of the function table (`functions.py`: exp, log1p, erfinv, ...; a Call node)
or a structural one (where/select, min, max, clamp, pow, and the reductions along the operator's dim rowmax and
rowsum, which may nest: a Reduce node); an unknown name is an error that lists them all.

A '-' written directly before a number or a named constant folds into the constant (`-2` is
Const(-2.0)); `-(2)` stays a negation, so every IR has a text that parses back to it.

The binary levels (or_expr to term) are parsed by one precedence-climbing loop, so nesting costs few
Python frames. Limits keep every consumer of the IR away from Python's recursion limit: the text is at
most MAX_LENGTH characters, parentheses/calls/prefix operators nest at most MAX_NESTING levels and
the tree is at most MAX_DEPTH nodes tall; anything beyond is a FormulaError.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from .errors import FormulaError
from .functions import FUNCTIONS, STRUCTURAL
from .grammar import (
    ARITH_PREC,
    ARITH_TOKENS,
    COMPARE_TOKENS,
    CONSTANTS,
    KEYWORDS,
    REDUCTIONS,
    RESERVED,
    Prec,
)
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
)
from .lexer import END, NAME, NUMBER, OP, STRING, Token, tokenize
from .symbols import Symbol, SymbolKind
from .typecheck import ExprType, TypeMismatch, ValueType, node_type

_LOGICAL_PREC = {"or": Prec.OR, "and": Prec.AND}

# Every callable name with its arity: the math functions (Call nodes) and the structural ones.
_ARITY: dict[str, int] = {name: f.arity for name, f in FUNCTIONS.items()} | {
    name: s.arity for name, s in STRUCTURAL.items()
}

MAX_LENGTH = 4096  # characters; a spec's formula field has the same bound
MAX_NESTING = 64  # parentheses/calls/unary signs; keeps recursion far from Python's limit
MAX_DEPTH = 200  # tree height, checked while building, so the recursive printers stay safe too


@dataclass(frozen=True)
class _Parsed:
    node: Expr
    type: ExprType
    start: int  # column where the subexpression's text begins
    height: int = 1  # of the node's tree (a leaf is 1), bounded by MAX_DEPTH


def parse(
    text: str,
    symbols: Mapping[str, Symbol | SymbolKind],
    *,
    expect: Literal["num", "bool"] | None = None,
) -> Expr:
    """Parse and type-check `text`; names resolve through `symbols`.

    `expect` optionally demands the formula's value type ("num" for an output, "bool" for a
    condition). Bad text raises FormulaError (message, column); a bad symbol table raises ValueError.
    """
    table = _check_symbols(symbols)
    try:
        if len(text) > MAX_LENGTH:
            raise FormulaError(f"formula is longer than {MAX_LENGTH} characters; split it up", MAX_LENGTH)
        parsed = _Parser(text, table).formula()
        if expect is not None and parsed.type.value is not ValueType(expect):
            got = {ValueType.BOOL: "a boolean", ValueType.NUM: "a number", ValueType.STR: "a string"}[parsed.type.value]
            raise FormulaError(f"formula must produce {'a boolean' if expect == 'bool' else 'a number'}, got {got}", 0)
    except FormulaError as err:
        raise err.with_text(text) from None
    return parsed.node


def _check_symbols(symbols: Mapping[str, Symbol | SymbolKind]) -> dict[str, SymbolKind]:
    table: dict[str, SymbolKind] = {}
    for name, sym in symbols.items():
        kind = sym if isinstance(sym, SymbolKind) else getattr(sym, "kind", None)
        if not isinstance(kind, SymbolKind):
            raise ValueError(f"symbol '{name}': expected a Symbol or SymbolKind, got {sym!r}")
        if not name.isidentifier() or not name.isascii():
            raise ValueError(f"symbol name {name!r} is not an identifier")
        if name in RESERVED:
            raise ValueError(f"symbol name '{name}' is reserved in formulas")
        table[name] = kind
    return table


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Parser:
    def __init__(self, text: str, symbols: dict[str, SymbolKind]) -> None:
        self.text = text
        self.symbols = symbols
        self.tokens = tokenize(text)
        self.pos = 0
        self.nesting = 0

    # -- token helpers -------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def _peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def _advance(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def _at_op(self, *ops: str) -> bool:
        return self.tok.kind == OP and self.tok.text in ops

    def _at_word(self, word: str) -> bool:
        return self.tok.kind == NAME and self.tok.text == word

    def _nest(self, column: int) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise FormulaError(f"formula nests more than {MAX_NESTING} levels deep; split it up", column)

    # -- building nodes ------------------------------------------------------------------------
    def _make(self, node: Expr, operands: list[_Parsed], start: int, column: int) -> _Parsed:
        """Type-check `node`; a broken rule is reported at the blamed operand (else at `column`).

        The tree's height is tracked as it grows, so a too-deep formula stops here, at the start of the
        subexpression that got too deep, before anything walks (or recursively prints) the tree.
        """
        height = 1 + max((p.height for p in operands), default=0)
        if height > MAX_DEPTH:
            raise FormulaError(f"formula is more than {MAX_DEPTH} operations deep; split it up", start)
        try:
            typ = node_type(node, [p.type for p in operands])
        except TypeMismatch as err:
            where = operands[err.operand].start if err.operand is not None else column
            raise FormulaError(err.message, where) from None
        return _Parsed(node, typ, start, height)

    # -- grammar -------------------------------------------------------------------------------
    def formula(self) -> _Parsed:
        if self.tok.kind == END:
            raise FormulaError("empty formula", 0)
        result = self._expr()
        if self.tok.kind != END:
            raise self._unexpected("after a complete expression")
        return result

    def _binary_prec(self) -> Prec | None:
        """Precedence of the binary operator at the current token (None: not one; '**' is handled apart)."""
        tok = self.tok
        if tok.kind == NAME and tok.text in _LOGICAL_PREC:
            return _LOGICAL_PREC[tok.text]
        if tok.kind == OP:
            if tok.text in COMPARE_TOKENS:
                return Prec.COMPARE
            if tok.text in ARITH_TOKENS and tok.text != "**":
                return ARITH_PREC[ARITH_TOKENS[tok.text]]
        return None

    def _expr(self, min_prec: Prec = Prec.OR) -> _Parsed:
        """An expression whose operators bind at least as tightly as `min_prec` (precedence climbing).

        One loop handles every binary level, so a nesting level (parentheses, a call) costs a handful of
        Python frames, not one per grammar rule.
        """
        left = self._not() if min_prec <= Prec.NOT and self._at_word("not") else self._unary()
        while True:
            prec = self._binary_prec()
            if prec is None or prec < min_prec:
                return left
            op_tok = self._advance()
            right = self._expr(Prec(prec + 1)) if prec < Prec.MUL else self._unary()
            if prec is Prec.COMPARE:
                if self._at_op(*COMPARE_TOKENS):
                    raise FormulaError(
                        f"comparisons cannot be chained; write 'a {op_tok.text} b and b {self.tok.text} c'",
                        self.tok.column,
                    )
                node: Expr = Compare(COMPARE_TOKENS[op_tok.text], left.node, right.node)
            elif prec in (Prec.OR, Prec.AND):
                node = Logical(op_tok.text, (left.node, right.node))
            else:
                node = Binary(ARITH_TOKENS[op_tok.text], left.node, right.node)
            left = self._make(node, [left, right], left.start, op_tok.column)

    def _not(self) -> _Parsed:
        column = self._advance().column
        self._nest(column)
        operand = self._expr(Prec.NOT)
        self.nesting -= 1
        return self._make(Logical("not", (operand.node,)), [operand], column, column)

    def _unary(self) -> _Parsed:
        if not self._at_op("-", "+"):
            return self._power()
        sign = self._advance()
        literal_follows = self.tok.kind == NUMBER or (self.tok.kind == NAME and self.tok.text in CONSTANTS)
        self._nest(sign.column)
        operand = self._unary()
        self.nesting -= 1
        if sign.text == "+":
            # '+x' is x, but still only for numbers.
            if operand.type.is_bool:
                raise FormulaError("unary '+' needs a number, got a boolean", operand.start)
            return _Parsed(operand.node, operand.type, sign.column, operand.height)
        if literal_follows and isinstance(operand.node, Const):
            return _Parsed(Const(-operand.node.value), operand.type, sign.column)
        return self._make(Unary("neg", operand.node), [operand], sign.column, sign.column)

    def _power(self) -> _Parsed:
        base = self._primary()
        if not self._at_op("**"):
            return base
        op_tok = self._advance()
        self._nest(op_tok.column)
        exponent = self._unary()
        self.nesting -= 1
        return self._make(Binary("pow", base.node, exponent.node), [base, exponent], base.start, op_tok.column)

    def _primary(self) -> _Parsed:
        tok = self.tok
        if tok.kind == NUMBER:
            self._advance()
            return self._make(Const(float(tok.text)), [], tok.column, tok.column)
        if tok.kind == STRING:
            self._advance()
            return self._make(Str(tok.text), [], tok.column, tok.column)
        if tok.kind == OP and tok.text == "(":
            self._advance()
            self._nest(tok.column)
            inner = self._expr()
            self.nesting -= 1
            self._expect_close(tok, f"expected ')' to close '(' at column {tok.column}")
            return _Parsed(inner.node, inner.type, tok.column, inner.height)
        if tok.kind == NAME:
            if self._peek().kind == OP and self._peek().text == "(":
                return self._call()
            return self._name()
        if tok.kind == END:
            raise FormulaError("unexpected end of formula; expected an expression", tok.column)
        raise self._unexpected("; expected an expression")

    def _name(self) -> _Parsed:
        tok = self._advance()
        word = tok.text
        if word in ("true", "false"):
            return self._make(BoolConst(word == "true"), [], tok.column, tok.column)
        if word in CONSTANTS:
            return self._make(Const(CONSTANTS[word]), [], tok.column, tok.column)
        if word in KEYWORDS:  # and / or / not where an operand belongs
            raise FormulaError(f"unexpected '{word}'; expected an expression", tok.column)
        if word in self.symbols:
            return self._make(Name(word, self.symbols[word]), [], tok.column, tok.column)
        if word in _ARITY:
            raise FormulaError(f"{word} is a function; call it as {word}(...)", tok.column)
        if word == "if":
            raise FormulaError("unexpected 'if'; write where(cond, a, b)", tok.column)
        hint = _did_you_mean(word, list(self.symbols) + list(CONSTANTS))
        raise FormulaError(f"undefined name '{word}'{hint}", tok.column)

    def _call(self) -> _Parsed:
        name_tok = self._advance()
        open_tok = self._advance()
        func = name_tok.text
        if func not in _ARITY:
            if func in self.symbols:
                raise FormulaError(f"'{func}' is a {self.symbols[func].value}, not a function", name_tok.column)
            hint = _did_you_mean(func, _ARITY)
            known = ", ".join(sorted(_ARITY))
            raise FormulaError(f"unknown function '{func}'{hint}; the functions are {known}", name_tok.column)
        # clamp(x, lo, hi) counts twice: its canonical text min(max(x, lo), hi) nests two calls deep.
        levels = 2 if func == "clamp" else 1
        for _ in range(levels):
            self._nest(open_tok.column)
        args: list[_Parsed] = []
        if not self._at_op(")"):
            args.append(self._expr())
            while self._at_op(","):
                self._advance()
                args.append(self._expr())
        self.nesting -= levels
        self._expect_close(open_tok, f"expected ',' or ')' in the call to {func}()")
        want = _ARITY[func]
        if len(args) != want:
            plural = "argument" if want == 1 else "arguments"
            raise FormulaError(f"{func}() takes {want} {plural}, got {len(args)}", name_tok.column)
        return self._build_call(func, args, name_tok.column)

    def _build_call(self, func: str, args: list[_Parsed], column: int) -> _Parsed:
        nodes = [a.node for a in args]
        if func in ("where", "select"):
            return self._make(Select(*nodes), args, column, column)
        if func in ("min", "max", "pow"):
            return self._make(Binary(func, *nodes), args, column, column)
        if func in REDUCTIONS:
            return self._make(Reduce(REDUCTIONS[func], nodes[0]), args, column, column)
        if func == "clamp":
            # clamp(x, lo, hi) is min(max(x, lo), hi): PyTorch's definition, hi wins when lo > hi.
            x, lo, hi = args
            low = self._make(Binary("max", x.node, lo.node), [x, lo], column, column)
            return self._make(Binary("min", low.node, hi.node), [low, hi], column, column)
        return self._make(Call(func, tuple(nodes)), args, column, column)

    def _expect_close(self, open_tok: Token, context: str) -> None:
        if self._at_op(")"):
            self._advance()
            return
        if self.tok.kind == END:
            raise FormulaError(f"missing ')' to close '(' at column {open_tok.column}", self.tok.column)
        raise FormulaError(f"unexpected {self.tok.describe()}; {context}", self.tok.column)

    def _unexpected(self, context: str) -> FormulaError:
        tok = self.tok
        sep = "" if context.startswith(";") else " "
        return FormulaError(f"unexpected {tok.describe()}{sep}{context}", tok.column)
