"""An output written per half under `split.swap_when` (tests/fixtures/half_split/glu_swap_grad.yaml, the backward of
GLU with its halves swapped by a flag, as aclnnGeGluV3Backward's activateLeft): the joined numpy reference and the
model of the API's result on each path (AI Core in FLOAT, AICPU in DOUBLE) put each half where the split tensor's
half of that name lies, so both equal torch's autograd gradient of F.glu over the halves in the flag's order. Before,
both joined the halves unswapped: the gradients of a and b traded places when the flag held."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.operator import plan_operator
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.loader import load_spec
from tests.conftest import ROOT

torch = pytest.importorskip("torch")

FIXTURE = "tests/fixtures/half_split/glu_swap_grad.yaml"


def _torch_gradient(grad: np.ndarray, x: np.ndarray, dim: int, swap: bool) -> np.ndarray:
    """d/dx of sum(grad * glu(halves of x in the flag's order)), in float64."""
    leaf = torch.from_numpy(x.astype(np.float64)).requires_grad_()
    first, second = leaf.chunk(2, dim=dim)
    ordered = torch.cat([second, first] if swap else [first, second], dim=dim)
    torch.nn.functional.glu(ordered, dim=dim).backward(torch.from_numpy(grad.astype(np.float64)))
    assert leaf.grad is not None
    return leaf.grad.numpy()


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_the_references_put_each_half_where_its_split_half_lies(dim: int, swap: bool) -> None:
    spec = load_spec(ROOT / FIXTURE).spec
    kernel = plan_operator(spec, FIXTURE).kernel
    rng = np.random.default_rng(3)
    half = (3, 5, 4)
    full = tuple(s * 2 if i == dim % 3 else s for i, s in enumerate(half))
    x, grad = rng.uniform(-4, 4, full), rng.uniform(-2, 2, half)
    want = _torch_gradient(grad, x, dim, swap)
    scalars = {"dim": dim, "swapHalves": swap}
    reference = evaluate_reference(spec, {"gradOut": grad, "self": x, **scalars}, None)
    np.testing.assert_allclose(reference, want, rtol=1e-12, atol=1e-15)
    for dtype in (DType.FLOAT, DType.DOUBLE):  # the AI Core program, the AICPU formula
        inputs = {"gradOut": grad.astype(dtype.numpy), "self": x.astype(dtype.numpy)}
        got = aclnn_output(spec, kernel, inputs, dict.fromkeys(inputs, dtype), scalars, dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype is DType.FLOAT else 1e-12, atol=1e-6)
