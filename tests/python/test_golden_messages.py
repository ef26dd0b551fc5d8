"""Golden-test failures explain themselves, and the reference models the kernel's compute dtype.

The case is issue 18's: a tanh_backward (gradOutput * (1 - output**2)) at gradOutput 0, output 3e38. In float32
`output**2` overflows, so the kernel (and torch) give NaN where the float64 reference gives -0.0; the golden test
used to fail with `8 elements differ in NaN or infinity, first at 120: nan vs -0.0`. The kernel's output here is
the bit-exact numpy model of the generated kernel (what the twin computes); the comparison is the one the generated
golden tests call (`opgen_ops.golden`); the generated test file itself is checked to pass both references."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen import formula as F
from opgen.build import check_spec_text
from opgen.emit.golden_tests import render_golden_tests
from opgen.plan.aclnn_path import aclnn_output
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen_ops import golden

ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = (1e-4, 1e-4, 1e-4, "双万分之一")


@pytest.fixture(scope="module")
def plan():
    text = (ROOT / "specs" / "sigmoid_grad.yaml").read_text(encoding="utf-8")
    text = text.replace("expr: gradOutput * output * (1 - output)", "expr: gradOutput * (1 - output**2)")
    text = text.replace("derivative_of: {forward: sigmoid, grad: gradOutput, input: output, holds: result}\n", "")
    return check_spec_text(text, "specs/tanh_like_grad.yaml")


def _case(plan):
    grad = np.array([[0.5, 0.0], [1.0, 0.25]], np.float32)
    output = np.array([[0.5, 3e38], [0.0, -0.5]], np.float32)
    inputs = {"gradOutput": grad, "output": output}
    got = aclnn_output(plan.spec, plan.kernel, inputs, dict.fromkeys(inputs, DType.FLOAT), {}, DType.FLOAT)
    wide = {k: v.astype(np.float64) for k, v in inputs.items()}
    want = evaluate_reference(plan.spec, wide, None).astype(np.float32)
    # the formula in float32: the numpy source the golden test carries, over the inputs as stored
    with np.errstate(all="ignore"):
        narrow = eval(F.to_numpy(plan.kernel_formula), {"np": np}, dict(inputs)).astype(np.float32)
    return inputs, got, want, narrow


def test_the_kernel_overflows_where_the_float64_reference_does_not(plan):
    _, got, want, narrow = _case(plan)
    assert np.isnan(got[0, 1]) and want[0, 1] == 0 and np.isnan(narrow[0, 1])


def test_a_failure_names_the_element_its_inputs_and_each_reference(plan):
    inputs, got, want, _ = _case(plan)
    with pytest.raises(AssertionError) as info:
        golden.assert_meets_standard(
            got, {"the spec reference (float64)": want}, TOLERANCE, "vs the spec reference", inputs=inputs, scalars={}
        )
    message = str(info.value)
    assert message.startswith("vs the spec reference: 1 of 4 elements differ in NaN or infinity")
    assert "at index (0, 1) (flat 1)" in message
    assert "inputs gradOutput=0.0, output=3.0000000054977558e+38; parameters -;" in message
    assert "the output holds nan; the spec reference (float64) gives -0.0" in message


def test_the_formula_in_the_compute_dtype_is_a_second_reference(plan):
    inputs, got, want, narrow = _case(plan)
    references = {"the spec reference (float64)": want, "the spec formula in FLOAT": narrow}
    golden.assert_meets_standard(got, references, TOLERANCE, "vs the spec reference", inputs=inputs, scalars={})
    # an element matching neither still fails, naming both
    wrong = got.copy()
    wrong[1, 1] += 1
    with pytest.raises(AssertionError, match=r"against the spec reference \(float64\) or the spec formula in FLOAT"):
        golden.assert_meets_standard(wrong, references, TOLERANCE, "vs the spec reference", inputs=inputs)


def test_parameters_and_ignored_elements(plan):
    inputs, got, want, _ = _case(plan)
    ignore = np.isnan(got)
    golden.assert_meets_standard(got, {"torch": want}, TOLERANCE, "vs torch", inputs=inputs, ignore=ignore)
    wrong = got.copy()
    wrong[1, 0] = 5.0
    with pytest.raises(AssertionError) as info:
        golden.assert_meets_standard(
            wrong, {"torch": want}, TOLERANCE, "vs torch", inputs=inputs, scalars={"alpha": 0.5}, ignore=ignore
        )
    assert "1 of 3 elements outside 双万分之一" in str(info.value)
    assert "at index (1, 0)" in str(info.value) and "parameters alpha=0.5" in str(info.value)


def test_the_generated_golden_test_uses_the_compute_dtype_reference(plan):
    (text,) = render_golden_tests(plan).values()
    assert 'COMPUTE_DTYPES = {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "BFLOAT16": "FLOAT"}' in text
    assert "from opgen_ops import golden" in text
    assert '"the spec formula in {COMPUTE_DTYPES[dtype]}"' in text.replace('f"the spec', '"the spec')
