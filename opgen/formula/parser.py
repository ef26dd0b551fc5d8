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
    primary    := NUMBER | 'true' | 'false' | 'pi' | 'e' | 'inf' | 'nan'
                | NAME | NAME '(' [or_expr (',' or_expr)*] ')' | '(' or_expr ')'

A '-' written directly before a number or a named constant folds into the constant (`-2` is
Const(-2.0)); `-(2)` stays a negation, so every IR has a text that parses back to it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping

from .errors import FormulaError
from .grammar import (
    ARITH_TOKENS,
    COMPARE_TOKENS,
    CONSTANTS,
    FUNCTION_ARITY,
    KEYWORDS,
    MATH_FUNCTIONS,
    RESERVED,
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
    Select,
    Unary,
    depth,
)
from .lexer import END, NAME, NUMBER, OP, Token, tokenize
from .symbols import Symbol, SymbolKind
from .typecheck import ExprType, TypeMismatch, ValueType, node_type

MAX_NESTING = 64  # parentheses/calls/unary signs; keeps recursion far from Python's limit
MAX_DEPTH = 200  # tree height, so the recursive printers stay safe too


@dataclass(frozen=True)
class _Parsed:
    node: Expr
    type: ExprType
    start: int  # column where the subexpression's text begins


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
        parsed = _Parser(text, table).formula()
        if expect is not None and parsed.type.value is not ValueType(expect):
            got = "a boolean" if parsed.type.is_bool else "a number"
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
        """Type-check `node`; a broken rule is reported at the blamed operand (else at `column`)."""
        try:
            typ = node_type(node, [p.type for p in operands])
        except TypeMismatch as err:
            where = operands[err.operand].start if err.operand is not None else column
            raise FormulaError(err.message, where) from None
        return _Parsed(node, typ, start)

    # -- grammar -------------------------------------------------------------------------------
    def formula(self) -> _Parsed:
        if self.tok.kind == END:
            raise FormulaError("empty formula", 0)
        result = self._or()
        if self.tok.kind != END:
            raise self._unexpected("after a complete expression")
        if depth(result.node) > MAX_DEPTH:
            raise FormulaError(f"formula is more than {MAX_DEPTH} operations deep; split it up", 0)
        return result

    def _logical_chain(self, word: str, operand) -> _Parsed:
        left = operand()
        while self._at_word(word):
            column = self._advance().column
            right = operand()
            left = self._make(Logical(word, (left.node, right.node)), [left, right], left.start, column)
        return left

    def _or(self) -> _Parsed:
        return self._logical_chain("or", self._and)

    def _and(self) -> _Parsed:
        return self._logical_chain("and", self._not)

    def _not(self) -> _Parsed:
        if self._at_word("not"):
            column = self._advance().column
            self._nest(column)
            operand = self._not()
            self.nesting -= 1
            return self._make(Logical("not", (operand.node,)), [operand], column, column)
        return self._comparison()

    def _comparison(self) -> _Parsed:
        left = self._additive()
        if not self._at_op(*COMPARE_TOKENS):
            return left
        op_tok = self._advance()
        right = self._additive()
        if self._at_op(*COMPARE_TOKENS):
            raise FormulaError(
                f"comparisons cannot be chained; write 'a {op_tok.text} b and b {self.tok.text} c'",
                self.tok.column,
            )
        node = Compare(COMPARE_TOKENS[op_tok.text], left.node, right.node)
        return self._make(node, [left, right], left.start, op_tok.column)

    def _arith_chain(self, ops: tuple[str, ...], operand) -> _Parsed:
        left = operand()
        while self._at_op(*ops):
            op_tok = self._advance()
            right = operand()
            node = Binary(ARITH_TOKENS[op_tok.text], left.node, right.node)
            left = self._make(node, [left, right], left.start, op_tok.column)
        return left

    def _additive(self) -> _Parsed:
        return self._arith_chain(("+", "-"), self._term)

    def _term(self) -> _Parsed:
        return self._arith_chain(("*", "/"), self._unary)

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
            return _Parsed(operand.node, operand.type, sign.column)
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
        if tok.kind == OP and tok.text == "(":
            self._advance()
            self._nest(tok.column)
            inner = self._or()
            self.nesting -= 1
            self._expect_close(tok, f"expected ')' to close '(' at column {tok.column}")
            return _Parsed(inner.node, inner.type, tok.column)
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
        if word in FUNCTION_ARITY:
            raise FormulaError(f"{word} is a function; call it as {word}(...)", tok.column)
        if word == "if":
            raise FormulaError("unexpected 'if'; write where(cond, a, b)", tok.column)
        hint = _did_you_mean(word, list(self.symbols) + list(CONSTANTS))
        raise FormulaError(f"undefined name '{word}'{hint}", tok.column)

    def _call(self) -> _Parsed:
        name_tok = self._advance()
        open_tok = self._advance()
        func = name_tok.text
        if func not in FUNCTION_ARITY:
            if func in self.symbols:
                raise FormulaError(f"'{func}' is a {self.symbols[func].value}, not a function", name_tok.column)
            hint = _did_you_mean(func, FUNCTION_ARITY)
            raise FormulaError(f"unknown function '{func}'{hint}", name_tok.column)
        self._nest(open_tok.column)
        args: list[_Parsed] = []
        if not self._at_op(")"):
            args.append(self._or())
            while self._at_op(","):
                self._advance()
                args.append(self._or())
        self.nesting -= 1
        self._expect_close(open_tok, f"expected ',' or ')' in the call to {func}()")
        want = FUNCTION_ARITY[func]
        if len(args) != want:
            plural = "argument" if want == 1 else "arguments"
            raise FormulaError(f"{func}() takes {want} {plural}, got {len(args)}", name_tok.column)
        return self._build_call(func, args, name_tok.column)

    def _build_call(self, func: str, args: list[_Parsed], column: int) -> _Parsed:
        nodes = [a.node for a in args]
        if func in ("where", "select"):
            return self._make(Select(*nodes), args, column, column)
        if func in ("min", "max"):
            return self._make(Binary(func, *nodes), args, column, column)
        if func == "clamp":
            # clamp(x, lo, hi) is min(max(x, lo), hi): PyTorch's definition, hi wins when lo > hi.
            x, lo, hi = args
            low = self._make(Binary("max", x.node, lo.node), [x, lo], column, column)
            return self._make(Binary("min", low.node, hi.node), [low, hi], column, column)
        assert func in MATH_FUNCTIONS
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
