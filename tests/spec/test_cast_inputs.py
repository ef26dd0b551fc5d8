"""`dtype.cast_inputs` on an output (aclnnLogSoftmax's out): the API casts the inputs to that output's dtype before
the kernel. `opgen check` takes it on one output tensor whose dtypes each have a kernel, and refuses it elsewhere at
its line; the aclnn path model and the generated op_api compute in the output's dtype."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from spec_list import specs
from support.text import copy_specs, edit_once, line_of

from opgen.cli import main
from opgen.plan.aclnn_path import aclnn_output, compute_dtype
from opgen.plan.kernel import kernel_plan
from opgen.spec.dtypes import DType
from tests.conftest import ROOT

SPECS = ROOT / "specs"
CAST = "dtype: {castable_from: [self], cast_inputs: true}"


def test_log_softmax_computes_in_outs_dtype_and_softmax_in_selfs():
    log_softmax, softmax = specs()["log_softmax_v2"], specs()["softmax_v2"]
    assert log_softmax.inputs_cast_to is not None and log_softmax.inputs_cast_to.name == "out"
    assert softmax.inputs_cast_to is None
    dtypes = {"self": DType.FLOAT16}
    assert compute_dtype(log_softmax, dtypes, DType.FLOAT) is DType.FLOAT
    assert compute_dtype(softmax, dtypes, DType.FLOAT) is DType.FLOAT16


def test_the_model_of_a_float16_self_with_a_float_out_is_the_float_kernels():
    spec = specs()["log_softmax_v2"]
    plan = kernel_plan(spec)
    x = np.random.default_rng(3).uniform(-10, 10, (4, 37)).astype(np.float16)
    scalars = {"dim": -1}
    mixed = aclnn_output(spec, plan, {"self": x}, {"self": DType.FLOAT16}, scalars, DType.FLOAT)
    floats = aclnn_output(spec, plan, {"self": x.astype(np.float32)}, {"self": DType.FLOAT}, scalars, DType.FLOAT)
    np.testing.assert_array_equal(mixed, floats)


def test_the_op_api_casts_self_to_outs_dtype():
    source = (ROOT / "generated/log_softmax_v2/op_api/aclnn_log_softmax.cpp").read_text(encoding="utf-8")
    assert "const op::DataType computeDtype = out->GetDataType();" in source
    softmax = (ROOT / "generated/softmax_v2/op_api/aclnn_softmax.cpp").read_text(encoding="utf-8")
    assert "const op::DataType computeDtype = self->GetDataType();" in softmax


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "    opdef_name: logits\n",
            "    opdef_name: logits\n    dtype: {cast_inputs: true}\n",
            "'cast_inputs' applies to an output tensor only",
        ),
        (
            "    dtypes: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]\n    formats: [ND]\n    rank: [0, 8]\n    "
            "non_contiguous: true\n    empty_tensor: true\n",
            "    dtypes: [FLOAT, FLOAT16, DOUBLE]\n    formats: [ND]\n    rank: [0, 8]\n    "
            "non_contiguous: true\n    empty_tensor: true\n",
            "the kernel would compute in BFLOAT16, which the first input does not take: no kernel",
        ),
    ],
)
def test_check_refuses_cast_inputs_where_it_cannot_hold(tmp_path: Path, capsys, old, new, message) -> None:
    spec = copy_specs(SPECS, tmp_path, "log_softmax_v2")
    edit_once(spec, old, new)
    assert main(["check", str(spec), "-j", "1"]) == 1
    err = capsys.readouterr().err
    line = line_of(spec.read_text(encoding="utf-8"), "cast_inputs: true" if "output" in message else CAST)
    assert re.search(
        rf"log_softmax_v2\.yaml:{line}:\d+: params\[\d\]\.dtype\.cast_inputs: .*{re.escape(message)}", err
    ), err
