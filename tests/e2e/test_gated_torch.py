"""Gated activations without an aten op, through the binding on the twin, against their torch composition: GeGlu
is torch.nn.functional.gelu of the gate times the other half (torch_npu's npu_geglu), in FLOAT, NaN and infinities
included; its backward (npu_geglu_grad) is torch's autograd gradient of that composition, given the forward's gelu.
One place differs by design: torch's tanh form 0.5 * b * (1 + tanh(z)) rounds to 0 in FLOAT for a gate below about
-5.3 where ops-nn's (and this kernel's) b / (1 + exp(-2z)) keeps the tiny value, so an infinite other half gives NaN in
torch and an infinity here; those positions are held to the float64 reference's sign instead."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.half_split import full_shape, split_half
from opgen.spec.loader import load_spec_documents
from tests.conftest import ROOT

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")
F = torch.nn.functional

APPROXIMATE = {0: "none", 1: "tanh"}


def _self(half: tuple[int, ...], dim: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    values = rng.uniform(-6, 6, full_shape(half, dim)).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0, 1.0], np.float32)
    values.flat[: special.size * 3] = np.tile(special, 3)
    np.random.default_rng(8).shuffle(values.flat[: special.size * 3 * 4])
    return values


def geglu_torch(values: np.ndarray, dim: int, approximate: int, activate_left: bool):
    """torch's (out, outGelu), and where its out is NaN only because its gelu rounded to 0 (see above)."""
    first, second = (torch.from_numpy(split_half(values, dim, i).copy()) for i in (0, 1))
    gate, linear = (first, second) if activate_left else (second, first)
    gelu = F.gelu(gate, approximate=APPROXIMATE[approximate])
    # torch's vectorised FLOAT erf gelu gives NaN at +inf (specs/gelu_v2.yaml says so); gelu(+inf) is +inf
    gelu = torch.where(torch.isposinf(gate), gate, gelu)
    underflow = (gelu == 0) & torch.isinf(linear)
    return (linear * gelu).numpy(), gelu.numpy(), underflow.numpy()


@pytest.mark.parametrize("approximate", [0, 1])
@pytest.mark.parametrize("half,dim", [((4, 40), -1), ((3, 5, 7), 1), ((1001, 1), -1), ((6, 9), 0)])
def test_ge_glu_is_torch_gelu_of_the_second_half_times_the_first(half, dim, approximate):
    values = _self(half, dim)
    out, out_gelu = opgen_ops.ge_glu(values, dim, approximate)
    want_out, want_gelu, underflow = geglu_torch(values, dim, approximate, False)
    np.testing.assert_allclose(out_gelu, want_gelu, rtol=1e-5, atol=1e-6)
    underflow &= out_gelu != 0  # torch's gelu rounded to 0, this one kept the tiny value
    np.testing.assert_allclose(out[~underflow], want_out[~underflow], rtol=1e-5, atol=1e-5)
    linear = split_half(values, dim, 0)[underflow]
    # the tiny negative gelu of a very negative gate times an infinite half: the opposite infinity
    np.testing.assert_array_equal(out[underflow], -linear)


@pytest.mark.parametrize("dim,message", [(-1, "shape of out"), (0, "shape of out"), (1, "dim is out of the range")])
def test_ge_glu_counts_a_0d_self_as_1d_then_refuses_it(dim, message):
    # ops-nn's op_api: dim within [-1, 0] for a 0-d self, whose half then has no valid size along dim
    with pytest.raises(opgen_ops.AclnnError) as info:
        opgen_ops.ge_glu(
            np.array(1.0, np.float32), dim, 1, out=np.zeros(1, np.float32), out_gelu=np.zeros(1, np.float32)
        )
    assert info.value.status == 161002 and message in info.value.message


