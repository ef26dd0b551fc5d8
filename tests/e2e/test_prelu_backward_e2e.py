"""aclnnPreluBackward on the twin through the generated binding, against torch: gradInput elementwise, gradWeight
the per-channel sum (formula.reduce) of aten's elementwise grad_weight, shaped like weight; weight holding one
value, a 0-d and a 1-d self (one channel), gradOutput broadcast to self, non-contiguous views; the API's launches
(PReluGradUpdate, then ReduceSum) and its refusals in the code's order."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.cxx]

DTYPES = {"float32": (np.float32, 1e-4), "float16": (np.float16, 1e-3), "bfloat16": (ml_dtypes.bfloat16, 4e-3)}


def _torch_gradients(grad, x, weight):
    """torch's: _prelu_kernel_backward on weight laid along dim 1, its grad_weight summed per channel."""
    torch = pytest.importorskip("torch")
    c = weight.size
    view = (1, c) + (1,) * (x.ndim - 2) if x.ndim >= 2 else (1,) * x.ndim
    t = [torch.from_numpy(np.array(a, np.float32)) for a in (grad, x, weight.reshape(view) if c > 1 else weight)]
    grad_input, grad_weight = torch.ops.aten._prelu_kernel_backward(t[0].expand(t[1].shape), t[1], t[2])
    axes = tuple(a for a in range(x.ndim) if not (c > 1 and a == 1))
    summed = grad_weight.to(torch.float64).sum(dim=axes) if axes else grad_weight.to(torch.float64)
    return grad_input.numpy().astype(np.float64), summed.numpy().reshape(weight.shape)


def _check(grad, x, weight, dtype, tol):
    opgen_ops = pytest.importorskip("opgen_ops")
    grad_input, grad_weight = opgen_ops._prelu_kernel_backward(grad, x, weight)
    assert grad_input.shape == x.shape and grad_input.dtype == x.dtype
    assert grad_weight.shape == weight.shape and grad_weight.dtype == x.dtype
    want_input, want_weight = _torch_gradients(grad, x, weight)
    np.testing.assert_allclose(grad_input.astype(np.float64), want_input.astype(dtype).astype(np.float64), tol, tol)
    with np.errstate(all="ignore"):
        terms = np.where(np.asarray(x, np.float64) > 0, 0.0, np.asarray(grad, np.float64) * np.asarray(x, np.float64))
    scale = np.abs(terms).sum(axis=tuple(a for a in range(x.ndim) if not (weight.size > 1 and a == 1)))
    error = np.abs(grad_weight.astype(np.float64) - want_weight)
    assert (error <= tol + tol * np.reshape(scale, weight.shape)).all(), (grad_weight, want_weight)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize(
    ("shape", "channels"),
    [((2, 3, 40, 40), 3), ((4, 7, 5), 7), ((4, 7, 5), 1), ((33,), 1), ((), 1), ((2, 16, 4, 4), 16), ((1, 70, 130), 70)],
)
def test_gradients_match_torch(name, shape, channels) -> None:
    dtype, tol = DTYPES[name]
    rng = np.random.default_rng(sum(shape) + channels)
    grad = rng.uniform(-4, 4, shape).astype(np.float32).astype(dtype)
    x = rng.uniform(-4, 4, shape).astype(np.float32).astype(dtype)
    weight = rng.uniform(-1, 1, channels).astype(np.float32).astype(dtype)
    _check(grad, x, weight, dtype, tol)


def test_one_weight_value_in_any_shape_and_a_broadcast_grad_output() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (2, 3, 5)).astype(np.float32)
    grad = rng.uniform(-4, 4, (3, 1)).astype(np.float32)  # broadcasts to self's shape
    _check(grad, x, np.array([[[0.25]]], np.float32), np.float32, 1e-4)
    _check(np.broadcast_to(grad, x.shape), x, np.array([0.25, -0.5, 2.0], np.float32), np.float32, 1e-4)


