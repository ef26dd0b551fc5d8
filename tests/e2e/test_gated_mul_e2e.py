"""The last-dim gated products (aclnnGeluMul, aclnnFatreluMul: no aten op, no op-plugin entry for FatreluMul)
through their bindings on the twin against torch compositions of the halves, as the reference notes give them:
F.gelu(x1, approximate=...) * x2 and F.threshold(x1, threshold, 0) * x2 (x1, x2 the halves of the last dim), with
NaN, +-inf, +-0, each dtype, and the refusals of the rows opgen adds past the doc's two."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import specs

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")
F = torch.nn.functional

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 20.0, -20.0, 1e-3, -1e-3, 0.5, -0.5]
DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16}


def _input(half: tuple[int, ...], dtype) -> np.ndarray:
    full = (*half[:-1], half[-1] * 2)
    values = np.random.default_rng(sum(full)).uniform(-6, 6, full)
    flat = values.reshape(-1)
    flat[: len(SPECIALS) * 7 : 7] = SPECIALS[: len(flat[: len(SPECIALS) * 7 : 7])]  # specials in both halves
    return values.astype(dtype)


def _halves(x: np.ndarray):
    return torch.from_numpy(x.astype(np.float64)).chunk(2, dim=-1)


def _status(call) -> int:
    try:
        call()
    except opgen_ops.AclnnError as error:
        return error.status
    return 0


@pytest.mark.skipif("gelu_mul" not in specs(), reason="no gelu_mul spec")
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("approximate", [None, "none", "tanh"])
@pytest.mark.parametrize("half", [(7, 1), (3, 13), (2, 3, 40), (2, 20000)])
def test_gelu_mul_is_torch_gelu_of_the_first_half_times_the_second(dtype, approximate, half):
    x = _input(half, DTYPES[dtype])
    kwargs = {} if approximate is None else {"approximate": approximate}
    got = opgen_ops.npu_gelu_mul(x, **kwargs)
    # torch in float32, as the kernel computes (a very negative x1 underflows gelu to -0 there, and -0 * inf is NaN)
    x1, x2 = (h.float() for h in _halves(x))
    want = (F.gelu(x1, approximate=approximate or "none") * x2).double()
    # but x1 = +inf: torch's vectorised float32 erf gelu gives NaN, the kernel +inf (as torch in float64)
    exact = F.gelu(x1.double(), approximate=approximate or "none") * x2.double()
    want = torch.where(x1 == np.inf, exact, want).numpy()
    assert got.dtype == x.dtype and got.shape == want.shape
    tolerance = {"FLOAT": 1e-5, "FLOAT16": 1e-3}[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tolerance, atol=tolerance, equal_nan=True)


@pytest.mark.skipif("gelu_mul" not in specs(), reason="no gelu_mul spec")
def test_gelu_mul_refuses_what_its_tiling_would():
    # the OpDef-generated API checks dtypes itself (161002) and reports what its tiling refuses as 561002
    x = np.ones((4, 6), np.float32)
    assert _status(lambda: opgen_ops.npu_gelu_mul(x, approximate="fast")) == 561002
    assert _status(lambda: opgen_ops.npu_gelu_mul(np.ones((4, 5), np.float32))) == 561002  # odd last dim
    assert _status(lambda: opgen_ops.npu_gelu_mul(np.ones((6,), np.float32))) == 561002  # rank 1
    assert _status(lambda: opgen_ops.npu_gelu_mul(x, out=np.zeros((4, 6), np.float32))) == 561002  # out full-size
    assert _status(lambda: opgen_ops.npu_gelu_mul(x, out=np.zeros((4, 3), np.float16))) == 161002  # out's dtype
    assert _status(lambda: opgen_ops.npu_gelu_mul(None)) == 161001
    assert opgen_ops.npu_gelu_mul(np.ones((0, 6), np.float32)).shape == (0, 3)
    # an empty input returns before anything is launched: the tiling's rows are not checked
    assert opgen_ops.npu_gelu_mul(np.ones((0, 5), np.float32), out=np.zeros((0, 7), np.float32)).shape == (0, 7)


@pytest.mark.skipif("fatrelu_mul" not in specs(), reason="no fatrelu_mul spec")
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("threshold", [0.5, -1.0, 0.0, -0.5])
@pytest.mark.parametrize("half", [(7, 1), (3, 13), (2, 3, 40), (2, 20000)])
def test_fatrelu_mul_is_torch_threshold_of_the_first_half_times_the_second(dtype, threshold, half):
    x = _input(half, DTYPES[dtype])
    # x1 == threshold somewhere: the kernel's GT zeroes it (the doc's >= would keep it)
    x.reshape(-1)[1] = threshold
    held = np.full((1, 1), threshold, x.dtype)
    got = opgen_ops.fatrelu_mul(x, held)
    x1, x2 = _halves(x)
    want = F.threshold(x1, threshold, 0.0) * x2
    # F.threshold keeps a NaN x1 (NaN * x2); x1 > threshold is false for NaN: 0 * x2 (declared in the spec)
    want = torch.where(torch.isnan(x1), 0.0 * x2, want).numpy()
    assert got.dtype == x.dtype and got.shape == want.shape
    expected = want.astype(x.dtype).astype(np.float64)  # one product, rounded once
    np.testing.assert_array_equal(got.astype(np.float64), expected)
    if half[-1] > 1:
        assert got.reshape(-1)[1] == 0 or np.isnan(got.reshape(-1)[1])


@pytest.mark.skipif("fatrelu_mul" not in specs(), reason="no fatrelu_mul spec")
def test_fatrelu_mul_refuses_what_its_tiling_would():
    x = np.ones((4, 6), np.float32)
    th = np.full((1,), 0.5, np.float32)
    assert _status(lambda: opgen_ops.fatrelu_mul(x, np.ones((2,), np.float32))) == 561002  # two elements
    assert _status(lambda: opgen_ops.fatrelu_mul(x, np.full((1,), 0.5, np.float16))) == 161002  # its dtype
    assert _status(lambda: opgen_ops.fatrelu_mul(np.ones((4, 5), np.float32), th)) == 561002  # odd last dim
    assert _status(lambda: opgen_ops.fatrelu_mul(np.ones((6,), np.float32), th)) == 561002  # rank 1
    assert _status(lambda: opgen_ops.fatrelu_mul(x, None)) == 161001
    assert opgen_ops.fatrelu_mul(x, np.full((), 0.5, np.float32)).shape == (4, 3)


@pytest.mark.skipif("situ_glu" not in specs(), reason="no situ_glu spec")
@pytest.mark.parametrize("activate_left", [True, False])
@pytest.mark.parametrize(("beta", "linear_beta"), [(1.0, 0.0), (2.5, 1.5), (-0.75, -1.0)])
@pytest.mark.parametrize(("half", "dim"), [((3, 13), -1), ((5, 3, 7), 1), ((2, 20000), -1)])
def test_situ_glu_is_its_torch_composition_with_the_gate_activate_left_names(
    activate_left, beta, linear_beta, half, dim
):
    """The reference notes' formula written in torch, the gate the first half when activateLeft holds."""
    axis = dim % len(half)
    full = tuple(s * 2 if i == axis else s for i, s in enumerate(half))
    x = np.random.default_rng(sum(full)).uniform(-6, 6, full).astype(np.float32)
    got = opgen_ops.situ_glu(x, dim, beta=beta, linear_beta=linear_beta, activate_left=activate_left)
    first, second = torch.from_numpy(x).double().chunk(2, dim=dim)
    gate, up = (first, second) if activate_left else (second, first)
    up = linear_beta * torch.tanh(up / linear_beta) if linear_beta > 0 else up
    want = (beta * torch.tanh(gate / beta) * torch.sigmoid(gate) * up).numpy()
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5)


