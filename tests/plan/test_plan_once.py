"""Each spec is planned once per build: one kernel plan (its lowering) per operator, and each formula text
parsed at most twice (once to validate it with a diagnostic, once for the plan), however many artifacts
read them. Before, the kernel plan was recomputed 5-6 times and the formula parsed 25 times per spec.

One build per spec file (each alone), so the cost of one case does not grow with the number of specs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from spec_list import SPEC_DIR, spec_files

import opgen.formula
import opgen.plan.operator
from opgen.build import build_tree
from opgen.build_cache import BuildCache
from opgen.spec import formula_binding
from opgen.spec.loader import load_spec_documents


@pytest.mark.parametrize("spec_file", spec_files(), ids=lambda path: path.stem)
def test_one_kernel_plan_and_few_parses_per_spec(spec_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_planned_once(spec_file, monkeypatch)


def test_a_condition_a_backward_shares_with_its_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: a forward and backward sharing one `reject_if` text (SquarePlus's) failed here, since the forward's
    validation parses every formula-language text it has, not only its formula and differs_from_torch conditions."""
    row = (
        "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {reject_if: negativeSlope > 1.5}\n"
        "    message: negativeSlope is too large.\n    doc: negativeSlope过大。\n"
    )
    for name in ("leaky_relu", "leaky_relu_grad"):
        text = (SPEC_DIR / f"{name}.yaml").read_text(encoding="utf-8")
        end = text.index("\n\n", text.index("\nerrors:")) + 1  # after the last row
        (tmp_path / f"{name}.yaml").write_text(text[:end] + row + text[end:], encoding="utf-8")
    _assert_planned_once(tmp_path / "leaky_relu_grad.yaml", monkeypatch)


def _parses_of_loading(path: Path) -> Counter[str]:
    """How often loading (validating) a spec file parses each formula-language text."""
    parses: Counter[str] = Counter()
    real_parse = opgen.formula.parse

    def counting_parse(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        parses[text] += 1
        return real_parse(text, *args, **kwargs)

    formula_binding._parse_cached.cache_clear()
    opgen.formula.parse = counting_parse
    try:
        load_spec_documents(path)
    finally:
        opgen.formula.parse = real_parse
    return parses


def _assert_planned_once(spec_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plans: Counter[tuple[str, str]] = Counter()  # (directory, file stem): a directory may hold several operators
    parses: Counter[str] = Counter()
    real_plan, real_parse = opgen.plan.operator.kernel_plan, opgen.formula.parse

    def counting_plan(spec):  # type: ignore[no-untyped-def]
        plans[spec.operator.dir, spec.operator.file_stem] += 1
        return real_plan(spec)

    def counting_parse(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        parses[text] += 1
        return real_parse(text, *args, **kwargs)

    # A backward spec with derivative_of validates its forward spec once more (the derivative check reads it):
    # whatever loading the forward parses, counted by loading it.
    extra: Counter[str] = Counter()
    # Operators of one file may share a formula text (aclnnLogSigmoid and aclnnLogSigmoidForward): each parses it.
    uses: Counter[str] = Counter()
    for item in load_spec_documents(spec_file):
        uses.update(item.spec.formula.computed.values())
        uses.update(item.spec.formula.let.values())  # a local name's text too (aclnnGeGlu and aclnnGeGluV3 share g)
        link = item.spec.derivative_of
        if link is not None:
            extra += _parses_of_loading(spec_file.parent / f"{link.forward}.yaml")
    formula_binding._parse_cached.cache_clear()
    monkeypatch.setattr(opgen.plan.operator, "kernel_plan", counting_plan)
    monkeypatch.setattr(opgen.formula, "parse", counting_parse)
    # in this process (jobs=1) and without the build cache, so every operator is planned here
    result = build_tree(spec_file, jobs=1, cache=BuildCache(enabled=False))
    assert len(result.operators) == 1 and {directory for directory, _ in plans} == set(result.operators)
    assert max(plans.values()) == 1, plans
    assert parses and all(count <= 2 * max(uses[text], 1) + extra[text] for text, count in parses.items()), parses
