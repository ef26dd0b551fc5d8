"""The empty-tensor return in the spec (`empty_return`, `errors[].after_empty_return`): where ops-nn's code returns
success on an empty input, which rows it checks only after that return, and what each layer makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.emit.op_api import render_op_api
from opgen.plan.cases import first_failing_row, negative_calls, valid_call
from opgen.spec.checks import Arg
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
HARDSHRINK = "specs/hard_shrink_grad.yaml"
BROADCAST_ROW = "    after_empty_return: true\n    check: {broadcast: [gradOutput, self, gradInput]}\n"


def _diagnostic(text: str, marker: str, fragment: str, *, above: int = 0) -> None:
    """The diagnostic containing `fragment` points at the line of `marker` (or `above` lines before it)."""
    with pytest.raises(SpecError) as info:
        check_spec_text(text, HARDSHRINK, ROOT / "specs")
    found = [d for d in info.value.diagnostics if fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(text, marker) - above, str(found[0])


@pytest.fixture(scope="module")
def original() -> str:
    text = (ROOT / HARDSHRINK).read_text(encoding="utf-8")
    assert text.count(BROADCAST_ROW) == 1 and text.count("empty_return: [gradOutput, self]") == 1
    return text


def test_rows_after_the_return_end_the_table(original):
    # the rank row (before the broadcast row) marked, the broadcast row not: the order cannot be expressed
    rank_row = "    check: {max_rank: [gradOutput, self, gradInput]}\n"
    text = original.replace(BROADCAST_ROW, "    check: {broadcast: [gradOutput, self, gradInput]}\n")
    text = text.replace(rank_row, "    after_empty_return: true\n" + rank_row)
    # a row without the field: the diagnostic points at the row (its first line, two above its check)
    _diagnostic(text, "    check: {broadcast:", "the rows after it must be too", above=2)


def test_a_null_check_cannot_follow_the_return(original):
    null_row = "    check: {not_null: [gradOutput, self, lambd, gradInput]}\n"
    text = original.replace(null_row, "    after_empty_return: true\n" + null_row)
    _diagnostic(text, "    after_empty_return: true\n    check: {not_null", "must come before the empty-tensor return")


def test_the_return_names_tensors(original):
    text = original.replace("empty_return: [gradOutput, self]", "empty_return: [gradOutput, lambd]")
    _diagnostic(text, "empty_return: [gradOutput, lambd]", "needs a tensor")
    text = original.replace("empty_return: [gradOutput, self]", "empty_return: [gradOutput, selff]")
    _diagnostic(text, "empty_return: [gradOutput, selff]", "undefined parameter 'selff'")


@pytest.fixture(scope="module")
def spec():
    return load_spec(ROOT / HARDSHRINK).spec


def test_an_empty_input_passes_the_rows_after_the_return(spec):
    base = valid_call(spec, DType.FLOAT).args
    row = next(i for i, r in enumerate(spec.errors) if r.after_empty_return)
    # ops-nn's unit test case_empty_tensor: gradOutput [0], self [1, 1, 1, 4], gradInput [1, 1, 1, 4]
    empty = {
        **base,
        "gradOutput": Arg("tensor", (0,), DType.FLOAT),
        "self": Arg("tensor", (1, 1, 1, 4), DType.FLOAT),
        "gradInput": Arg("tensor", (1, 1, 1, 4), DType.FLOAT),
    }
    assert first_failing_row(spec, empty) is None
    assert first_failing_row(spec, {**empty, "gradOutput": Arg("tensor", (3,), DType.FLOAT)}) == row
    # rows before the return still refuse an empty input
    assert first_failing_row(spec, {**empty, "gradOutput": Arg("tensor", (0,), DType.INT32)}) == row - 2
    assert [c.row for c in negative_calls(spec)] == list(range(len(spec.errors)))


def test_the_op_api_checks_the_late_rows_after_the_return(spec):
    plan = check_spec_text((ROOT / HARDSHRINK).read_text(encoding="utf-8"), HARDSHRINK, ROOT / "specs")
    source = render_op_api(plan)["op_api/aclnn_hardshrink_backward.cpp"]
    empty = source.index("if (gradOutput->IsEmpty() || self->IsEmpty()) {")
    late = source.index("ret = CheckNonEmptyParams(gradOutput, self, gradInput);")
    # the broadcast row's helper is called by CheckNonEmptyParams only
    helper = source[source.index("static inline bool CheckBroadcastShape(") :]
    assert "BroadcastInferShape(" in helper[: helper.index("return true;")]
    early = source[
        source.index("static aclnnStatus CheckParams(") : source.index("static aclnnStatus CheckNonEmptyParams(")
    ]
    late_rows = source[source.index("static aclnnStatus CheckNonEmptyParams(") : empty]
    assert "CheckBroadcastShape(" not in early
    assert "if (!CheckBroadcastShape(gradOutput, self, gradInput)) {" in late_rows
    assert source.index("auto ret = CheckParams(") < empty < late < source.index("l0op::HardShrinkGrad(")


def test_the_docs_say_when_a_late_row_is_not_checked():
    plan = check_spec_text((ROOT / HARDSHRINK).read_text(encoding="utf-8"), HARDSHRINK, ROOT / "specs")
    cells = [row.text for row in plan.docs.apis[0].errors]
    assert cells[-1].endswith("（gradOutput或self为空Tensor时直接返回成功，不做此校验。）")
    assert not any("为空Tensor时" in cell for cell in cells[:-1])


def test_a_summed_output_is_zeroed_on_the_empty_return():
    text = (ROOT / "specs/p_relu_grad_update.yaml").read_text(encoding="utf-8")
    plan = check_spec_text(text, "p_relu_grad_update.yaml", ROOT / "specs")
    source = render_op_api(plan)["op_api/aclnn_prelu_backward.cpp"]
    empty = source.index("if (gradOutput->IsEmpty() || self->IsEmpty() || weight->IsEmpty()) {")
    zeros = source.index("auto gradWeightZeros = l0op::ZerosLike(gradWeightLike, uniqueExecutor.get());")
    copy = source.index("l0op::ViewCopy(gradWeightZeros, gradWeight, uniqueExecutor.get());")
    assert empty < zeros < copy < source.index("l0op::PReluGradUpdate(")
    assert '#include "level0/zero_op.h"' in source
