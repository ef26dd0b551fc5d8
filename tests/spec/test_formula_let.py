"""Local names in formulas (`formula.let`): each mistake is reported at its own line of the spec file, the kernel
formula is the let-free expansion, the reference evaluates it, and derivative_of sees through the names.

The cases edit tests/fixtures/let/square_plus.yaml (SquarePlus written overflow-safely with three local names);
the expected line is where the edit's marker lands in the edited text.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from support.text import edit_once

from opgen import formula
from opgen.spec.diagnostics import SpecError
from opgen.spec.formula_binding import (
    evaluate_reference,
    kernel_formula,
    let_definitions,
    output_symbols,
    parsed_formula,
)
from opgen.spec.loader import load_spec, load_spec_text_documents
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "let" / "square_plus.yaml"
TEXT = FIXTURE.read_text(encoding="utf-8")
NAME = "tests/fixtures/let/square_plus.yaml"
LETS = (
    "    a: min(abs(self), 3.4028234663852886e+38)\n    m: max(a, 1)\n    h: m / 2 * sqrt((a / m) ** 2 + b / (m * m))\n"
)


@dataclass(frozen=True)
class Case:
    id: str
    edits: tuple[tuple[str, str], ...]  # (old, new), each replaced once
    marker: str  # text on the line the diagnostic points at (its first occurrence in the edited text)
    fragment: str  # in the message


CASES = [
    Case("unknown-name", (("    m: max(a, 1)", "    m: max(aa, 1)"),), "m: max(aa", "undefined name 'aa'"),
    Case(
        "forward-reference",
        (("    a: min(abs(self), 3.4028234663852886e+38)", "    a: min(abs(self), m)"),),
        "a: min(abs(self), m)",
        "let 'a' uses 'm', which is defined after it",
    ),
    Case("uses-itself", (("    m: max(a, 1)", "    m: max(a, m)"),), "m: max(a, m)", "let 'm' uses itself"),
    Case(
        "shadows-a-parameter",
        ((LETS, LETS + "    b: self * 2\n"), ("b / 4 / (h - self / 2)", "b / 4 / (h - self / 2) + 0 * b")),
        "    b: self * 2",
        "local name 'b' shadows a parameter",
    ),
    Case(
        "named-like-a-function",
        ((LETS, LETS + "    tanh: self * 2\n"), ("self / 2 + h,", "self / 2 + h + 0 * tanh,")),
        "    tanh: self * 2",
        "'tanh' is a formula function",
    ),
    Case(
        "named-like-a-constant",
        ((LETS, LETS + "    pi: self * 2\n"),),
        "    pi: self * 2",
        "'pi' is a formula constant",
    ),
    Case("unused", ((LETS, LETS + "    spare: self * 2\n"),), "    spare:", "local name 'spare' is never used"),
    Case(
        "boolean",
        ((LETS, LETS + "    neg: self < 0\n"), ("where(self >= 0,", "where(not neg,")),
        "    neg: self < 0",
        "let 'neg': a boolean; a local name stands for a number",
    ),
    Case("unparsable", (("    m: max(a, 1)", "    m: max(a, 1"),), "m: max(a, 1", "let 'm': missing ')'"),
    Case(
        "undefined-in-the-output",
        (("self / 2 + h,", "self / 2 + hh,"),),
        "expr: where",
        "undefined name 'hh'",
    ),
]


def _edited(case: Case) -> str:
    text = TEXT
    for old, new in case.edits:
        assert old in text, f"case {case.id} no longer applies to {FIXTURE.name}"
        text = text.replace(old, new, 1)
    return text


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_mistake_is_reported_at_its_line(case: Case) -> None:
    text = _edited(case)
    with pytest.raises(SpecError) as caught:
        load_spec_text_documents(text, NAME, FIXTURE)
    line = text.count("\n", 0, text.index(case.marker)) + 1
    found = [d for d in caught.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert str(found[0]).startswith(f"{NAME}:{line}:"), str(found[0])
    assert "formula.let" in str(found[0]) or case.id == "undefined-in-the-output", str(found[0])


def test_one_mistake_is_reported_once() -> None:
    """A let that does not parse is reported at itself, not again at every name using it."""
    text = _edited(CASES[[c.id for c in CASES].index("unparsable")])
    with pytest.raises(SpecError) as caught:
        load_spec_text_documents(text, NAME, FIXTURE)
    assert len(caught.value.diagnostics) == 1, [str(d) for d in caught.value.diagnostics]


def test_the_kernel_formula_is_the_let_free_expansion() -> None:
    spec = load_spec(FIXTURE).spec
    written = parsed_formula(spec)
    assert {"h", "self", "b"} == set(formula.free_names(written))
    symbols = output_symbols(spec)
    assert symbols["a"].kind is formula.SymbolKind.TENSOR  # a number per element
    expanded = kernel_formula(spec)
    assert set(formula.free_names(expanded)) == {"self", "b"}
    # the expansion written out (each name replaced by its text, last first), parsed over the parameters alone
    by_hand = TEXT.split("  expr: ", 1)[1].split("\n", 1)[0]
    for name, text in reversed([line.strip().split(": ", 1) for line in LETS.splitlines()]):
        by_hand = re.sub(rf"\b{name}\b", f"({text})", by_hand)
    assert len(by_hand) > 3 * len(TEXT.split("  expr: ", 1)[1].split("\n", 1)[0])
    symbols = {"self": formula.Symbol.tensor(), "b": formula.Symbol.scalar()}
    assert formula.parse(by_hand, symbols) == expanded
    # the names are one subtree each: the expanded tree has far fewer distinct nodes than nodes
    nodes = sum(1 for _ in formula.walk(expanded))
    distinct = sum(1 for _ in formula.walk(expanded, unique=True))
    assert distinct < nodes / 2
    assert list(let_definitions(spec)) == ["a", "m", "h"]


def test_the_reference_is_squareplus_and_does_not_overflow() -> None:
    spec = load_spec(FIXTURE).spec
    x = np.array([-1e30, -3.0, -0.5, 0.0, 0.5, 3.0, 1e30, np.inf, -np.inf], dtype=np.float32)
    got = evaluate_reference(spec, {"self": x, "b": 4.0}, None)
    wide = x.astype(np.longdouble)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.asarray((wide + np.sqrt(wide * wide + 4)) / 2, dtype=np.float64)
    # the naive form in long double is exact enough where it neither overflows nor cancels (|x| small)
    small = np.abs(x) < 10
    np.testing.assert_allclose(got[small], naive[small], rtol=1e-12)
    np.testing.assert_allclose(got[~small], [1e-30, 1e30, np.inf, 0.0], rtol=1e-6)


def _pair(tmp_path: Path) -> Path:
    for name in ("leaky_relu", "leaky_relu_grad"):
        shutil.copy(ROOT / "specs" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    return tmp_path


GRAD_EXPR = "expr: where(self > 0, gradOutput, gradOutput * negativeSlope)"


def test_the_derivative_check_sees_through_local_names(tmp_path: Path) -> None:
    """A forward and a backward both written with local names still pass the backward-vs-forward check; a wrong
    local name in the backward fails it, reported at the backward's formula."""
    folder = _pair(tmp_path)
    edit_once(
        folder / "leaky_relu.yaml",
        "expr: where(self > 0, self, self * negativeSlope)",
        "let:\n    scaled: self * negativeSlope\n  expr: where(self > 0, self, scaled)",
    )
    edit_once(
        folder / "leaky_relu_grad.yaml",
        GRAD_EXPR,
        "let:\n    slope: where(self > 0, 1, negativeSlope)\n  expr: gradOutput * slope",
    )
    grad = load_spec(folder / "leaky_relu_grad.yaml").spec
    assert "slope" in formula.free_names(parsed_formula(grad))
    assert "slope" not in formula.free_names(kernel_formula(grad))
    edit_once(folder / "leaky_relu_grad.yaml", "where(self > 0, 1,", "where(self > 1, 1,")
    with pytest.raises(SpecError) as caught:
        load_spec(folder / "leaky_relu_grad.yaml")
    assert "is not the derivative of leaky_relu" in str(caught.value)
