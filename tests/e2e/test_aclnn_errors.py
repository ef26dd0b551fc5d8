"""Every error-table row, tripped through the Python binding, returns its status and logs its message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from calls import invoke

from opgen.plan.cases import negative_calls, valid_calls
from opgen.spec.loader import load_spec

opgen_ops = pytest.importorskip("opgen_ops")

ROOT = Path(__file__).resolve().parents[2]
OPS = ["leaky_relu_grad", "elu_grad_v2", "leaky_relu"]
CASES = []
for op in OPS:
    spec = load_spec(ROOT / "specs" / f"{op}.yaml").spec
    for call in negative_calls(spec):
        if not call.null_outputs:  # workspaceSize/executor nulls are C++-only (generated op_api tests)
            CASES.append((op, spec, call))


@pytest.mark.parametrize("op,spec,call", CASES, ids=[f"{c[0]}-{c[2].name}" for c in CASES])
def test_error_row_raises_its_status(op, spec, call):
    with pytest.raises(opgen_ops.AclnnError) as info:
        invoke(opgen_ops, spec, call, np.random.default_rng(0))
    assert info.value.status == call.status, info.value
    assert call.message in info.value.message


@pytest.mark.parametrize("op", OPS)
def test_valid_calls_succeed_for_every_dtype(op):
    spec = load_spec(ROOT / "specs" / f"{op}.yaml").spec
    for call in valid_calls(spec):
        out = invoke(opgen_ops, spec, call, np.random.default_rng(1))
        assert out.shape == call.args[spec.outputs[0].name].shape


def test_inplace_variant_writes_into_its_input_view():
    base = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    view = base[:, ::2]  # non-contiguous
    expected_view = np.where(view > 0, view, view * np.float32(0.25))
    untouched = base[:, 1::2].copy()
    returned = opgen_ops.leaky_relu_(view, 0.25)
    assert returned is view
    np.testing.assert_array_equal(view, expected_view)
    np.testing.assert_array_equal(base[:, 1::2], untouched)
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.leaky_relu_(view.astype(np.int32), 0.25)
    assert info.value.status == 161002
