"""Cases of ops-nn's own op_api unit tests where the generated APIs answered differently (issue 17, item 3),
called through the C API on the twin, outputs passed as the unit tests pass them (`_runtime.call`, not a binding
that would allocate them itself):

- aclnnFastGelu and aclnnGelu refuse an out whose dtype differs from self's (161002), where they used to cast;
- aclnnGeluV2 refuses a rank-9 x (161002), where it used to compute;
- aclnnHardshrinkBackward returns success for an empty gradOutput before its broadcast row (ops-nn's code returns
  on an empty input first), where it used to refuse the shapes;
- aclnnPreluBackward with empty inputs writes zeros (the sum of nothing) into gradWeight, where it left it as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

opgen_ops = pytest.importorskip("opgen_ops")


def _call(api: str, inputs: list, outputs: list[np.ndarray]) -> None:
    rt = opgen_ops._runtime
    args = [a if isinstance(a, rt.Scalar) else rt.Tensor(a) for a in inputs]
    rt.call(api, args + [rt.Tensor(o, output=True) for o in outputs])


def _status(api: str, inputs: list, outputs: list[np.ndarray]) -> tuple[int, str]:
    with pytest.raises(opgen_ops.AclnnError) as info:
        _call(api, inputs, outputs)
    return info.value.status, info.value.message


@pytest.mark.parametrize("api", ["aclnnFastGelu", "aclnnGelu"])
def test_an_out_of_another_dtype_is_refused(api) -> None:
    status, message = _status(api, [np.ones((2, 3), np.float32)], [np.zeros((2, 3), np.float16)])
    assert status == 161002 and "dtype" in message
    out = np.zeros((2, 3), np.float32)
    _call(api, [np.ones((2, 3), np.float32)], [out])  # the same dtype still runs
    assert (out > 0).all()


def test_gelu_v2_refuses_rank_nine() -> None:
    x = np.ones((1,) * 9, np.float32)
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.gelu_v2(x, 0, out=np.zeros_like(x))
    assert info.value.status == 161002 and "greater than 8" in info.value.message
    assert opgen_ops.gelu_v2(np.ones((1,) * 8, np.float32), 0).shape == (1,) * 8


def test_hardshrink_backward_returns_on_an_empty_input_before_the_broadcast_row() -> None:
    """ops-nn's unit test case_empty_tensor: gradOutput [0], self [1, 1, 1, 4]: success, nothing written."""
    grad_input = np.full((1, 1, 1, 4), 7.0, np.float16)
    grad, x = np.zeros((0,), np.float32), np.ones((1, 1, 1, 4), np.float16)
    _call("aclnnHardshrinkBackward", [grad, x, opgen_ops._runtime.Scalar(8.0, real=True)], [grad_input])
    assert (grad_input == 7.0).all()
    # shapes that do not broadcast are still refused when no input is empty
    status, message = _status(
        "aclnnHardshrinkBackward",
        [np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 1, 3), np.float16), opgen_ops._runtime.Scalar(8.0)],
        [np.zeros((1, 1, 1, 3), np.float16)],
    )
    assert status == 161002 and "broadcast" in message


@pytest.mark.parametrize(
    ("shape", "weight"),
    [((0,), (1,)), ((2, 3, 0), (3,)), ((0, 3), (3,)), ((0, 2, 2), (1, 1))],
)
def test_prelu_backward_sums_nothing_to_zero(shape, weight) -> None:
    grad_weight = np.full(weight, np.nan, np.float32)
    grad_input = np.zeros(shape, np.float32)
    ones = np.ones(shape, np.float32)
    weight_values = np.full(weight, 0.25, np.float32)
    _call("aclnnPreluBackward", [ones, ones, weight_values], [grad_input, grad_weight])
    np.testing.assert_array_equal(grad_weight, np.zeros(weight, np.float32))
    # the binding (torch's _prelu_kernel_backward) gives the same
    _, summed = opgen_ops._prelu_kernel_backward(ones, ones, weight_values)
    np.testing.assert_array_equal(summed, np.zeros(weight, np.float32))
