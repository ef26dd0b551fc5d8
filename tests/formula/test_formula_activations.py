"""The activation family, forward and backward, written as formulas and checked against PyTorch.

Inputs mix random values with special ones (±0, ±inf, NaN, branch points, exp overflow). Tensors are
a multiple of 64 long with the special values first, so PyTorch runs its vectorised CPU path: for a
NaN input some scalar tail loops take the other branch (e.g. elu_backward), and the vectorised
result is what users see on real tensor sizes.

float64 is compared tightly on every input, float32 on finite inputs within 1e-5 (abs + rel): the
reference is correctly rounded float64 while PyTorch computes in float32 (and its float32 gelu
returns NaN for +inf where float64 returns +inf; the formula gives +inf).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from opgen.formula import Symbol, evaluate, parse

# The table's torch sides take `T`: torch as T.torch, torch.nn.functional as T.F, torch.ops.aten as T.aten, so
# that the formulas (test_derivative.py reads them too) do not need torch.
Tensor = Any


def torch_names(torch) -> SimpleNamespace:
    return SimpleNamespace(torch=torch, F=torch.nn.functional, aten=torch.ops.aten)


SYMBOLS = {
    "x": Symbol.tensor(),  # the forward input
    "y": Symbol.tensor(),  # the forward output, for backward formulas written in terms of it
    "grad": Symbol.tensor(),
    "negativeSlope": Symbol.scalar(),
    "alpha": Symbol.scalar(),
    "scale": Symbol.scalar(),
    "inputScale": Symbol.scalar(),
    "beta": Symbol.scalar(),
    "threshold": Symbol.scalar(),
}

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
GELU_TANH_K = "sqrt(2 / pi)"
GELU_TANH_INNER = f"{GELU_TANH_K} * (x + 0.044715 * x ** 3)"
ELU = {"alpha": 1.3, "scale": 1.1, "inputScale": 0.7}
SOFTPLUS = {"beta": 2.0, "threshold": 15.0}


@dataclass(frozen=True)
class Activation:
    name: str
    formula: str
    torch_fn: Callable[[SimpleNamespace, dict], Tensor]  # T, tensors x, grad (and y) -> expected
    scalars: dict = field(default_factory=dict)
    forward: Callable[[SimpleNamespace, Tensor], Tensor] | None = None  # T, x -> y for result-based backward
    points: tuple[float, ...] = ()  # branch points of this activation
    rtol64: float = 1e-12


def _autograd(fn: Callable[[SimpleNamespace, Tensor], Tensor]) -> Callable[[SimpleNamespace, dict], Tensor]:
    def backward(T: SimpleNamespace, t: dict) -> Tensor:
        x = t["x"].clone().requires_grad_(True)
        return T.torch.autograd.grad(fn(T, x), x, t["grad"])[0]

    return backward


ACTIVATIONS = [
    Activation("relu", "max(x, 0)", lambda T, t: T.F.relu(t["x"])),
    Activation("relu_backward", "where(x <= 0, 0, grad)", lambda T, t: T.aten.threshold_backward(t["grad"], t["x"], 0)),
    Activation(
        "leaky_relu",
        "where(x > 0, x, x * negativeSlope)",
        lambda T, t: T.F.leaky_relu(t["x"], 0.01),
        {"negativeSlope": 0.01},
    ),
    Activation(
        "leaky_relu_backward",
        "where(x > 0, grad, grad * negativeSlope)",
        lambda T, t: T.aten.leaky_relu_backward(t["grad"], t["x"], 0.2, False),
        {"negativeSlope": 0.2},
    ),
    Activation(
        "leaky_relu_backward_on_result",
        "where(y > 0, grad, grad * negativeSlope)",
        lambda T, t: T.aten.leaky_relu_backward(t["grad"], t["y"], 0.2, True),
        {"negativeSlope": 0.2},
        forward=lambda T, x: T.F.leaky_relu(x, 0.2),
    ),
    Activation(
        "elu",
        "where(x > 0, scale * x, alpha * scale * expm1(x * inputScale))",
        lambda T, t: T.aten.elu(t["x"], 1.3, 1.1, 0.7),
        ELU,
    ),
    Activation(
        "elu_backward",
        "grad * where(x > 0, scale, inputScale * alpha * scale * exp(x * inputScale))",
        lambda T, t: T.aten.elu_backward(t["grad"], 1.3, 1.1, 0.7, False, t["x"]),
        ELU,
    ),
    Activation(
        "elu_backward_on_result",
        "grad * where(y > 0, scale, inputScale * (y + alpha * scale))",
        lambda T, t: T.aten.elu_backward(t["grad"], 1.3, 1.1, 0.7, True, t["y"]),
        ELU,
        forward=lambda T, x: T.aten.elu(x, 1.3, 1.1, 0.7),
    ),
    Activation("selu", f"{SELU_SCALE!r} * where(x > 0, x, {SELU_ALPHA!r} * expm1(x))", lambda T, t: T.F.selu(t["x"])),
    Activation(
        "selu_backward",
        f"grad * {SELU_SCALE!r} * where(x > 0, 1, {SELU_ALPHA!r} * exp(x))",
        _autograd(lambda T, x: T.F.selu(x)),
    ),
    Activation("celu", "where(x > 0, x, alpha * expm1(x / alpha))", lambda T, t: T.F.celu(t["x"], 0.8), {"alpha": 0.8}),
    Activation(
        "celu_backward",
        "where(x > 0, grad, grad * exp(x / alpha))",
        _autograd(lambda T, x: T.F.celu(x, 0.8)),
        {"alpha": 0.8},
        rtol64=1e-6,  # PyTorch's celu autograd carries its alpha-derived coefficients in float32
    ),
    Activation("gelu", "0.5 * x * (1 + erf(x / sqrt(2)))", lambda T, t: T.F.gelu(t["x"])),
    Activation(
        "gelu_backward",
        "grad * (0.5 * (1 + erf(x / sqrt(2))) + x * exp(-0.5 * x * x) / sqrt(2 * pi))",
        lambda T, t: T.aten.gelu_backward(t["grad"], t["x"]),
    ),
    Activation(
        "gelu_tanh",
        f"0.5 * x * (1 + tanh({GELU_TANH_INNER}))",
        lambda T, t: T.F.gelu(t["x"], approximate="tanh"),
    ),
    Activation(
        "gelu_tanh_backward",
        f"grad * (0.5 * (1 + tanh({GELU_TANH_INNER}))"
        f" + 0.5 * x * (1 - tanh({GELU_TANH_INNER}) ** 2) * {GELU_TANH_K} * (1 + 3 * 0.044715 * x ** 2))",
        lambda T, t: T.aten.gelu_backward(t["grad"], t["x"], approximate="tanh"),
    ),
    Activation("silu", "x * sigmoid(x)", lambda T, t: T.F.silu(t["x"])),
    Activation(
        "silu_backward",
        "grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))",
        lambda T, t: T.aten.silu_backward(t["grad"], t["x"]),
    ),
    Activation("sigmoid", "sigmoid(x)", lambda T, t: T.torch.sigmoid(t["x"])),
    Activation(
        "sigmoid_backward",
        "grad * (1 - y) * y",
        lambda T, t: T.aten.sigmoid_backward(t["grad"], t["y"]),
        forward=lambda T, x: T.torch.sigmoid(x),
    ),
    Activation("hardsigmoid", "min(max(x + 3, 0), 6) / 6", lambda T, t: T.F.hardsigmoid(t["x"]), points=(-3, 3)),
    Activation(
        "hardsigmoid_backward",
        "where(x > -3 and x < 3, grad / 6, 0)",
        lambda T, t: T.aten.hardsigmoid_backward(t["grad"], t["x"]),
        points=(-3, 3),
        rtol64=1e-7,  # PyTorch multiplies by a float32 1/6 even for float64
    ),
    Activation("hardswish", "x * min(max(x + 3, 0), 6) / 6", lambda T, t: T.F.hardswish(t["x"]), points=(-3, 3)),
    Activation(
        "hardswish_backward",
        "where(x <= -3, 0, where(x >= 3, grad, grad * (x / 3 + 0.5)))",
        lambda T, t: T.aten.hardswish_backward(t["grad"], t["x"]),
        points=(-3, 3),
    ),
    Activation(
        "softplus",
        "where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)",
        lambda T, t: T.F.softplus(t["x"], 2.0, 15.0),
        SOFTPLUS,
        points=(7.5, np.nextafter(7.5, 8), np.nextafter(7.5, 7)),
    ),
    Activation(
        "softplus_backward",
        "where(x * beta > threshold, grad, grad * exp(x * beta) / (exp(x * beta) + 1))",
        lambda T, t: T.aten.softplus_backward(t["grad"], t["x"], 2.0, 15.0),
        SOFTPLUS,
        points=(7.5, np.nextafter(7.5, 8), np.nextafter(7.5, 7)),
    ),
    Activation("mish", "x * tanh(log1p(exp(x)))", lambda T, t: T.F.mish(t["x"])),
    Activation(
        "mish_backward",
        "grad * (tanh(log1p(exp(x))) + x * sigmoid(x) * (1 - tanh(log1p(exp(x))) ** 2))",
        lambda T, t: T.aten.mish_backward(t["grad"], t["x"]),
    ),
    Activation("tanh", "tanh(x)", lambda T, t: T.torch.tanh(t["x"])),
    Activation(
        "tanh_backward",
        "grad * (1 - y * y)",
        lambda T, t: T.aten.tanh_backward(t["grad"], t["y"]),
        forward=lambda T, x: T.torch.tanh(x),
    ),
]

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-8, -1e-8, 1e-300, -1e-300, 0.5, -0.5, 1.0, -1.0, 6.0, -6.0,
           20.0, -20.0, 50.0, -50.0, 100.0, -100.0, 710.0, -745.5, 1000.0, -1000.0]  # fmt: skip
LENGTH = 2048  # a multiple of PyTorch's vector width, see the module docstring


def _inputs(activation: Activation, dtype) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(abs(hash(activation.name)) % 2**32)
    special = np.array(SPECIAL + list(activation.points), dtype=np.float64)
    rest = LENGTH - special.size
    x = np.concatenate([special, rng.standard_normal(rest // 2) * 4, rng.uniform(-40, 40, rest - rest // 2)])
    grad = rng.standard_normal(LENGTH)
    grad[rng.choice(LENGTH, 6, replace=False)] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0]
    if dtype == np.float32:
        x, grad = x[np.isfinite(x)], grad[np.isfinite(grad)][: np.isfinite(x).sum()]
        grad = np.resize(grad, x.size)
    return {"x": x.astype(dtype), "grad": grad.astype(dtype)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("activation", ACTIVATIONS, ids=[a.name for a in ACTIVATIONS])
def test_activation_matches_torch(activation: Activation, dtype, torch):
    T = torch_names(torch)
    expr = parse(activation.formula, SYMBOLS)
    arrays = _inputs(activation, dtype)
    tensors = {name: torch.from_numpy(a) for name, a in arrays.items()}
    if activation.forward is not None:
        tensors["y"] = activation.forward(T, tensors["x"])
        arrays["y"] = tensors["y"].numpy()
    want = activation.torch_fn(T, tensors).numpy()
    got = evaluate(expr, arrays | activation.scalars, dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype == np.float64:
        rtol, atol = activation.rtol64, 1e-13
    else:
        rtol, atol = 1e-5, 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_family_covers_forward_and_backward():
    names = {a.name for a in ACTIVATIONS}
    family = ["relu", "leaky_relu", "elu", "selu", "celu", "gelu", "gelu_tanh", "silu", "sigmoid", "hardsigmoid",
              "hardswish", "softplus", "mish", "tanh"]  # fmt: skip
    assert all(f in names and f"{f}_backward" in names for f in family)