def test_the_binding_takes_weight_in_any_shape_as_torch_npu_does() -> None:
    """It passes weight flattened (gradWeight [C], as the API's row wants) and returns gradWeight in weight's shape."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, (2, 3, 5)).astype(np.float32)
    grad = rng.uniform(-4, 4, (2, 3, 5)).astype(np.float32)
    _check(grad, x, np.array([[0.25, -0.5, 2.0]], np.float32), np.float32, 1e-4)
    _check(grad, x, np.array([[[0.25], [-0.5], [2.0]]], np.float32), np.float32, 1e-4)


def test_non_contiguous_views() -> None:
    rng = np.random.default_rng(4)
    x = rng.uniform(-4, 4, (6, 3, 8)).astype(np.float32)[::2]
    grad = rng.uniform(-4, 4, (3, 6, 8)).astype(np.float32).transpose(1, 0, 2)[::2]
    weight = rng.uniform(-1, 1, 6).astype(np.float32)[::2]
    _check(grad, x, weight, np.float32, 1e-4)


def test_special_values_reach_the_sums() -> None:
    x = np.array([[-1.0, 2.0], [-np.inf, -3.0], [np.nan, 1.0]], np.float32).T.copy()  # (2, 3): channels of 2
    grad = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]], np.float32).T.copy()
    opgen_ops = pytest.importorskip("opgen_ops")
    _, grad_weight = opgen_ops._prelu_kernel_backward(grad, x, np.array([0.5, 0.5, 0.5], np.float32))
    # channel 0: -1 * 1 + 0 (x > 0); channel 1: -inf * 1 + (-3 * 0); channel 2: nan
    assert grad_weight[0] == -1.0 and grad_weight[1] == -np.inf and np.isnan(grad_weight[2])


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        # weight's count refused before gradWeight's shape, which is refused before the broadcast
        (lambda: ((2, 3), (2, 3), (2,), (2,)), "the number of weight elements must be 1 or self channel size"),
        (lambda: ((2, 3), (2, 3), (3,), (1,)), "the shape of gradWeight must be [C] for C weight elements"),
        # the code's rule: [C] for C != 1 values in any shape of weight, not weight's own shape
        (lambda: ((2, 3), (2, 3), (1, 3), (1, 3)), "the shape of gradWeight must be [C] for C weight elements"),
        (lambda: ((2, 3), (2, 3), (1, 1), (1,)), "the shape of gradWeight must be [C] for C weight elements"),
        (lambda: ((4, 3), (2, 3), (3,), (3,)), "gradOutput and self cannot broadcast"),
        (lambda: ((2, 3), (), (2,), (2,)), "the number of weight elements must be 1 or self channel size"),
    ],
)
def test_refusals_in_the_codes_order(args, fragment) -> None:
    opgen_ops = pytest.importorskip("opgen_ops")
    grad_shape, self_shape, weight_shape, grad_weight_shape = args()
    grad, x = np.ones(grad_shape, np.float32), np.ones(self_shape, np.float32)
    weight = np.ones(weight_shape, np.float32)
    # the binding allocates gradWeight like weight: call the API by its own name to pass a wrong one
    call = opgen_ops._runtime.call
    tensor = opgen_ops._runtime.Tensor
    with pytest.raises(opgen_ops.AclnnError) as info:
        call(
            "aclnnPreluBackward",
            [
                tensor(grad),
                tensor(x),
                tensor(weight),
                tensor(np.zeros(self_shape, np.float32), output=True),
                tensor(np.zeros(grad_weight_shape, np.float32), output=True),
            ],
        )
    assert info.value.status == 161002 and fragment in info.value.message


def test_a_weight_of_c_values_in_another_shape_takes_a_gradweight_of_shape_c() -> None:
    """The code's rule for gradWeight: [C] when weight holds C != 1 values, whatever weight's shape."""
    opgen_ops = pytest.importorskip("opgen_ops")
    rng = np.random.default_rng(6)
    grad, x = rng.uniform(-4, 4, (2, 3, 4)).astype(np.float32), rng.uniform(-4, 4, (2, 3, 4)).astype(np.float32)
    weight = np.array([[0.25, -0.5, 2.0]], np.float32)
    tensor = opgen_ops._runtime.Tensor
    grad_input, grad_weight = np.zeros_like(x), np.zeros(3, np.float32)
    args = [tensor(grad), tensor(x), tensor(weight), tensor(grad_input, output=True), tensor(grad_weight, output=True)]
    opgen_ops._runtime.call("aclnnPreluBackward", args)
    _, want = _torch_gradients(grad, x, weight.reshape(-1))
    np.testing.assert_allclose(grad_weight, want, rtol=1e-5, atol=1e-5)


def test_the_api_sums_the_kernels_update_with_reduce_sum() -> None:
    source = (ROOT / "generated" / "p_relu_grad_update" / "op_api" / "aclnn_prelu_backward.cpp").read_text("utf-8")
    assert '#include "level0/reduce_sum_op.h"' in source
    assert "auto l0Results = l0op::PReluGradUpdate(gradOutputCasted, selfCasted, weightCasted," in source
    assert "l0op::ReduceSumOp(gradWeightResult, gradWeightAxesArray, false, uniqueExecutor.get());" in source
    assert "l0op::Reshape(gradWeightResult, gradWeight->GetViewShape(), uniqueExecutor.get());" in source
    l0 = (ROOT / "generated" / "p_relu_grad_update" / "op_api" / "p_relu_grad_update.h").read_text("utf-8")
    assert "const std::tuple<aclTensor*, aclTensor*> PReluGradUpdate(const aclTensor* gradOutput," in l0
    definition = (ROOT / "generated" / "p_relu_grad_update" / "op_host" / "p_relu_grad_update_def.cpp").read_text()
    for name in ('Input("grads")', 'Input("features")', 'Input("weights")', 'Output("dx")', 'Output("update")'):
        assert name in definition


def test_the_torch_npu_adapter_flattens_weight_as_op_plugin_does() -> None:
    adapter = ROOT / "generated" / "torch_npu" / "opapi" / "PreluKernelBackwardKernelNpuOpApi.cpp"
    text = " ".join(adapter.read_text(encoding="utf-8").split())
    assert "at::Tensor weight_flat = weight.reshape({-1});" in text
    assert "npu_preparation::apply_tensor_without_format(weight_flat.sizes()," in text
    assert "EXEC_NPU_CMD(aclnnPreluBackward, grad_output, self, weight_flat, grad_input, grad_weight);" in text
    assert "return std::make_tuple(grad_input, grad_weight.reshape(weight.sizes()));" in text
