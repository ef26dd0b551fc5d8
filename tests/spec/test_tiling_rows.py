"""Error rows of status ACLNN_ERR_INNER_TILING_ERROR (561002): what CANN's OpDef-generated aclnn reports from its
infershape and tiling. Mistakes are reported at their file:line; the rows are checked after the empty-tensor return;
the op_api does not check them, the generated host tiling does, with the check kind's one predicate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.emit.host import render_host
from opgen.emit.op_api import render_op_api
from opgen.plan.cases import first_failing_row, negative_calls, valid_call
from opgen.plan.operator import plan_operator
from opgen.spec.checks import OP_API_ACCESS, TILING_ACCESS
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
SWIGLU = "specs/swi_glu.yaml"
GLU = "specs/glu.yaml"
TILING = "  - status: ACLNN_ERR_INNER_TILING_ERROR\n    code: 561002\n"
OP_API = "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n"


def _text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def _diagnostic(text: str, path: str, marker: str, fragment: str, *, below: int = 0) -> None:
    """The diagnostic containing `fragment` points at the line of `marker` (or `below` lines after it)."""
    with pytest.raises(SpecError) as info:
        check_spec_text(text, path, ROOT / "specs")
    found = [d for d in info.value.diagnostics if fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(text, marker) + below, str(found[0])


def _switch(text: str, check: str, *, to_tiling: bool) -> str:
    """`text` with the row of `check` switched to the tiling's status (or back to the op_api's)."""
    old, new = (OP_API, TILING) if to_tiling else (TILING, OP_API)
    row = old + f"    check: {check}\n"
    assert text.count(row) == 1, check
    return text.replace(row, new + f"    check: {check}\n")


def test_swiglu_has_tiling_rows():
    text = _text(SWIGLU)
    assert text.count(TILING) == 3  # dim range, even size, out's shape


def test_tiling_rows_end_the_table():
    text = _switch(_text(SWIGLU), "{split_even: [x]}", to_tiling=False)
    # the op_api row after a tiling row: reported at its status
    marker = OP_API + "    check: {split_even: [x]}\n"
    _diagnostic(text, SWIGLU, marker, "the rows after it must be too")


def test_a_dtype_row_is_the_op_apis():
    text = _switch(_text(SWIGLU), "{dtype_supported: [x, out]}", to_tiling=True)
    _diagnostic(text, SWIGLU, TILING + "    check: {dtype_supported", "the tiling checks only", below=2)


def test_the_code_must_match_the_status():
    text = _text(SWIGLU).replace(TILING, "  - status: ACLNN_ERR_INNER_TILING_ERROR\n    code: 161002\n", 1)
    _diagnostic(text, SWIGLU, "    code: 161002\n    check: {dim_range", "does not match")


def test_an_aicpu_routed_operator_has_no_tiling_to_check_a_row():
    # GLU routes DOUBLE to its AICPU kernel, which no tiling precedes; its split rows end its table
    text = _text(GLU)
    for check in ("{dim_range: [self]}", "{split_even: [self]}", "{split_shape: [out]}"):
        text = _switch(text, check, to_tiling=True)
    _diagnostic(text, GLU, TILING + "    check: {dim_range", "routing.aicpu")


@pytest.fixture(scope="module")
def spec():
    return load_spec(ROOT / SWIGLU).spec


def test_an_empty_input_returns_before_the_tiling_rows(spec):
    base = valid_call(spec, DType.FLOAT).args
    odd = {**base, "x": replace(base["x"], shape=(0, 3)), "out": replace(base["out"], shape=(0, 1))}
    assert first_failing_row(spec, odd) is None
    row = next(i for i, r in enumerate(spec.errors) if r.check.kind == "split_even")
    assert spec.errors[row].in_tiling and spec.errors[row].after_empty
    assert first_failing_row(spec, {**odd, "x": replace(base["x"], shape=(2, 3))}) == row


def test_each_tiling_row_has_a_negative_case_of_its_status(spec):
    calls = {c.row: c for c in negative_calls(spec)}
    for index, row in enumerate(spec.errors):
        if row.in_tiling:
            assert calls[index].status == 561002 and calls[index].status_name == "ACLNN_ERR_INNER_TILING_ERROR"


def test_one_predicate_two_spellings(spec):
    """The tiling's C++ of a row is the op_api's with each tensor's shape read from the tiling's locals."""
    for index, row in enumerate(spec.errors):
        if not row.in_tiling:
            continue
        api, tiling = row.check.cpp(spec, index, OP_API_ACCESS), row.check.cpp(spec, index, TILING_ACCESS)
        spelled = api.condition
        for name in ("x", "out"):
            spelled = spelled.replace(f"{name}->GetViewShape()", f"{name}Shape")
        assert tiling.condition == spelled
        assert len(tiling.setup) == len(api.setup)


def test_the_tiling_checks_them_and_the_op_api_does_not(spec):
    plan = plan_operator(spec, SWIGLU)
    host = render_host(plan)
    op_api = render_op_api(plan)
    tiling = host["op_host/swi_glu_tiling.cpp"]
    api = op_api["op_api/aclnn_swi_glu.cpp"]
    for row in spec.errors:
        assert (row.message in tiling) == row.in_tiling, row.message
        assert (row.message in api) == (not row.in_tiling), row.message
    assert "CheckTilingParams(context)" in tiling
    # the L0 op allocates its output with the caller's shape, which the tiling then checks
    assert "const op::Shape& outShape" in op_api["op_api/swi_glu.cpp"]
    assert "l0op::SwiGlu(xCasted, dim, out->GetViewShape()" in api
    # which hands back its launch's status, the tiling's refusal, and the API returns it
    assert "*launchStatus = ret;" in op_api["op_api/swi_glu.cpp"]
    assert "CHECK_RET(l0Result != nullptr, launchStatus)" in api
