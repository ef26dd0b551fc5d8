"""The generated golden tests (generated/<op>/tests/test_golden_<op>.py) run one pytest test per dtype looping
over its cases (shapes x parameter values), so their count does not multiply with the cases; a failure lists
every failing case by dtype, shape and values."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from spec_list import GENERATED, operators

pytest.importorskip("opgen_ops")


def _golden_module(op: str):
    path = GENERATED / op / "tests" / f"test_golden_{op}.py"
    loader = importlib.util.spec_from_file_location(f"golden_of_{op}", path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


@pytest.mark.parametrize("op", operators())
def test_a_wrong_reference_fails_naming_each_failing_case(op, monkeypatch):
    golden = _golden_module(op)
    dtype = "FLOAT"
    assert dtype in golden.TOLERANCE
    wrong_shape = golden.SHAPES[-1]
    right = golden.reference

    def reference(*args, **kwargs):  # keyword-only parameters (e.g. approximate) come by name
        want = np.asarray(right(*args, **kwargs))
        return want + 1.0 if want.shape == wrong_shape else want

    monkeypatch.setattr(golden, "reference", reference)
    with pytest.raises(AssertionError) as info:
        golden.test_golden(dtype)
    message = str(info.value)
    lines = [line for line in message.splitlines() if line.startswith(f"{dtype} shape=")]
    # the wrong shape's cases fail (those the error table rejects still pass), the others do not
    assert lines and all(f"shape={wrong_shape}" in line for line in lines), message
    assert len(lines) <= len(golden.cases(dtype)) // len(golden.SHAPES)
    assert "vs the spec reference" in message
