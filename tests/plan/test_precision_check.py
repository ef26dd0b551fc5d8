"""`opgen check` reports a dtype whose measured precision misses its golden standard, at the line that fixes it.

The spec is a tanh_backward written as a user would (gradOutput * (1 - output**2), FLOAT16 computed in FLOAT16 over
[-10, 10]: 0.43% of the points beyond 双千分之一, which allows 0.1%), made from the shipped SigmoidGrad; the golden
tests would fail on it, and before this check only the generated doc's 精度 table showed it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.cli import main
from opgen.spec.diagnostics import SpecError

ROOT = Path(__file__).resolve().parents[2]


def _tanh_backward() -> str:
    text = (ROOT / "specs" / "sigmoid_grad.yaml").read_text(encoding="utf-8")
    replacements = {
        "expr: gradOutput * output * (1 - output)": "expr: gradOutput * (1 - output**2)",
        "derivative_of: {forward: sigmoid, grad: gradOutput, input: output, holds: result}\n": "",
        "value_range: [-2, 2]": "value_range: [-10, 10]",
    }
    for old, new in replacements.items():
        assert old in text, old  # the shipped spec changed: update the recipe
        text = text.replace(old, new)
    return text


def test_a_dtype_missing_its_standard_is_reported_at_compute_in_float():
    text = _tanh_backward()
    with pytest.raises(SpecError) as info:
        check_spec_text(text, "specs/tanh_like_grad.yaml")
    (problem,) = info.value.diagnostics
    assert problem.location.line == line_of(text, "compute_in_float:")
    assert problem.path == ("kernel", "compute_in_float")
    message = problem.message
    assert message.startswith(
        "FLOAT16 misses its standard 双千分之一 (rtol 0.001, atol 0.001, max_fail_ratio 0.001): 0.43%"
    )
    assert "add FLOAT16 to kernel.compute_in_float" in message


def test_computing_it_in_float_passes():
    text = _tanh_backward().replace("compute_in_float: [BFLOAT16]", "compute_in_float: [FLOAT16, BFLOAT16]")
    plan = check_spec_text(text, "specs/tanh_like_grad.yaml")
    (row,) = [r for r in plan.precision if r.dtype.value == "FLOAT16"]
    assert row.fail_ratio is not None and row.fail_ratio <= 1e-3


def test_opgen_check_prints_it(tmp_path, capsys):
    path = tmp_path / "tanh_like_grad.yaml"
    path.write_text(_tanh_backward(), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f":{line_of(_tanh_backward(), 'compute_in_float:')}:" in err
    assert "kernel.compute_in_float: FLOAT16 misses its standard" in err


def test_every_shipped_spec_meets_its_standards():
    # what `opgen check specs/` now demands of them (the plan raises on a miss)
    from opgen.build import plan_spec_files

    for path in sorted((ROOT / "specs").glob("*.yaml")):
        plan_spec_files(path)