@pytest.mark.parametrize("activate_left", [False, True])
@pytest.mark.parametrize("approximate", [0, 1])
@pytest.mark.parametrize("half,dim", [((4, 40), -1), ((3, 5, 7), 1), ((1001, 1), -1)])
def test_npu_geglu_gates_the_half_activate_left_names(half, dim, approximate, activate_left):
    values = _self(half, dim)
    out, out_gelu = opgen_ops.npu_geglu(values, dim, approximate, activate_left)
    want_out, want_gelu, underflow = geglu_torch(values, dim, approximate, activate_left)
    np.testing.assert_allclose(out_gelu, want_gelu, rtol=1e-5, atol=1e-6)
    underflow &= out_gelu != 0
    np.testing.assert_allclose(out[~underflow], want_out[~underflow], rtol=1e-5, atol=1e-5)
    linear = split_half(values, dim, 1 if activate_left else 0)[underflow]
    np.testing.assert_array_equal(out[underflow], -linear)


def geglu_grad_torch(values: np.ndarray, grad: np.ndarray, dim: int, approximate: int, activate_left: bool):
    """torch's autograd gradient of F.gelu(gate) * linear with respect to self (float64), and the forward's gelu
    (FLOAT) the backward takes: ops-nn's kernel tests' golden (x, gate = chunk; swapped for activate_left)."""
    leaf = torch.from_numpy(values.astype(np.float64)).requires_grad_()
    first, second = leaf.chunk(2, dim=dim)
    gate, linear = (first, second) if activate_left else (second, first)
    gelu = F.gelu(gate, approximate=APPROXIMATE[approximate])
    (linear * gelu).backward(torch.from_numpy(grad.astype(np.float64)))
    assert leaf.grad is not None
    return leaf.grad.numpy(), gelu.detach().numpy().astype(np.float32)


def _finite_self(half: tuple[int, ...], dim: int) -> np.ndarray:
    return np.random.default_rng(9).uniform(-6, 6, full_shape(half, dim)).astype(np.float32)


@pytest.mark.parametrize("activate_left", [False, True])
@pytest.mark.parametrize("approximate", [0, 1])
@pytest.mark.parametrize("half,dim", [((4, 40), -1), ((3, 5, 7), 1), ((1001, 1), -1), ((6, 9), 0)])
def test_npu_geglu_grad_is_torch_autograd_of_gelu_of_the_gate_times_the_other_half(
    half, dim, approximate, activate_left
):
    values = _finite_self(half, dim)
    grad = np.random.default_rng(10).uniform(-2, 2, half).astype(np.float32)
    want, gelu = geglu_grad_torch(values, grad, dim, approximate, activate_left)
    got = opgen_ops.npu_geglu_grad(grad, values, gelu, dim, approximate, activate_left)
    assert got.shape == values.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if not activate_left:  # aclnnGeGluBackward runs the same kernel with activate_left false
        np.testing.assert_array_equal(opgen_ops.ge_glu_backward(grad, values, gelu, dim, approximate), got)


@pytest.mark.parametrize("approximate", [0, 1])
def test_npu_geglu_grad_takes_npu_geglus_gelu_and_keeps_special_values_as_the_float64_reference(approximate):
    """NaN, ±inf and ±0 in self and the gradient: the forward's own outGelu handed to the backward, compared with
    torch's autograd where torch's result is finite and with the spec's float64 reference everywhere."""
    half, dim = (5, 40), -1
    values = _self(half, dim)
    grad = np.random.default_rng(11).uniform(-2, 2, half).astype(np.float32)
    grad.flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    for activate_left in (False, True):
        _, gelu = opgen_ops.npu_geglu(values, dim, approximate, activate_left)
        got = opgen_ops.npu_geglu_grad(grad, values, gelu, dim, approximate, activate_left)
        want, _ = geglu_grad_torch(values, grad, dim, approximate, activate_left)
        finite = np.isfinite(want) & np.isfinite(values)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-5)
        # where torch is not finite, the kernel keeps what the float64 formula gives (NaN and infinities included)
        spec = load_spec_documents(ROOT / "specs" / "ge_glu_grad_v2.yaml")[0].spec
        scalars = {"dim": dim, "approximate": approximate, "activateLeft": activate_left}
        reference = evaluate_reference(
            spec, {"gradOutput": grad, "self": values, "gelu": gelu, **scalars}, np.dtype(np.float32)
        )
        np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-5)
