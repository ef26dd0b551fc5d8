"""Symbolic derivatives: each function's rule against a central finite difference, the activation family's
derivatives against torch.autograd, forward/backward formula pairs through `first_difference`, and the numeric
check itself (it finds a difference next to a branch boundary, and ignores a kink's conventional value)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from opgen import formula as F


def _activations():
    path = Path(__file__).parent / "test_formula_activations.py"
    spec = importlib.util.spec_from_file_location("formula_activations_for_derivatives", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being created
    spec.loader.exec_module(module)
    return {a.name: a for a in module.ACTIVATIONS}, module.SYMBOLS, module.torch_names


ACTIVATIONS, SYMBOLS, torch_names = _activations()
RNG = np.random.default_rng(17)


def _domain(function: str) -> np.ndarray:
    """Points inside the function's domain and away from its kinks and jumps."""
    if function == "erfinv":
        return RNG.uniform(-0.95, 0.95, 200)
    if function in ("log", "sqrt", "rsqrt"):
        return RNG.uniform(0.05, 20, 200)
    if function == "log1p":
        return RNG.uniform(-0.9, 20, 200)
    if function in ("floor", "trunc"):
        return RNG.integers(-5, 5, 200) + RNG.uniform(0.1, 0.9, 200)
    x = RNG.uniform(-6, 6, 200)
    return np.where(np.abs(x) < 0.1, 0.5, x)  # reciprocal, abs, sign: not at 0


@pytest.mark.parametrize("function", list(F.FUNCTIONS))
def test_each_function_derivative_matches_a_central_difference(function):
    symbols = {"x": F.Symbol.tensor()}
    expr = F.parse(f"{function}(x)", symbols)
    derivative = F.differentiate(expr, "x")
    x = _domain(function)
    h = 1e-5 * np.maximum(1.0, np.abs(x))
    numeric = (F.evaluate(expr, {"x": x + h}) - F.evaluate(expr, {"x": x - h})) / (2 * h)
    np.testing.assert_allclose(F.evaluate(derivative, {"x": x}), numeric, rtol=1e-6, atol=1e-8, err_msg=function)


def _formula(name: str) -> str:
    return ACTIVATIONS[name].formula


# name: (forward formula, the torch forward it must differentiate like (T: torch_names), scalars)
AUTOGRAD = {
    "relu": (_formula("relu"), lambda T, x: T.F.relu(x), {}),
    "elu": (_formula("elu"), lambda T, x: T.aten.elu(x, 1.3, 1.1, 0.7), ACTIVATIONS["elu"].scalars),
    "selu": (_formula("selu"), lambda T, x: T.F.selu(x), {}),
    "gelu_erf": (_formula("gelu"), lambda T, x: T.F.gelu(x), {}),
    "gelu_tanh": (_formula("gelu_tanh"), lambda T, x: T.F.gelu(x, approximate="tanh"), {}),
    "silu": (_formula("silu"), lambda T, x: T.F.silu(x), {}),
    "mish": (_formula("mish"), lambda T, x: T.F.mish(x), {}),
    "mish_softplus": ("x * tanh(softplus(x))", lambda T, x: T.F.mish(x), {}),
    "softplus": (_formula("softplus"), lambda T, x: T.F.softplus(x, 2.0, 15.0), ACTIVATIONS["softplus"].scalars),
    "softplus_plain": ("softplus(x)", lambda T, x: T.F.softplus(x, 1.0, 1e6), {}),
    "hardswish": (_formula("hardswish"), lambda T, x: T.F.hardswish(x), {}),
    "hardsigmoid": (_formula("hardsigmoid"), lambda T, x: T.F.hardsigmoid(x), {}),
    "logsigmoid": ("-softplus(-x)", lambda T, x: T.F.logsigmoid(x), {}),
}
KINKS = np.array([0.0, -3.0, 3.0, 7.5])  # relu/elu/selu at 0, hard* at +-3, softplus(beta 2, threshold 15) at 7.5


@pytest.mark.parametrize("name", list(AUTOGRAD))
def test_activation_derivatives_match_torch_autograd(name, torch):
    formula, forward, scalars = AUTOGRAD[name]
    derivative = F.differentiate(F.parse(formula, SYMBOLS), "x")
    x = np.concatenate([RNG.standard_normal(300) * 4, RNG.uniform(-30, 30, 300), [1e-6, -1e-6, 20.0, -20.0]])
    x = x[np.min(np.abs(x[:, None] - KINKS[None, :]), axis=1) > 1e-3]
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (expected,) = torch.autograd.grad(forward(torch_names(torch), t).sum(), t)
    got = F.evaluate(derivative, {"x": x, **scalars})
    # PyTorch's hardsigmoid/hardswish backward multiply by a float32 1/6 and 1/3, even in float64
    rtol = 1e-7 if name.startswith("hard") else 1e-10
    np.testing.assert_allclose(got, expected.numpy(), rtol=rtol, atol=1e-12, err_msg=name)


BACKWARD_OF = ["relu", "leaky_relu", "elu", "selu", "celu", "gelu", "gelu_tanh", "silu", "hardsigmoid",
               "hardswish", "softplus", "mish"]  # fmt: skip


