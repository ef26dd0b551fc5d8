"""LaTeX of formulas in the style of the ops-nn operator docs.

Products are written `a*b`, comparisons `\\gt \\lt \\ge \\le = \\ne`, divisions `\\frac{}{}`, and a
`where` becomes a cases environment with one row per branch, `value, &if\\ cond`. The else row states
its condition explicitly: the negation of the `if` condition for a single where, and for a chain of
wheres on one subject against constants (`where(x < -3, 0, where(x <= 3, ..., ...))`) each row gets
the interval it really covers. Conditions are negated as in ordinary math (a NaN operand is not
considered), which is what documentation readers expect.

A formula with reductions along the operator's dim indexes its tensors: the output's element is i, and each
reduction runs over its own index (j, then k inside it, ...):
`\\max_{j} x_{j}`, `\\sum_{j} exp(x_{j} - \\max_{k} x_{k})`.
An elementwise formula names tensors bare, as the ops-nn docs write them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .functions import FUNCTIONS
from .grammar import Prec
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
    has_reduction,
    walk,
)
from .symbols import SymbolKind

_COMPARE_LATEX = {"lt": r"\lt", "le": r"\le", "gt": r"\gt", "ge": r"\ge", "eq": "=", "ne": r"\ne"}
_NEGATED_COMPARE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_MIRRORED_COMPARE = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_MIRROR_LATEX = {r"\le": r"\ge", r"\lt": r"\gt"}  # "a <= x" read from x's side
_TALL = (r"\frac", r"\begin{cases}", r"\sqrt")
_REDUCE_LATEX = {"max": r"\max", "sum": r"\sum"}
_INDICES = ("i", "j", "k", "l", "m", "n")  # the element's, then each nested reduction's


def to_latex(expr: Expr, symbols: Mapping[str, str] | None = None) -> str:
    """LaTeX of `expr`; `symbols` maps a name to its LaTeX (e.g. alpha -> \\alpha), default the name."""
    return _Latex(symbols or {}, indexed=has_reduction(expr)).render(expr)[0]


def describe_condition(cond: Expr, symbols: Mapping[str, str] | None = None) -> str:
    """LaTeX of a boolean expression, e.g. `self \\gt 0`."""
    return to_latex(cond, symbols)


def latex_number(value: float) -> str:
    if math.isnan(value):
        return r"\mathrm{NaN}"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    magnitude = abs(value)
    if math.isinf(magnitude):
        return sign + r"\infty"
    if magnitude == math.pi:
        return sign + r"\pi"
    if magnitude.is_integer() and magnitude < 1e16:
        return sign + str(int(magnitude))
    text = repr(magnitude)
    if "e" not in text:
        return sign + text
    mantissa, exponent = text.split("e")
    power = f"10^{{{int(exponent)}}}"
    return sign + (power if mantissa == "1" else f"{mantissa} \\times {power}")


def _is_tall(text: str) -> bool:
    return any(marker in text for marker in _TALL)


def _paren(text: str) -> str:
    return f"\\left({text}\\right)" if _is_tall(text) else f"({text})"


@dataclass(frozen=True)
class _Interval:
    """A set of reals {x : lo <(=) x <(=) hi}; None means unbounded."""

    lo: float | None = None
    lo_closed: bool = False
    hi: float | None = None
    hi_closed: bool = False

    def intersect(self, other: _Interval) -> _Interval:
        lo, lo_closed = self.lo, self.lo_closed
        if other.lo is not None and (lo is None or other.lo > lo or (other.lo == lo and not other.lo_closed)):
            lo, lo_closed = other.lo, other.lo_closed
        hi, hi_closed = self.hi, self.hi_closed
        if other.hi is not None and (hi is None or other.hi < hi or (other.hi == hi and not other.hi_closed)):
            hi, hi_closed = other.hi, other.hi_closed
        return _Interval(lo, lo_closed, hi, hi_closed)

    @property
    def empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        return self.lo > self.hi or (self.lo == self.hi and not (self.lo_closed and self.hi_closed))


def _half_line(op: str, bound: float) -> _Interval:
    """The set {x : x op bound} for op in lt le gt ge."""
    if op in ("gt", "ge"):
        return _Interval(lo=bound, lo_closed=op == "ge")
    return _Interval(hi=bound, hi_closed=op == "le")


def _as_bound(cond: Expr) -> tuple[Expr, str, float] | None:
    """(subject, op, constant) when `cond` compares an expression with a constant by order."""
    if not isinstance(cond, Compare) or cond.op in ("eq", "ne"):
        return None
    if isinstance(cond.b, Const) and not isinstance(cond.a, Const) and not math.isnan(cond.b.value):
        return cond.a, cond.op, cond.b.value
    if isinstance(cond.a, Const) and not isinstance(cond.b, Const) and not math.isnan(cond.a.value):
        return cond.b, _MIRRORED_COMPARE[cond.op], cond.a.value
    return None


class _CallLatex:
    """The LaTeX printer as a function's LaTeX rule sees it (functions.LatexWriter)."""

    def __init__(self, printer: _Latex, args: tuple[Expr, ...]) -> None:
        self.printer, self.args = printer, args

    def arg(self, index: int, min_prec: int = Prec.OR) -> str:
        return self.printer.wrap(self.args[index], min_prec)

    def paren(self, text: str) -> str:
        return _paren(text)


