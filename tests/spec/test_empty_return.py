"""The empty-tensor return in the spec (`empty_return`, `errors[].after_empty_return`): where ops-nn's code returns
success on an empty input, which rows it checks only after that return, and what each layer makes of it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.emit.op_api import render_op_api
from opgen.plan.cases import empty_return_soc_calls, first_failing_row, negative_calls, valid_call
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


# ---- empty_return.after_checks_on: the return's place per SoC (aclnnSoftmaxBackward's `!IsRegbase() && IsEmpty()`)

SOFTMAX_GRAD = "specs/softmax_grad.yaml"
PER_SOC = "empty_return: {tensors: [gradOutput, output], after_checks_on: [ascend950]}"


@pytest.fixture(scope="module")
def softmax_grad_text() -> str:
    text = (ROOT / SOFTMAX_GRAD).read_text(encoding="utf-8")
    assert text.count(PER_SOC) == 1
    return text


def _softmax_grad_diagnostic(text: str, marker: str, fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        check_spec_text(text, SOFTMAX_GRAD, ROOT / "specs")
    found = [d for d in info.value.diagnostics if fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(text, marker), str(found[0])


@pytest.mark.parametrize(
    "socs,fragment",
    [
        ("[ascend95]", "unknown SoC 'ascend95'"),
        ("[ascend910b]", "list the regbase SoCs the spec supports (ascend950)"),
        ("[ascend950, ascend910b]", "list the regbase SoCs the spec supports (ascend950)"),
        ("[ascend950, ascend950]", "listed twice"),
        ("[]", "at least 1 item"),
    ],
)
def test_after_checks_on_names_the_socs_ops_nn_tells_apart(softmax_grad_text, socs, fragment):
    text = softmax_grad_text.replace(PER_SOC, PER_SOC.replace("[ascend950]", socs))
    _softmax_grad_diagnostic(text, "empty_return: {tensors", fragment)


def test_after_checks_on_needs_a_supported_soc(softmax_grad_text):
    text = softmax_grad_text.replace("  - {soc: ascend950, supported: true}", "  - {soc: ascend950, supported: false}")
    _softmax_grad_diagnostic(text, "empty_return: {tensors", "is not a supported row of 'socs'")


def test_after_checks_on_needs_rows_after_the_return(softmax_grad_text):
    text = softmax_grad_text.replace("    after_empty_return: true\n", "")
    _softmax_grad_diagnostic(text, "empty_return: {tensors", "no op_api row is marked after_empty_return")


def test_the_mapping_form_names_tensors(softmax_grad_text):
    text = softmax_grad_text.replace(PER_SOC, PER_SOC.replace("[gradOutput, output]", "[gradOutput, dim]"))
    _softmax_grad_diagnostic(text, "empty_return: {tensors", "needs a tensor")
    extra = "empty_return: {tensors: [gradOutput], after_checks_on: [ascend950], x: 1}"
    text = softmax_grad_text.replace(PER_SOC, extra)
    _softmax_grad_diagnostic(text, "empty_return: {tensors", "unknown key 'x'; allowed keys: after_checks_on, tensors")
    text = softmax_grad_text.replace(PER_SOC, "empty_return: {tensors: [gradOutput]}")
    _softmax_grad_diagnostic(text, "empty_return: {tensors", "required key is missing")
    text = softmax_grad_text.replace(PER_SOC, "empty_return: gradOutput")
    form = "a list of tensors, or a mapping {tensors, after_checks_on}"
    _softmax_grad_diagnostic(text, "empty_return: gradOutput", form)


def test_an_empty_tensor_trips_a_late_row_only_where_it_is_checked_first():
    spec = load_spec(ROOT / SOFTMAX_GRAD).spec
    base = valid_call(spec, DType.FLOAT).args
    empty = {n: replace(a, shape=(0, 3)) if a.kind == "tensor" else a for n, a in base.items()}
    bad = {**empty, "gradOutput": replace(empty["gradOutput"], dtype=DType.INT32)}
    row = next(i for i, r in enumerate(spec.errors) if r.after_empty_return)
    assert first_failing_row(spec, bad, soc="ascend950") == row
    for soc in ("ascend910b", "ascend910_93"):
        assert first_failing_row(spec, bad, soc=soc) is None
    # without a SoC: the default twin's (a SoC that returns first)
    assert first_failing_row(spec, bad) is None
    assert first_failing_row(spec, empty, soc="ascend950") is None
    calls = empty_return_soc_calls(spec)
    assert [(c.soc, c.call.status) for c in calls] == [("ascend910_93", 0), ("ascend950", 161002)]


def test_the_op_api_branches_on_regbase_as_ops_nn_does():
    plan = check_spec_text((ROOT / SOFTMAX_GRAD).read_text(encoding="utf-8"), SOFTMAX_GRAD, ROOT / "specs")
    source = render_op_api(plan)["op_api/aclnn_softmax_backward.cpp"]
    assert '#include "op_api/aclnn_util.h"' in source
    first = source.index(
        "if (Ops::NN::AclnnUtil::IsRegbase() || !(gradOutput->IsEmpty() || output->IsEmpty())) {\n"
        "    ret = CheckNonEmptyParams(gradOutput, output, dim, out);"
    )
    empty = source.index("if (gradOutput->IsEmpty() || output->IsEmpty()) {")
    assert source.index("auto ret = CheckParams(") < first < empty
    assert source.count("CheckNonEmptyParams(gradOutput, output, dim, out);") == 1  # not again after the return
    # an operator without the field keeps its late rows after the return, with no SoC query
    hardshrink = check_spec_text((ROOT / HARDSHRINK).read_text(encoding="utf-8"), HARDSHRINK, ROOT / "specs")
    assert "IsRegbase" not in render_op_api(hardshrink)["op_api/aclnn_hardshrink_backward.cpp"]


def test_the_docs_say_which_socs_check_first():
    plan = check_spec_text((ROOT / SOFTMAX_GRAD).read_text(encoding="utf-8"), SOFTMAX_GRAD, ROOT / "specs")
    cells = [row.text for row in plan.docs.apis[0].errors]
    late = [cell for cell in cells if "为空Tensor时" in cell]
    assert len(late) == 6
    assert all("Ascend 950PR/Ascend 950DT先做此校验再返回成功，其他产品直接返回成功，不做此校验。" in c for c in late)
