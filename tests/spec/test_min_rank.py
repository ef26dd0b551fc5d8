"""The `min_rank` check kind: a tensor's lowest rank as an error row of its own. ops-nn's aclnnGlu and aclnnGluBackward
doc tables list "维度大于8" and "self的维度等于0" as two rows with one code; before, max_rank checked both bounds of
the `rank` range, so a separate 0-d row could never trip and glu.yaml/glu_grad.yaml merged the two. A max_rank row
now checks only the upper bound of a tensor a min_rank row names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from spec_list import spec_of

from opgen.build import check_spec_text
from opgen.plan.cases import first_failing_row, negative_calls, valid_call
from opgen.spec.checks import CheckMaxRank, CheckMinRank
from opgen.spec.diagnostics import SpecError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("op", ["glu", "glu_grad"])
def test_a_0d_self_trips_the_min_rank_row_and_a_9d_one_the_max_rank_row(op: str) -> None:
    spec = spec_of(op)
    rows = {type(row.check): index for index, row in enumerate(spec.errors)}
    max_row, min_row = rows[CheckMaxRank], rows[CheckMinRank]
    assert min_row == max_row + 1  # as the doc lists them: dims > 8, then self 0-d
    base = valid_call(spec, spec.tensor_inputs[0].dtypes[0]).args
    flat = {**base, "self": replace(base["self"], shape=())}
    deep = {**base, "self": replace(base["self"], shape=(1,) * 9)}
    assert first_failing_row(spec, flat, ()) == min_row
    assert first_failing_row(spec, deep, ()) == max_row
    # the op_api checks each bound in its own row, logging that row's message
    max_cpp = spec.errors[max_row].check.cpp(spec, max_row).condition
    min_cpp = spec.errors[min_row].check.cpp(spec, min_row).condition
    assert "self->GetViewShape().GetDimNum() < 1" not in max_cpp and "GetDimNum() > 8" in max_cpp
    assert min_cpp == "self->GetViewShape().GetDimNum() < 1"
    # each row has its negative case (a C++ unit test and a Python test each)
    names = {call.name for call in negative_calls(spec)}
    assert f"row{min_row}_minrank" in names and f"row{max_row}_maxrank" in names


def test_without_a_min_rank_row_max_rank_checks_both_bounds() -> None:
    spec = spec_of("glu")
    merged = [row for row in spec.errors if not isinstance(row.check, CheckMinRank)]
    spec = spec.model_copy(update={"errors": merged})
    index = next(i for i, row in enumerate(merged) if isinstance(row.check, CheckMaxRank))
    assert "self->GetViewShape().GetDimNum() < 1" in merged[index].check.cpp(spec, index).condition
    base = valid_call(spec, spec.tensor_inputs[0].dtypes[0]).args
    assert first_failing_row(spec, {**base, "self": replace(base["self"], shape=())}, ()) == index


def test_a_min_rank_row_on_a_tensor_that_may_be_0d_is_refused() -> None:
    text = (ROOT / "specs" / "glu.yaml").read_text(encoding="utf-8")
    old = "check: {min_rank: [self]}"
    assert old in text
    with pytest.raises(SpecError, match=r"'out' accepts rank 0 \(its rank range is \[0, 8\]\): nothing to check"):
        check_spec_text(text.replace(old, "check: {min_rank: [out]}"), "specs/glu.yaml", ROOT / "specs")
