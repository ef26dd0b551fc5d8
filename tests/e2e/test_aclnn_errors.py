"""Every error-table row, tripped through the Python binding, returns its status and logs its message."""

from __future__ import annotations

import numpy as np
import pytest
from calls import invoke
from spec_list import loaded

from opgen.plan.cases import negative_calls, valid_calls
from opgen.plan.operator import binding_names
from opgen.spec.model import Direction, ParamKind

opgen_ops = pytest.importorskip("opgen_ops")

# every operator of every spec file (a directory's later ones too), by file stem
SPECS = {spec.operator.file_stem: spec for _, spec in loaded()}
CASES = []
for op, spec in SPECS.items():
    for call in negative_calls(spec):
        if not call.null_outputs:  # workspaceSize/executor nulls are C++-only (generated op_api tests)
            CASES.append((op, spec, call))


@pytest.mark.parametrize("op,spec,call", CASES, ids=[f"{c[0]}-{c[2].name}" for c in CASES])
def test_error_row_raises_its_status(op, spec, call):
    with pytest.raises(opgen_ops.AclnnError) as info:
        invoke(opgen_ops, spec, call, np.random.default_rng(0))
    assert info.value.status == call.status, info.value
    assert call.message in info.value.message


@pytest.mark.parametrize("op", list(SPECS))
def test_valid_calls_succeed_for_every_dtype(op):
    spec = SPECS[op]
    for call in valid_calls(spec):
        out = invoke(opgen_ops, spec, call, np.random.default_rng(1))
        assert out.shape == call.args[spec.outputs[0].name].shape


INPLACE = [op for op, spec in SPECS.items() if spec.api.inplace is not None]


@pytest.mark.parametrize("op", INPLACE)
def test_inplace_variant_writes_into_its_input_view(op):
    spec = SPECS[op]
    assert spec.api.inplace is not None
    main, inplace = (getattr(opgen_ops, name) for name in binding_names(spec))
    replaced = spec.api.inplace.replaces
    rng = np.random.default_rng(3)
    base = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    view = base[:, ::2]  # non-contiguous
    untouched = base[:, 1::2].copy()

    def args(inplace_value):
        values = []
        for param in spec.params:
            if param.direction is Direction.OUTPUT or param.name in replaced[1:]:
                continue
            if param.name == replaced[0]:
                values.append(inplace_value)
            elif param.kind is ParamKind.TENSOR:
                values.append(rng.uniform(-3, 3, view.shape).astype(np.float32))
            elif param.kind is ParamKind.BOOL:
                values.append(bool(spec.example.scalars[param.name]))
            else:
                values.append(float(spec.example.scalars[param.name]))
        return values

    call = args(view)
    expected = main(*[view.copy() if a is view else a for a in call])
    returned = inplace(*call)
    assert returned is view
    np.testing.assert_array_equal(view, expected)
    np.testing.assert_array_equal(base[:, 1::2], untouched)
    # a dtype the in-place tensor does not take (Relu takes INT32 since it has integer kernels)
    accepted = {d.numpy for d in spec.param(replaced[0]).dtypes}
    refused = next(t for t in (np.int32, np.int16, np.complex64, np.uint16) if np.dtype(t) not in accepted)
    with pytest.raises(opgen_ops.AclnnError) as info:
        inplace(*args(view.astype(refused)))
    dtype_row = next(c for c in negative_calls(spec) if spec.errors[c.row].check.kind == "dtype_supported")
    assert info.value.status == dtype_row.status
