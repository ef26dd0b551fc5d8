"""`kernel.runs`: an API running another operator's kernel (aclnnSilu runs Swish with scale 1.0, as ops-nn's op_api
calls l0op::Swish): mistakes reported at their file:line, and what a valid one makes the package hold."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from spec_list import GENERATED, SPEC_DIR

from opgen.build import plan_specs
from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec_text_documents


@dataclass(frozen=True)
class Case:
    id: str
    spec: str
    old: str  # text of the real spec the mistake replaces
    new: str
    fragment: str  # part of the message; the diagnostic points at the line holding `new`


CASES = [
    Case(
        "type-of-no-sibling",
        "swish.yaml",
        "runs: {type: Swish, attrs: {scale: 1.0}}",
        "runs: {type: Swsh, attrs: {scale: 1.0}}",
        "no other operator of this spec file has OpType Swsh (Swish)",
    ),
    Case(
        "not-itself",
        "log_sigmoid.yaml",
        "runs: {type: LogSigmoid}",
        "runs: {type: LogSigmoidForward}",
        "no other operator of this spec file has OpType LogSigmoidForward (LogSigmoid)",
    ),
    Case(
        "attr-unknown",
        "swish.yaml",
        "runs: {type: Swish, attrs: {scale: 1.0}}",
        "runs: {type: Swish, attrs: {scale: 1.0, beta: 2.0}}",
        "'beta' is not an attribute Swish's L0 op takes (scale)",
    ),
    Case(
        "attr-missing",
        "swish.yaml",
        "runs: {type: Swish, attrs: {scale: 1.0}}",
        "runs: {type: Swish}",
        "give the value of Swish's attribute scale (its L0 op takes it)",
    ),
    Case(
        "attr-kind",
        "swish.yaml",
        "runs: {type: Swish, attrs: {scale: 1.0}}",
        "runs: {type: Swish, attrs: {scale: on}}",
        "True is not a value of Swish's Float attribute scale",  # YAML 1.1's on: the checker sees a bool
    ),
    Case(
        # aclnnGeGlu passes its dim and approximate through; activate_left it has no parameter for
        "attr-not-passed",
        "ge_glu_v2.yaml",
        "runs: {type: GeGluV2, attrs: {activate_left: false}}",
        "runs: {type: GeGluV2}",
        "give the value of GeGluV2's attribute activate_left (its L0 op takes it)",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_runs_mistakes_point_at_their_line(case: Case) -> None:
    original = (SPEC_DIR / case.spec).read_text(encoding="utf-8")
    assert original.count(case.old) == 1, f"case {case.id} no longer applies to {case.spec}"
    mutated = original.replace(case.old, case.new)
    with pytest.raises(SpecError) as info:
        plan_specs(load_spec_text_documents(mutated, f"specs/{case.spec}", SPEC_DIR / case.spec))
    found = [d for d in info.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == mutated.count("\n", 0, mutated.index(case.new)) + 1, str(found[0])


@pytest.mark.parametrize(
    ("directory", "stem", "call"),
    [
        ("swish", "silu", "l0op::Swish(selfCasted, 1.0f, uniqueExecutor.get())"),
        ("log_sigmoid", "log_sigmoid_forward", "l0op::LogSigmoid(selfCasted, uniqueExecutor.get())"),
        # the API's own dim and approximate pass through, activate_left is fixed
        ("ge_glu_v2", "ge_glu", "l0op::GeGluV2(selfCasted, dim, approximate, false, uniqueExecutor.get())"),
    ],
)
def test_the_api_calls_the_other_l0_op_and_has_no_kernel(directory: str, stem: str, call: str) -> None:
    package = GENERATED / directory
    api = (package / "op_api" / f"aclnn_{stem}.cpp").read_text(encoding="utf-8")
    assert call in api
    assert f'#include "{directory}.h"' in api
    own = [f"op_api/{stem}.h", f"op_api/{stem}.cpp", f"op_host/{stem}_def.cpp", f"op_host/{stem}_tiling.cpp"]
    own += [f"op_host/{stem}_infershape.cpp", f"op_kernel/{stem}.cpp", f"tests/ut/op_host/test_{stem}_tiling.cpp"]
    assert [name for name in own if (package / name).exists()] == []
    assert (package / "op_kernel" / f"{directory}.cpp").is_file()  # the kernel it runs
