"""A float scalar is read as ops-nn reads it, with aclScalar::ToFloat(), in the API's checks, in the kernel's
attributes and in the generated Python that predicts the checks.

Before: the generated checks read scalars with ToDouble(), so a DOUBLE alpha of -1e-50 (a Python float) was
refused by aclnnEluBackward's `isResult and alpha < 0` row, while ops-nn, which reads it as float (-0.0), accepts it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen.build import check_spec_text

ROOT = Path(__file__).resolve().parents[2]
TINY = -1e-50  # negative as a double, -0.0 as a float

opgen_ops = pytest.importorskip("opgen_ops")


def test_the_plan_reads_a_scalar_as_float() -> None:
    text = (ROOT / "specs" / "elu_grad_v2.yaml").read_text(encoding="utf-8")
    plan = check_spec_text(text, "specs/elu_grad_v2.yaml", ROOT / "specs")
    assert not plan.rejects({"isResult": True, "alpha": TINY, "scale": 1.0, "inputScale": 1.0})
    assert plan.rejects({"isResult": True, "alpha": -1e-30, "scale": 1.0, "inputScale": 1.0})  # a float -1e-30


@pytest.mark.cxx  # the first call builds the twin library
def test_the_api_reads_a_double_scalar_as_float() -> None:
    grad = np.linspace(-1, 1, 8, dtype=np.float32)
    result = np.linspace(-2, 2, 8, dtype=np.float32)
    got = opgen_ops.elu_backward(grad, TINY, 1.0, 1.0, True, result)  # a Python float: a DOUBLE aclScalar
    want = opgen_ops.elu_backward(grad, -0.0, 1.0, 1.0, True, result)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.elu_backward(grad, -1e-30, 1.0, 1.0, True, result)
    assert info.value.status == 161002