def _situ_glu_torch(x, dim: int, beta: float, linear_beta: float, activate_left: bool):
    """SituGlu's forward composition (the reference notes' formula) in torch, the gate the first half when
    activateLeft holds."""
    first, second = x.chunk(2, dim=dim)
    gate, up = (first, second) if activate_left else (second, first)
    up = linear_beta * torch.tanh(up / linear_beta) if linear_beta > 0 else up
    return beta * torch.tanh(gate / beta) * torch.sigmoid(gate) * up


@pytest.mark.skipif("situ_glu_grad" not in specs(), reason="no situ_glu_grad spec")
@pytest.mark.parametrize("activate_left", [True, False])
@pytest.mark.parametrize(("beta", "linear_beta"), [(1.0, 0.0), (2.5, 1.5), (-0.75, -1.0), (0.5, 0.25)])
@pytest.mark.parametrize(("half", "dim"), [((3, 13), -1), ((5, 3, 7), 1), ((1001, 1), -1), ((2, 20000), -1)])
def test_situ_glu_grad_is_torch_autograd_of_the_forward_composition(activate_left, beta, linear_beta, half, dim):
    """The gradient of x is torch's autograd of the forward written in torch: each half's gradient lands where that
    half was read, so activateLeft swaps the kernel's output halves as it swaps its input halves."""
    axis = dim % len(half)
    full = tuple(s * 2 if i == axis else s for i, s in enumerate(half))
    x = np.random.default_rng(sum(full)).uniform(-6, 6, full).astype(np.float32)
    # zeros, large magnitudes: both branches of tanh/sigmoid saturated, in either half
    x.reshape(-1)[: 8 * 5 : 5] = [0.0, -0.0, 20.0, -20.0, 1e-3, -1e-3, 90.0, -90.0][: x.reshape(-1)[:40:5].size]
    grad = np.random.default_rng(len(full)).uniform(-2, 2, half).astype(np.float32)
    got = opgen_ops.situ_glu_grad(grad, x, dim, beta=beta, linear_beta=linear_beta, activate_left=activate_left)
    leaf = torch.from_numpy(x).double().requires_grad_()
    _situ_glu_torch(leaf, dim, beta, linear_beta, activate_left).backward(torch.from_numpy(grad).double())
    want = leaf.grad.numpy()
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5)
    # the halves do swap: the other activateLeft gives another gradient on these values
    other = opgen_ops.situ_glu_grad(grad, x, dim, beta=beta, linear_beta=linear_beta, activate_left=not activate_left)
    assert not np.allclose(other, got)


