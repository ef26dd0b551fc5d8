"""Every error-table row, tripped through the Python binding, returns its status and logs its message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from calls import invoke
from spec_list import loaded

from opgen.plan.cases import empty_return_soc_calls, negative_calls, valid_calls
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


# An empty tensor tripping a row checked after the empty return, where that return's place differs per SoC
# (empty_return.after_checks_on): the twin fixes its SoC when it starts, so each call runs in a process of its own
# on its SoC (OPGEN_SOC); the expected status is success where the return comes first, the row's where it does not.
SOC_CASES = [(op, c.soc, c.call) for op, spec in SPECS.items() for c in empty_return_soc_calls(spec)]
_ON_SOC = """
import json, sys
import numpy as np
import opgen_ops
from calls import invoke
from spec_list import loaded
from opgen.plan.cases import empty_return_soc_calls
spec = next(s for _, s in loaded() if s.operator.file_stem == sys.argv[1])
call = next(c.call for c in empty_return_soc_calls(spec) if c.call.name == sys.argv[2])
try:
    invoke(opgen_ops, spec, call, np.random.default_rng(0))
    print(json.dumps([0, ""]))
except opgen_ops.AclnnError as error:
    print(json.dumps([error.status, error.message]))
"""


@pytest.mark.parametrize("op,soc,call", SOC_CASES, ids=[f"{c[0]}-{c[2].name}" for c in SOC_CASES])
def test_empty_return_place_per_soc(op, soc, call):
    here = Path(__file__).resolve().parent
    path = os.pathsep.join([str(here), str(here.parent), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "OPGEN_SOC": soc, "PYTHONPATH": path}
    run = subprocess.run(
        [sys.executable, "-c", _ON_SOC, op, call.name], env=env, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stderr[-3000:]
    status, message = json.loads(run.stdout.splitlines()[-1])
    assert status == call.status, (soc, status, message)
    assert call.message in message
