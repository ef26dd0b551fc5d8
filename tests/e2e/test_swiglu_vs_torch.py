"""aclnnSwiGlu and aclnnSwiGluGrad have no aten op: torch_npu's npu_swiglu / npu_swiglu_backward are compared here
with their torch composition, F.silu(a) * b over x's halves along dim, and its autograd gradient (the reference is
this code, not the spec's text). float32 through the generated bindings on the twin, within the spec's FLOAT standard,
for a last, a leading and a negative dim, half sizes not a multiple of 32 bytes and odd row counts."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import specs

from opgen.spec.dtypes import DType

torch = pytest.importorskip("torch")
opgen_ops = pytest.importorskip("opgen_ops")

CASES = [((7, 13), -1), ((3, 5, 8), 0), ((4, 6, 10), -2), ((1001, 1), 1)]  # (a half's shape, dim)


def _swiglu(x, dim: int):
    a, b = torch.chunk(x, 2, dim=dim)
    return torch.nn.functional.silu(a) * b


def _x(half: tuple[int, ...], dim: int, special: bool) -> np.ndarray:
    shape = list(half)
    shape[dim] *= 2
    x = np.random.default_rng(sum(half) - dim).uniform(-8, 8, shape).astype(np.float32)
    if special:  # NaN, infinities and zeros met with every other value along the flat order
        x.reshape(-1)[: 7 * 4] = np.tile([0.0, -0.0, np.inf, -np.inf, np.nan, 90.0, -90.0], 4)
    return x


def _tolerance(op: str) -> tuple[float, float]:
    standard = specs()[op].golden.tolerance[DType.FLOAT]
    return standard.rtol, standard.atol


@pytest.mark.parametrize("op", ["swi_glu"])
@pytest.mark.parametrize("half,dim", CASES)
def test_npu_swiglu_is_silu_of_the_first_half_times_the_second(op, half, dim):
    x = _x(half, dim, special=True)
    got = opgen_ops.npu_swiglu(x, dim)
    want = _swiglu(torch.from_numpy(x), dim).numpy()
    rtol, atol = _tolerance(op)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("op", ["swi_glu_grad"])
@pytest.mark.parametrize("half,dim", CASES)
def test_npu_swiglu_backward_is_the_autograd_gradient_of_the_composition(op, half, dim):
    x = _x(half, dim, special=False)
    grad = np.random.default_rng(len(half)).uniform(-3, 3, half).astype(np.float32)
    got = opgen_ops.npu_swiglu_backward(grad, x, dim)
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    _swiglu(xt, dim).backward(torch.from_numpy(grad.astype(np.float64)))
    want = xt.grad.numpy().astype(np.float32)
    rtol, atol = _tolerance(op)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