def _index(level: int) -> str:
    return _INDICES[level] if level < len(_INDICES) else f"j_{{{level}}}"


class _Latex:
    def __init__(self, symbols: Mapping[str, str], *, indexed: bool = False, level: int = 0) -> None:
        self.symbols = symbols
        self.rendered: dict[Expr, tuple[str, int]] = {}
        self.indexed = indexed  # tensors carry the index of the element (a formula with reductions)
        self.level = level  # how many reductions enclose what this printer renders
        self._inner: _Latex | None = None

    def inner(self) -> _Latex:
        """The printer of a reduction's operand: one index deeper (its memo is its own, as the index differs)."""
        if self._inner is None:
            self._inner = _Latex(self.symbols, indexed=True, level=self.level + 1)
        return self._inner

    def text(self, node: Expr) -> str:
        return self.render(node)[0]

    def wrap(self, node: Expr, min_prec: int) -> str:
        text, prec = self.render(node)
        return text if prec >= min_prec else _paren(text)

    def render(self, node: Expr) -> tuple[str, int]:
        """LaTeX and precedence of `node`, memoised. A node's operands are rendered first, bottom-up, so
        the rendering of a node finds theirs ready and nothing recurses deeply, however tall the tree."""
        done = self.rendered.get(node)
        if done is None:
            for sub in walk(node, unique=True):
                if sub not in self.rendered:
                    self.rendered[sub] = self._render(sub)
            done = self.rendered[node]
        return done

    def _render(self, node: Expr) -> tuple[str, int]:
        if isinstance(node, Const):
            text = latex_number(node.value)
            return text, Prec.UNARY if text.startswith("-") else Prec.ATOM
        if isinstance(node, BoolConst):
            return (r"\mathrm{true}" if node.value else r"\mathrm{false}"), Prec.ATOM
        if isinstance(node, Str):
            return r"\text{``" + node.value.replace("_", r"\_") + "''}", Prec.ATOM
        if isinstance(node, Name):
            symbol = self.symbols.get(node.name, node.name.replace("_", r"\_"))
            if self.indexed and node.kind is SymbolKind.TENSOR:
                base = f"{{{symbol}}}" if any(mark in symbol.replace(r"\_", "") for mark in "_^") else symbol
                return f"{base}_{{{_index(self.level)}}}", Prec.ATOM
            return symbol, Prec.ATOM
        if isinstance(node, Reduce):
            # \sum_{j} g_{j}*y_{j} reads as the sum of the product; a factor after it is constant in j, so
            # reading it inside or outside gives one value. A sum of terms is bracketed.
            text, prec = self.inner().render(node.x)
            # a negated operand is bracketed too: `\max_{j} -x_{j}` would read as a difference
            operand = text if prec >= Prec.MUL and prec != Prec.UNARY else _paren(text)
            reduced = f"{_REDUCE_LATEX[node.op]}_{{{_index(self.level + 1)}}} {operand}"
            return reduced, Prec.POW if prec >= Prec.POW else Prec.MUL
        if isinstance(node, Unary):
            return "-" + self.wrap(node.x, Prec.POW), Prec.UNARY
        if isinstance(node, Binary):
            return self._binary(node)
        if isinstance(node, Compare):
            a, b = self.wrap(node.a, Prec.ADD), self.wrap(node.b, Prec.ADD)
            return f"{a} {_COMPARE_LATEX[node.op]} {b}", Prec.COMPARE
        if isinstance(node, Logical):
            if node.op == "not":
                return r"\lnot " + self.wrap(node.args[0], Prec.ATOM), Prec.NOT
            prec = Prec.OR if node.op == "or" else Prec.AND
            word = r"\lor" if node.op == "or" else r"\land"
            left, right = node.args
            return f"{self.wrap(left, prec)} {word} {self.wrap(right, prec + 1)}", prec
        if isinstance(node, Call):
            return self._call(node)
        if isinstance(node, Select):
            return self._cases(node), Prec.ATOM
        raise TypeError(f"not a formula IR node: {node!r}")

    def _binary(self, node: Binary) -> tuple[str, int]:
        op = node.op
        if op in ("min", "max"):
            return f"\\{op}({self.text(node.a)}, {self.text(node.b)})", Prec.ATOM
        if op == "div":
            return f"\\frac{{{self.text(node.a)}}}{{{self.text(node.b)}}}", Prec.ATOM
        if op == "pow":
            base, prec = self.render(node.a)
            if prec < Prec.ATOM or _is_tall(base):
                base = _paren(base)
            return f"{base}^{{{self.text(node.b)}}}", Prec.POW
        if op == "mul":
            # A negative right factor is bracketed (a*(-b)); a cases block gets room to breathe.
            left, right = self.wrap(node.a, Prec.MUL), self.wrap(node.b, Prec.POW)
            spaced = isinstance(node.a, Select) or isinstance(node.b, Select)
            return f"{left} * {right}" if spaced else f"{left}*{right}", Prec.MUL
        sign = "+" if op == "add" else "-"
        return f"{self.wrap(node.a, Prec.ADD)} {sign} {self.wrap(node.b, Prec.MUL)}", Prec.ADD

    def _call(self, node: Call) -> tuple[str, int]:
        return FUNCTIONS[node.func].latex(_CallLatex(self, node.args))

    def _cases(self, node: Select) -> str:
        branches: list[tuple[Expr, Expr]] = []  # (value, condition as written)
        rest: Expr = node
        while isinstance(rest, Select):
            branches.append((rest.a, rest.cond))
            rest = rest.b
        conditions = [self.text(cond) for _, cond in branches]
        regions = self._regions([cond for _, cond in branches])
        if len(branches) > 1 and regions is not None:
            # (The first row's region is never empty; a later row no input reaches keeps its condition.)
            conditions = [region if region is not None else conditions[i] for i, region in enumerate(regions)]
        # The last row is "otherwise", never the negated comparison: a NaN fails every comparison, so it takes
        # this row although `x <= 0` (for the else of `x > 0`) does not hold for it.
        rows = [f"{self.text(value)}, &if\\ {cond}" for (value, _), cond in zip(branches, conditions, strict=True)]
        rows.append(f"{self.text(rest)}, &otherwise")
        return r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"

    def _regions(self, conditions: list[Expr]) -> list[str | None] | None:
        """For a chain of order comparisons of one subject with constants: the LaTeX of the set each row
        really covers; None when the chain is not of that form."""
        bounds = [_as_bound(cond) for cond in conditions]
        if any(b is None for b in bounds) or len({b[0] for b in bounds}) != 1:  # type: ignore[index]
            return None
        subject = self.wrap(bounds[0][0], Prec.ADD)  # type: ignore[index]
        regions: list[str | None] = []
        remaining = _Interval()
        for _, op, bound in bounds:  # type: ignore[misc]
            region = remaining.intersect(_half_line(op, bound))
            regions.append(self._interval(subject, region))
            remaining = remaining.intersect(_half_line(_NEGATED_COMPARE[op], bound))
        return regions

    @staticmethod
    def _interval(subject: str, region: _Interval) -> str | None:
        if region.empty:
            return None  # a row no input reaches: keep its condition as written
        lower = None if region.lo is None else (latex_number(region.lo), r"\le" if region.lo_closed else r"\lt")
        upper = None if region.hi is None else (latex_number(region.hi), r"\le" if region.hi_closed else r"\lt")
        if lower and upper:
            if region.lo == region.hi:
                return f"{subject} = {lower[0]}"
            return f"{lower[0]} {lower[1]} {subject} {upper[1]} {upper[0]}"
        if lower:
            return f"{subject} {_MIRROR_LATEX[lower[1]]} {lower[0]}"
        if upper:
            return f"{subject} {upper[1]} {upper[0]}"
        return None
