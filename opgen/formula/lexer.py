"""Splits formula text into tokens, each with its 0-based column."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import FormulaError

NUMBER = "number"
STRING = "string"
NAME = "name"
OP = "op"
END = "end"

_DIGITS = frozenset("0123456789")  # ASCII only: '²' and '٣' are digits to str.isdigit(), not numbers here
_NUMBER_RE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Longest first, so '**' wins over '*' and '<=' over '<'.
_OPERATORS = ("**", "<=", ">=", "==", "!=", "+", "-", "*", "/", "<", ">", "(", ")", ",")
# Spellings from other languages, with what to write instead.
_FOREIGN = {
    "&&": "use 'and'",
    "||": "use 'or'",
    "&": "use 'and'",
    "|": "use 'or'",
    "!": "use 'not'",
    "^": "use '**' for a power",
    "=": "use '==' to compare",
    "?": "use where(cond, a, b)",
    "[": "use parentheses",
    "]": "use parentheses",
    "{": "use parentheses",
    "}": "use parentheses",
    "%": "there is no remainder operator",
}


@dataclass(frozen=True)
class Token:
    kind: str  # NUMBER, STRING, NAME, OP or END
    text: str  # for a STRING, its value (without the quotes)
    column: int

    def describe(self) -> str:
        """How error messages name this token."""
        if self.kind == END:
            return "end of formula"
        if self.kind == NAME:
            return f"name '{self.text}'"
        if self.kind == NUMBER:
            return f"number '{self.text}'"
        if self.kind == STRING:
            return f'string "{self.text}"'
        return f"'{self.text}'"


def tokenize(text: str) -> list[Token]:
    """Tokens of `text`, ending with an END token at column len(text)."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
            continue
        if ch in _DIGITS or (ch == "." and pos + 1 < len(text) and text[pos + 1] in _DIGITS):
            pos = _read_number(text, pos, tokens)
            continue
        if ch in "\"'":
            pos = _read_string(text, pos, tokens)
            continue
        match = _NAME_RE.match(text, pos)
        if match:
            tokens.append(Token(NAME, match.group(), pos))
            pos = match.end()
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, pos)), None)
        if op is not None:
            tokens.append(Token(OP, op, pos))
            pos += len(op)
            continue
        foreign = next((f for f in sorted(_FOREIGN, key=len, reverse=True) if text.startswith(f, pos)), None)
        if foreign is not None:
            raise FormulaError(f"unexpected '{foreign}'; {_FOREIGN[foreign]}", pos)
        raise FormulaError(f"unexpected character {ch!r}", pos)
    tokens.append(Token(END, "", len(text)))
    return tokens


# A string literal's value: what a string parameter's `values` may hold.
_STRING_BODY = re.compile(r"[A-Za-z0-9_.+-]*")


def _read_string(text: str, pos: int, tokens: list[Token]) -> int:
    """A string literal in double or single quotes, e.g. "tanh"; no escapes (values are plain words)."""
    quote = text[pos]
    match = _STRING_BODY.match(text, pos + 1)
    end = match.end() if match else pos + 1
    if end >= len(text) or text[end] != quote:
        if end < len(text) and text[end] not in "\"'":
            raise FormulaError(
                f"unexpected character {text[end]!r} in a string literal; a string holds letters, digits and _ . + -",
                end,
            )
        raise FormulaError(f"unterminated string literal; close it with {quote}", pos)
    tokens.append(Token(STRING, text[pos + 1 : end], pos))
    return end + 1


def _read_number(text: str, pos: int, tokens: list[Token]) -> int:
    match = _NUMBER_RE.match(text, pos)
    if match is None:  # unreachable: the caller saw an ASCII digit; still a FormulaError, never an assert
        raise FormulaError(f"malformed number at {text[pos]!r}", pos)
    end = match.end()
    if end < len(text) and (text[end].isalnum() or text[end] in "._"):
        # Glued letters or dots: '2x', '1e', '1.2.3'. Report the whole run.
        tail = end
        while tail < len(text) and (text[tail].isalnum() or text[tail] in "._"):
            tail += 1
        bad = text[pos:tail]
        hint = ""
        if text[end].isalpha() and text[end] not in "eE":
            hint = f"; write '{match.group()} * {text[end:tail]}' to multiply"
        raise FormulaError(f"malformed number '{bad}'{hint}", pos)
    tokens.append(Token(NUMBER, match.group(), pos))
    return end
