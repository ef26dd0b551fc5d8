"""A formula written with local names (formula.let) lowers to the program of its let-free expansion, and that
program computes each local name once however often the formula uses it (tests/fixtures/let/square_plus.yaml)."""

from __future__ import annotations

import re

from opgen import formula as F
from opgen.plan.kernel import kernel_plan
from opgen.spec.formula_binding import let_definitions
from opgen.spec.loader import load_spec, load_spec_text_documents
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "let" / "square_plus.yaml"


def _let_free_text() -> str:
    """The fixture with formula.let removed and its expression written out by hand: each name replaced by its
    text, the last name first."""
    text = FIXTURE.read_text(encoding="utf-8")
    block = re.search(r"  let:\n((?:    \w+: .*\n)+)", text)
    assert block is not None
    lets = [line.strip().split(": ", 1) for line in block[1].splitlines()]
    expr_line = re.search(r"  expr: (.*)\n", text)
    assert expr_line is not None
    expr = expr_line[1]
    for name, definition in reversed(lets):
        expr = re.sub(rf"\b{name}\b", f"({definition})", expr)
    return text.replace(block[0], "").replace(expr_line[0], f"  expr: {expr}\n")


def _operations(expr: F.Expr, *, unique: bool) -> int:
    return sum(1 for node in F.walk(expr, unique=unique) if F.children(node))


def test_the_program_is_the_let_free_expansions_and_computes_each_name_once() -> None:
    spec = load_spec(FIXTURE).spec
    expanded_text = _let_free_text()
    (expanded,) = load_spec_text_documents(expanded_text, "square_plus.yaml", FIXTURE)
    assert not expanded.spec.formula.let
    written = expanded_text.split("  expr: ", 1)[1].split("\n", 1)[0]
    assert written.count("sqrt(") == 2 and written.count("abs(") == 10  # h twice, a five times in each h
    with_lets, without = kernel_plan(spec), kernel_plan(expanded.spec)
    assert len(with_lets.variants) == len(without.variants) >= 3
    for mine, theirs in zip(with_lets.variants, without.variants, strict=True):
        assert mine.program.instrs == theirs.program.instrs, mine.storage
        apis = [instr.api for instr in mine.program.instrs]
        assert apis.count("Sqrt") == 1 and apis.count("Abs") == 1, apis
    # the expanded tree repeats the names' operations; the program does each distinct one at most once
    tree = F.parse(written, {"self": F.Symbol.tensor(), "b": F.Symbol.scalar()})
    float_program = next(v.program for v in with_lets.variants if v.storage.value == "FLOAT")
    assert len(float_program.instrs) < _operations(tree, unique=False) / 2
    assert _operations(tree, unique=True) < _operations(tree, unique=False) / 2
    assert set(let_definitions(spec)) == {"a", "m", "h"}