def _situ_glu_grad_notes(grad, x, dim: int, beta: float, linear_beta: float, activate_left: bool) -> np.ndarray:
    """The reference notes' factored gradient in numpy, in x's dtype (the kernel's FLOAT): grad_gate = gradY * up' *
    s * ((1 - t^2) + beta * t * (1 - s)), grad_up = gradY * situ * (1 - tanh^2(up / linearBeta) when linearBeta > 0,
    else 1)."""
    first, second = np.split(x, 2, axis=dim)
    gate, up = (first, second) if activate_left else (second, first)
    g, beta, linear_beta = grad, x.dtype.type(beta), x.dtype.type(linear_beta)
    with np.errstate(all="ignore"):
        t, s = np.tanh(gate / beta), 1 / (1 + np.exp(-gate))
        lt = np.tanh(up / linear_beta) if linear_beta > 0 else None
        up_act = linear_beta * lt if lt is not None else up
        grad_gate = g * up_act * s * ((1 - t * t) + beta * t * (1 - s))
        grad_up = g * beta * t * s * (1 - lt * lt if lt is not None else 1)
    halves = (grad_gate, grad_up) if activate_left else (grad_up, grad_gate)
    return np.concatenate(halves, axis=dim)


@pytest.mark.skipif("situ_glu_grad" not in specs(), reason="no situ_glu_grad spec")
@pytest.mark.parametrize("activate_left", [True, False])
@pytest.mark.parametrize("linear_beta", [0.0, 1.5])
def test_situ_glu_grad_propagates_nan_and_infinities_as_torch_autograd(activate_left, linear_beta):
    """Every special against every special, in the gate and in up. Where torch's product rule multiplies an infinite
    up by a zero partial (the gate's t * ds at gate = 0, its (1 - t^2) once tanh saturates) torch gives NaN; the
    derivative there, the notes' factored formula, is the infinity the kernel writes: those positions are held to
    that formula in FLOAT, as the kernel computes it (at gate = 20 both of its terms round to 0 there: NaN as
    torch's)."""
    n = len(SPECIALS)
    x = np.empty((n, 2 * n), np.float32)
    x[:, :n] = np.array(SPECIALS, np.float32)[:, None]  # row i: the first half all SPECIALS[i]
    x[:, n:] = np.array(SPECIALS, np.float32)[None, :]  # column j of the second half: SPECIALS[j]
    grad = np.random.default_rng(4).uniform(-2, 2, (n, n)).astype(np.float32)
    got = opgen_ops.situ_glu_grad(grad, x, -1, beta=1.0, linear_beta=linear_beta, activate_left=activate_left)
    leaf = torch.from_numpy(x).double().requires_grad_()
    _situ_glu_torch(leaf, -1, 1.0, linear_beta, activate_left).backward(torch.from_numpy(grad).double())
    want = leaf.grad.numpy()
    notes = _situ_glu_grad_notes(grad, x, -1, 1.0, linear_beta, activate_left)
    product_rule = np.isnan(want) & ~np.isnan(notes)
    assert (product_rule.any() and np.isinf(notes[product_rule]).all()) == (linear_beta == 0)
    want = np.where(product_rule, notes, want)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5, equal_nan=True)


@pytest.mark.skipif("situ_glu_grad" not in specs(), reason="no situ_glu_grad spec")
def test_situ_glu_grad_refuses_each_error_row():
    x = np.ones((4, 6), np.float32)
    g = np.ones((4, 3), np.float32)
    assert _status(lambda: opgen_ops.situ_glu_grad(None, x)) == 161001
    assert _status(lambda: opgen_ops.situ_glu_grad(g.astype(np.int32), x.astype(np.int32))) == 161002  # dtype
    # ranks, dim and shapes: the tiling's (561002), after the dtypes
    nine = np.ones((1,) * 9, np.float32)
    assert _status(lambda: opgen_ops.situ_glu_grad(nine, np.ones((1,) * 8 + (2,), np.float32))) == 561002  # rank 9
    assert _status(lambda: opgen_ops.situ_glu_grad(g, x, 2)) == 561002  # dim out of range
    assert _status(lambda: opgen_ops.situ_glu_grad(np.ones((4, 2), np.float32), np.ones((4, 5), np.float32))) == 561002
    assert _status(lambda: opgen_ops.situ_glu_grad(np.ones((4, 2), np.float32), x)) == 561002  # gradY not x's half
    assert _status(lambda: opgen_ops.situ_glu_grad(g, x, out=np.zeros((4, 3), np.float32))) == 561002  # out x's
    assert _status(lambda: opgen_ops.situ_glu_grad(g.astype(np.float16), x)) == 161002  # gradY's dtype
    assert _status(lambda: opgen_ops.situ_glu_grad(g, x, out=np.zeros((4, 6), np.float16))) == 161002  # out's dtype
    assert opgen_ops.situ_glu_grad(np.ones((0, 3), np.float32), np.ones((0, 6), np.float32)).shape == (0, 6)
