"""aclnnLogSigmoidForward on the twin: an API with two outputs, out computed and buffer taken but never written
(ops-nn's op_api runs aclnnLogSigmoid's path and leaves buffer alone). The binding returns both as aten's
log_sigmoid_forward does, (output, buffer); output is compared with torch and with aclnnLogSigmoid's result,
buffer with what ops-nn does to it (nothing), since aten on CPU fills it with exp(-|self|)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from support.floats import bits

ROOT = Path(__file__).resolve().parents[2]
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]

pytestmark = [pytest.mark.cxx]


def _inputs(dtype) -> np.ndarray:
    rng = np.random.default_rng(11)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -100.0, 100.0, -20.0, 20.0]
    return np.concatenate([special, rng.uniform(-20, 20, 200)]).astype(np.float32).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_output_and_buffer_come_back_in_atens_order(dtype) -> None:
    opgen_ops = pytest.importorskip("opgen_ops")
    torch = pytest.importorskip("torch")
    x = _inputs(dtype)
    output, buffer = opgen_ops.log_sigmoid_forward(x)
    # ops-nn runs one path for both APIs: the same bits as aclnnLogSigmoid
    np.testing.assert_array_equal(bits(output), bits(opgen_ops.log_sigmoid(x)))
    theirs, their_buffer = torch.ops.aten.log_sigmoid_forward(torch.from_numpy(x.astype(np.float32)))
    want = theirs.numpy().astype(dtype).astype(np.float64)
    got = output.astype(np.float64)
    assert output.dtype == x.dtype and output.shape == x.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    tolerance = {np.float32: 1e-4, np.float16: 1e-3, ml_dtypes.bfloat16: 4e-3}[dtype]
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=tolerance, atol=tolerance)
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
    # aten on CPU returns buffer = exp(-|x|) (ops-nn never computes it) ...
    np.testing.assert_allclose(their_buffer.numpy(), np.exp(-np.abs(x.astype(np.float32))), rtol=1e-6)
    # ... the binding passes buffer as torch_npu does, empty in self's dtype, and gets it back untouched
    assert buffer.shape == (0,) and buffer.dtype == x.dtype


def test_given_output_and_buffer_are_the_ones_returned_and_buffer_keeps_its_bytes() -> None:
    opgen_ops = pytest.importorskip("opgen_ops")
    x = _inputs(np.float32).reshape(19, 11)
    holder = np.full((19, 22), 7, np.float32)
    output = holder[:, ::2]  # a non-contiguous view: ViewCopy writes only its elements
    buffer = np.full(x.shape, -3, np.float32)
    returned = opgen_ops.log_sigmoid_forward(x, output=output, buffer=buffer)
    assert returned[0] is output and returned[1] is buffer
    np.testing.assert_array_equal(bits(output), bits(opgen_ops.log_sigmoid(x)))
    assert (holder[:, 1::2] == 7).all()
    assert (buffer == -3).all()


def test_a_wrong_output_is_refused_by_its_row_and_buffer_is_never_checked() -> None:
    opgen_ops = pytest.importorskip("opgen_ops")
    x = _inputs(np.float32)
    with pytest.raises(opgen_ops.AclnnError) as caught:
        opgen_ops.log_sigmoid_forward(x, output=np.zeros(x.shape, np.float16))
    assert caught.value.status == 161002 and "the dtypes of self and out differ" in caught.value.message
    # no row names buffer: any dtype and shape passes, as in ops-nn's code
    odd = np.zeros((3, 5), np.int32)
    output, buffer = opgen_ops.log_sigmoid_forward(x, buffer=odd)
    assert buffer is odd and (odd == 0).all()
    np.testing.assert_array_equal(bits(output), bits(opgen_ops.log_sigmoid(x)))


def test_one_header_declares_both_apis_of_the_directory() -> None:
    """ops-nn declares aclnnLogSigmoid and aclnnLogSigmoidForward in aclnn_logsigmoid.h; each API keeps its
    own source with its own static checks."""
    op_api = ROOT / "generated" / "log_sigmoid" / "op_api"
    header = (op_api / "aclnn_logsigmoid.h").read_text(encoding="utf-8")
    for api in ("aclnnLogSigmoid", "aclnnLogSigmoidForward"):
        assert f"aclnnStatus {api}GetWorkspaceSize(" in header and f"aclnnStatus {api}(" in header
    assert header.count("#ifndef ") == 1
    headers = sorted(p.name for p in op_api.glob("aclnn_*.h"))
    assert headers == ["aclnn_logsigmoid.h"]
    forward = (op_api / "aclnn_log_sigmoid_forward.cpp").read_text(encoding="utf-8")
    assert '#include "aclnn_logsigmoid.h"' in forward
    assert "DFX_OUT(out, buffer)" in forward