@pytest.mark.parametrize("name", BACKWARD_OF)
def test_backward_formulas_are_grad_times_the_forward_derivative(name):
    # The check `opgen check` will run for forward/backward spec pairs: grad * d(forward)/dx == backward.
    forward, backward = ACTIVATIONS[name], ACTIVATIONS[f"{name}_backward"]
    derivative = F.differentiate(F.parse(forward.formula, SYMBOLS), "x")
    chained = F.Binary("mul", F.Name("grad", F.SymbolKind.TENSOR), derivative)
    values = {**forward.scalars, **backward.scalars}
    assert F.first_difference(chained, F.parse(backward.formula, SYMBOLS), values, rtol=1e-7) is None


def test_first_difference_finds_a_moved_boundary_and_reports_the_point():
    symbols = {"x": F.Symbol.tensor(), "t": F.Symbol.scalar()}
    right = F.parse("where(x > t, 1, 0)", symbols)
    moved = F.parse("where(x >= t + 0.01, 1, 0)", symbols)
    found = F.first_difference(right, moved, {"t": 3.0})
    assert found is not None
    assert 3.0 < found.point["x"] < 3.01 and (found.first, found.second) == (1.0, 0.0)
    # a window 1e-3 wide is all but missed by random points over [-40, 40]; the boundary points find it
    narrow = F.parse("where(x > t and x < t + 1e-3, 5, 1)", symbols)
    assert F.first_difference(narrow, F.parse("1 + 0 * x", symbols), {"t": 2.0}) is not None


def test_first_difference_ignores_the_kinks_own_value():
    symbols = {"x": F.Symbol.tensor()}
    torch_relu_grad = F.parse("where(x <= 0, 0, 1)", symbols)  # 0 at x = 0
    ours = F.differentiate(F.parse("max(x, 0)", symbols), "x")  # ties go to the first argument: 1 at x = 0
    assert F.evaluate(ours, {"x": np.array(0.0)}) == 1.0
    assert F.first_difference(ours, torch_relu_grad, {}) is None


def test_derivative_rules():
    symbols = {"x": F.Symbol.tensor(), "y": F.Symbol.tensor(), "s": F.Symbol.scalar(), "f": F.Symbol.flag()}

    def d(text: str, wrt: str = "x") -> str:
        return F.to_text(F.differentiate(F.parse(text, symbols), wrt))

    assert d("where(f, x * s, y)") == "where(f, s, 0)"  # branch-wise; the condition is not differentiated
    assert d("x * y", "y") == "x" and d("s * 3") == "0" and d("x ** 3") == "3 * x ** 2"
    assert d("abs(x)") == "sign(x)" and d("floor(x) + sign(x)") == "0"
    assert d("clamp(x, -1, 1)") == "where(max(x, -1) <= 1, where(x >= -1, 1, 0), 0)"
    assert d("exp(-x)") == "-exp(-x)" and d("1 / x") == "-(1 / (x * x))"
    with pytest.raises(ValueError, match="not a tensor"):
        F.differentiate(F.parse("x * s", symbols), "s")


def test_derivative_of_each_rule_is_well_typed_ir():
    symbols = {"x": F.Symbol.tensor()}
    for function in F.FUNCTIONS:
        derivative = F.differentiate(F.parse(f"{function}(x * 2)", symbols), "x")
        assert F.type_of(derivative).value is F.ValueType.NUM
        assert F.parse(F.to_text(derivative), symbols) == derivative  # it prints and parses back
    assert math.isclose(
        float(F.evaluate(F.differentiate(F.parse("erfinv(x)", symbols), "x"), {"x": np.array(0.0)})),
        math.sqrt(math.pi) / 2,
    )


def test_a_derivative_nan_from_float64_overflow_is_estimated_by_a_central_difference():
    """GeGlu's tanh form x / (1 + exp(-2z)) differentiates to inf / inf for a very negative x: float64 gives NaN
    where the derivative exists (about 0). With an estimate, such points compare with a central difference of the
    function: the right formula agrees, a wrong one is still reported there."""
    symbols = {"x": F.Symbol.tensor()}
    forward = F.parse("x / (1 + exp(-2 * (x + 0.044715 * x ** 3)))", symbols)
    slope = F.differentiate(forward, "x")
    right = F.parse(
        "sigmoid(2 * (x + 0.044715 * x ** 3)) + x * sigmoid(2 * (x + 0.044715 * x ** 3))"
        " * (1 - sigmoid(2 * (x + 0.044715 * x ** 3))) * 2 * (1 + 3 * 0.044715 * x ** 2)",
        symbols,
    )
    plain = F.first_difference(right, slope, {})
    assert plain is not None and np.isnan(plain.second)  # float64 breaks the symbolic derivative

    def central(env):
        x = np.asarray(env["x"], dtype=np.float64)
        step = 1e-6 * np.maximum(1.0, np.abs(x))
        with np.errstate(all="ignore"):
            return (F.evaluate(forward, {"x": x + step}) - F.evaluate(forward, {"x": x - step})) / (2 * step)

    assert F.first_difference(right, slope, {}, estimate=central) is None
    # wrong only where x is very negative (where the symbolic derivative breaks): reported against the estimate
    wrong = F.Binary("add", right, F.parse("where(x < -10, 1e-3, 0)", symbols))
    difference = F.first_difference(wrong, slope, {}, estimate=central)
    assert difference is not None and difference.point["x"] < -10 and difference.second == pytest.approx(0, abs=1e-9)
