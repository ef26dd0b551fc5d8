"""Operators with several outputs: `formula.outputs` (an expression per written output) beside the one-output
`formula.output` + `expr`, and `written: false` for an output the API takes but never checks or writes (ops-nn's
aclnnLogSigmoidForward and its buffer). Each mistake is reported at its own line of the spec file.

Every case edits the second document of the real `specs/log_sigmoid.yaml` (aclnnLogSigmoidForward); the expected
line is where the edit's marker lands in the edited text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from opgen.build import plan_specs_of
from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec_documents, load_spec_text_documents

SPEC = Path(__file__).resolve().parents[2] / "specs" / "log_sigmoid.yaml"
TEXT = SPEC.read_text(encoding="utf-8")
SPLIT = TEXT.index("\n---\n")
FIRST, SECOND = TEXT[:SPLIT], TEXT[SPLIT:]

BUFFER_WRITTEN = (
    "    written: false\n",
    "    dtypes: [FLOAT, FLOAT16, BFLOAT16]\n    rank: [1, 8]\n    shape: {same_as: self}\n"
    "    dtype: {same_as: self}\n",
)
BUFFER_EXAMPLE = (
    "buffer: {shape: [0], dtype: FLOAT, data: []}",
    "buffer: {shape: [2, 2], dtype: FLOAT, data: [0, 0, 0, 0]}",
)


@dataclass(frozen=True)
class Case:
    id: str
    edits: tuple[tuple[str, str], ...]  # (old, new) in the second document, each replaced once
    marker: str  # text on the line the diagnostic points at (its first occurrence in the edited second document)
    fragment: str  # in the message


CASES = [
    Case(
        "both-forms",
        (("  outputs:\n", "  output: out\n  outputs:\n"),),
        "outputs:",
        "give either 'output' and 'expr' or 'outputs', not both",
    ),
    Case("unknown-output", (("    out: -softplus", "    outt: -softplus"),), "outt:", "did you mean 'out'"),
    Case(
        "input-as-output",
        (("    out: -softplus(-x)", "    out: -softplus(-x)\n    self: x"),),
        "self: x",
        "'self' is an input",
    ),
    Case(
        "unwritten-with-formula",
        (("    out: -softplus(-x)", "    out: -softplus(-x)\n    buffer: exp(-abs(x))"),),
        "buffer: exp",
        "'buffer' is left unwritten",
    ),
    Case(
        "output-without-expression",
        (BUFFER_WRITTEN,),
        "  outputs:",
        "the output 'buffer' has no expression",
    ),
    Case(
        "outputs-out-of-order",
        (
            BUFFER_WRITTEN,
            ("    out: -softplus(-x)", "    buffer: exp(-abs(x))\n    out: -softplus(-x)"),
            BUFFER_EXAMPLE,
        ),
        "  outputs:",
        "list the outputs in the API's order: out, buffer",
    ),
    Case(
        "one-form-for-two-outputs",
        (
            BUFFER_WRITTEN,
            (
                "  outputs:\n    # log(sigmoid(x)) = -softplus(-x), as aclnnLogSigmoid.\n    out:",
                "  output: out\n  expr:",
            ),
        ),
        "output: out",
        "the operator writes out, buffer: give each its expression in formula.outputs",
    ),
    Case(
        "unparsable-second-expression",
        (("    out: -softplus(-x)", "    out: -softplus(-x)\n    buffer: exp(-abs(x)"),),
        "buffer: exp",
        "formula:",
    ),
    Case(
        "unwritten-input",
        (("    opdef_name: x\n", "    opdef_name: x\n    written: false  # on self\n"),),
        "written: false  # on self",
        "only an output tensor can be left unwritten",
    ),
    Case(
        "unwritten-with-dtypes",
        (("    written: false\n", "    written: false\n    dtypes: [FLOAT]\n"),),
        "dtypes: [FLOAT]",
        "'dtypes' says nothing about an output the API leaves unwritten",
    ),
    Case(
        "relation-to-an-unwritten-output",
        (("    shape: {same_as: self}\n    opdef_name: y", "    shape: {same_as: buffer}\n    opdef_name: y"),),
        "shape: {same_as: buffer}",
        "'buffer' is left unwritten (written: false): it has no shape or dtype",
    ),
    Case(
        "unwritten-in-an-error-row",
        (("check: {not_null: [self, out]}", "check: {not_null: [self, out, buffer]}"),),
        "check: {not_null: [self, out, buffer]}",
        "'buffer' is left unwritten (written: false): the API checks nothing of it",
    ),
]


def _edited(case: Case) -> str:
    second = SECOND
    for old, new in case.edits:
        assert old in second, f"case {case.id} no longer applies to {SPEC.name}"
        second = second.replace(old, new, 1)
    return second


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_mistake_is_reported_at_its_line(case: Case) -> None:
    second = _edited(case)
    text = FIRST + second
    with pytest.raises(SpecError) as caught:
        plan_specs_of(load_spec_text_documents(text, "specs/log_sigmoid.yaml", SPEC), "specs/log_sigmoid.yaml")
    line = text.count("\n", 0, len(FIRST) + second.index(case.marker)) + 1
    found = [d for d in caught.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert str(found[0]).startswith(f"specs/log_sigmoid.yaml:{line}:"), str(found[0])


def test_the_two_forms_state_the_same_operator() -> None:
    """`outputs: {out: E}` and `output: out` + `expr: E` load to the same computed output and formula."""
    legacy = SECOND.replace(
        "  outputs:\n    # log(sigmoid(x)) = -softplus(-x), as aclnnLogSigmoid.\n    out: -softplus(-x)",
        "  output: out\n  expr: -softplus(-x)",
        1,
    )
    assert legacy != SECOND
    new_form = load_spec_documents(SPEC)[1].spec
    old_form = load_spec_text_documents(FIRST + legacy, "specs/log_sigmoid.yaml", SPEC)[1].spec
    assert new_form.formula.computed == old_form.formula.computed == {"out": "-softplus(-x)"}
    assert new_form.formula.expr_path("out") == ("formula", "outputs", "out")
    assert old_form.formula.expr_path("out") == ("formula", "expr")
