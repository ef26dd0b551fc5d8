"""Reductions along the operator's dim, rowmax(x) and rowsum(x): parsing and types, the float64 reference along an
axis (against torch's softmax family), the numpy source, LaTeX, folding, and the derivative check along the row
(formula.vjp against torch.autograd, first_row_difference on right and wrong backward formulas)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from opgen import formula as F
from opgen.formula.complex import complex_problem
from opgen.formula.integer import integer_problem

T = F.Symbol.tensor()
SYMBOLS = {"x": T, "g": T, "y": T, "labels": T, "features": T, "w": T, "alpha": F.Symbol.scalar()}

SOFTMAX = "exp(x - rowmax(x)) / rowsum(exp(x - rowmax(x)))"
LOG_SOFTMAX = "x - rowmax(x) - log(rowsum(exp(x - rowmax(x))))"
SOFTMAX_BACKWARD = "y * (g - rowsum(g * y))"  # y: softmax's result
LOG_SOFTMAX_BACKWARD = "g - exp(y) * rowsum(g)"  # y: log-softmax's result
LOG_SOFTMAX_OF_FEATURES = re.sub(r"\bx\b", "features", LOG_SOFTMAX)
LOSS = f"rowsum(-labels * ({LOG_SOFTMAX_OF_FEATURES}))"
BACKPROP = re.sub(r"\bx\b", "features", SOFTMAX) + " - labels"


def parse(text: str) -> F.Expr:
    return F.parse(text, SYMBOLS)


def _grad() -> F.Expr:
    return F.Name("g", F.SymbolKind.TENSOR)


# ---------------------------------------------------------------------------------------------- language


@pytest.mark.parametrize("text", [SOFTMAX, LOG_SOFTMAX, SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD, LOSS, BACKPROP])
def test_the_softmax_family_parses_and_its_text_parses_back(text: str) -> None:
    expr = parse(text)
    assert F.has_reduction(expr)
    assert parse(F.to_text(expr)) == expr
    assert F.type_of(expr) == F.ExprType(F.ValueType.NUM, True)


def test_a_reduction_nests_and_is_a_reduce_node() -> None:
    expr = parse("rowsum(exp(x - rowmax(x)))")
    assert isinstance(expr, F.Reduce) and expr.op == "sum"
    inner = [node.op for node in F.reductions(expr)]
    assert inner == ["max", "sum"]  # innermost first


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("rowsum(x > 0)", "argument of rowsum() must be a number, got a boolean", 7),
        ("rowmax(alpha * 2)", "rowmax() reduces tensor data along the operator's dim, but its argument is host", 7),
        ("rowsum(1)", "rowsum() reduces tensor data", 7),
        ("rowsum(x, y)", "rowsum() takes 1 argument, got 2", 0),
        ("max(x)", "max() takes 2 arguments, got 1", 0),  # the binary max keeps its spelling
        ("rowmean(x)", "unknown function 'rowmean' (did you mean 'rowmax'?)", 0),
    ],
)
def test_a_bad_reduction_is_named_at_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(F.FormulaError) as caught:
        parse(text)
    assert message in caught.value.message and caught.value.column == column


def test_a_hand_built_reduction_of_a_host_value_is_refused_by_type_of() -> None:
    with pytest.raises(F.FormulaError, match="host-known"):
        F.type_of(F.Reduce("sum", F.Const(1.0)))
    with pytest.raises(ValueError, match="Reduce op must be one of"):
        F.Reduce("min", F.Name("x", F.SymbolKind.TENSOR))


def test_varies_along_row_tells_a_value_per_row_from_a_value_per_element() -> None:
    assert not F.varies_along_row(parse(LOSS))
    assert not F.varies_along_row(parse("rowsum(x) * alpha + rowmax(y)"))
    assert F.varies_along_row(parse(BACKPROP))
    assert F.varies_along_row(parse("x + alpha"))


def test_rowmax_of_a_value_per_row_folds_and_nothing_else_does() -> None:
    assert F.fold_constants(parse("rowmax(rowmax(x)) + rowmax(rowsum(x) * 2)")) == parse("rowmax(x) + rowsum(x) * 2")
    kept = parse("rowsum(rowsum(x)) + rowmax(x)")  # the sum of a row of equal values is n times one of them
    assert F.fold_constants(kept) == kept


def test_the_routed_kernels_and_cpp_name_a_reduction() -> None:
    expr = parse(SOFTMAX)
    assert integer_problem(parse("rowmax(x) - x")) == "rowmax() (a reduction along dim) has no integer kernel"
    assert complex_problem(expr) == "rowmax() (a reduction along dim) has no complex kernel"
    with pytest.raises(ValueError, match="has no reduction along dim"):
        F.to_cpp(expr)


# ---------------------------------------------------------------------------------------------- reference


def _rows(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-8.0, 8.0, shape)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_softmax_and_log_softmax_along_every_dim_are_torchs(dim: int, torch) -> None:
    x = _rows((3, 4, 5))
    ours = F.evaluate(parse(SOFTMAX), {"x": x}, axis=dim)
    np.testing.assert_allclose(ours, torch.softmax(torch.from_numpy(x), dim).numpy(), rtol=1e-14, atol=1e-16)
    ours = F.evaluate(parse(LOG_SOFTMAX), {"x": x}, axis=dim)
    np.testing.assert_allclose(ours, torch.log_softmax(torch.from_numpy(x), dim).numpy(), rtol=1e-14, atol=1e-14)


def test_special_values_in_a_row_are_torchs(torch) -> None:
    inf, nan = math.inf, math.nan
    x = np.array(
        [
            [1.0, 2.0, 3.0],
            [-inf, -inf, -inf],  # all -inf: 0/0, NaN as torch
            [-inf, 0.0, 1.0],
            [inf, 0.0, 1.0],
            [nan, 0.0, 1.0],
            [1000.0, -1000.0, 999.0],
        ]
    )
    for text, reference in ((SOFTMAX, torch.softmax), (LOG_SOFTMAX, torch.log_softmax)):
        ours = F.evaluate(parse(text), {"x": x}, axis=1)
        theirs = reference(torch.from_numpy(x), 1).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-16, equal_nan=True)


def test_a_row_of_one_element_an_empty_row_and_a_0d_tensor() -> None:
    softmax = parse(SOFTMAX)
    np.testing.assert_array_equal(F.evaluate(softmax, {"x": _rows((4, 1))}, axis=1), np.ones((4, 1)))
    assert F.evaluate(softmax, {"x": np.zeros((3, 0))}, axis=1).shape == (3, 0)
    assert F.evaluate(softmax, {"x": np.zeros((0, 3))}, axis=1).shape == (0, 3)
    assert F.evaluate(softmax, {"x": np.float64(7.0)}, axis=-1) == 1.0  # torch.softmax of a 0-d tensor
    # an empty row's sum is 0 and its max -inf, as a loss per row over no classes
    assert F.evaluate(parse("rowsum(x)"), {"x": np.zeros((2, 0))}, axis=1, keepdims=False).tolist() == [0.0, 0.0]
    assert F.evaluate(parse("rowmax(x)"), {"x": np.zeros((2, 0))}, axis=1, keepdims=False).tolist() == [-math.inf] * 2


def test_the_backward_formulas_are_atens(torch) -> None:
    x, g = _rows((4, 6)), _rows((4, 6), seed=1)
    y = torch.softmax(torch.from_numpy(x), 1)
    theirs = torch.ops.aten._softmax_backward_data(torch.from_numpy(g), y, 1, torch.float64).numpy()
    ours = F.evaluate(parse(SOFTMAX_BACKWARD), {"g": g, "y": y.numpy()}, axis=1)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)
    y = torch.log_softmax(torch.from_numpy(x), 0)
    theirs = torch.ops.aten._log_softmax_backward_data(torch.from_numpy(g), y, 0, torch.float64).numpy()
    ours = F.evaluate(parse(LOG_SOFTMAX_BACKWARD), {"g": g, "y": y.numpy()}, axis=0)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)


def test_softmax_cross_entropy_loss_per_row_and_backprop(torch) -> None:
    features = _rows((5, 7))
    labels = np.random.default_rng(2).dirichlet(np.ones(7), 5)
    env = {"features": features, "labels": labels}
    loss = F.evaluate(parse(LOSS), env, axis=1, keepdims=False)
    assert loss.shape == (5,)
    theirs = torch.nn.functional.cross_entropy(torch.from_numpy(features), torch.from_numpy(labels), reduction="none")
    np.testing.assert_allclose(loss, theirs.numpy(), rtol=1e-13)
    backprop = F.evaluate(parse(BACKPROP), env, axis=1)
    np.testing.assert_allclose(backprop, torch.softmax(torch.from_numpy(features), 1).numpy() - labels, atol=1e-15)
    assert F.evaluate(parse(LOSS), env, axis=1).shape == (5, 7)  # kept, it broadcasts along the row


def test_evaluate_needs_the_axis_and_a_value_per_row_to_remove_it() -> None:
    with pytest.raises(ValueError, match="give the axis"):
        F.evaluate(parse(SOFTMAX), {"x": _rows((2, 3))})
    with pytest.raises(ValueError, match="axis 2 is outside"):
        F.evaluate(parse(SOFTMAX), {"x": _rows((2, 3))}, axis=2)
    with pytest.raises(ValueError, match="keepdims=False needs one value per row"):
        F.evaluate(parse(BACKPROP), {"features": _rows((2, 3)), "labels": _rows((2, 3))}, axis=1, keepdims=False)


def test_a_reduction_runs_over_the_row_of_the_broadcast_shape() -> None:
    x, w = _rows((4, 3)), _rows((1, 3), seed=3)
    ours = F.evaluate(parse("x * 0 + rowsum(w)"), {"x": x, "w": w}, axis=0)
    np.testing.assert_allclose(ours, np.broadcast_to(4 * w, (4, 3)))


# ---------------------------------------------------------------------------------------------- numpy source


def _run(source: str, helpers: str, env: dict) -> np.ndarray:
    namespace: dict = {"np": np, "math": math}
    exec(helpers, namespace)
    return eval(source, namespace, env)


@pytest.mark.parametrize("text", [SOFTMAX, LOG_SOFTMAX, LOSS, BACKPROP])
def test_the_numpy_source_computes_the_reference(text: str) -> None:
    expr = parse(text)
    env = {"x": _rows((3, 5)), "features": _rows((3, 5), 1), "labels": _rows((3, 5), 2), "dim": -2}
    source = F.to_numpy(expr, axis="dim")
    assert "_row_sum(" in source or "_row_max(" in source
    got = np.broadcast_to(_run(source, F.numpy_helpers([expr]), env), (3, 5))
    np.testing.assert_allclose(got, F.evaluate(expr, env, axis=-2), rtol=1e-15, atol=1e-15)


def test_the_numpy_source_broadcasts_a_reduced_operand_to_the_shape_it_is_given() -> None:
    expr = parse("x * 0 + rowsum(w)")
    env = {"x": _rows((4, 3)), "w": _rows((1, 3), 3), "dim": 0}
    source = F.to_numpy(expr, axis="dim", shape="x.shape")
    assert source == "((x * 0.0) + _row_sum(w, dim, shape=x.shape))"
    np.testing.assert_allclose(_run(source, F.numpy_helpers([expr]), env), F.evaluate(expr, env, axis=0))


def test_the_numpy_source_needs_the_axis_and_carries_only_the_helpers_used() -> None:
    with pytest.raises(ValueError, match="give the row's axis"):
        F.to_numpy(parse(SOFTMAX))
    helpers = F.numpy_helpers([parse("rowsum(x)")])
    assert "def _row_sum(" in helpers and "def _row_max(" not in helpers
    assert "def _row_max(" in F.NUMPY_HELPERS


# ---------------------------------------------------------------------------------------------- LaTeX


def test_latex_indexes_tensors_and_gives_each_reduction_its_own_index() -> None:
    assert F.to_latex(parse(SOFTMAX)) == r"\frac{exp(x_{i} - \max_{j} x_{j})}{\sum_{j} exp(x_{j} - \max_{k} x_{k})}"
    assert F.to_latex(parse(SOFTMAX_BACKWARD)) == r"y_{i}*(g_{i} - \sum_{j} g_{j}*y_{j})"
    assert F.to_latex(parse(LOG_SOFTMAX_BACKWARD)) == r"g_{i} - exp(y_{i})*\sum_{j} g_{j}"
    assert F.to_latex(parse("rowsum(x + alpha) ** 2")) == r"(\sum_{j} (x_{j} + alpha))^{2}"
    assert F.to_latex(parse("rowsum(x)"), {"x": "x_{in}"}) == r"\sum_{j} {x_{in}}_{j}"
    # softmin's max of -x: bracketed, as `\max_{j} -x_{j}` would read as a difference
    assert F.to_latex(parse("-x - rowmax(-x)")) == r"-x_{i} - \max_{j} (-x_{j})"


def test_latex_of_an_elementwise_formula_is_unchanged() -> None:
    assert F.to_latex(parse("x * alpha + y")) == "x*alpha + y"


# ---------------------------------------------------------------------------------------------- derivative


def _autograd(torch, forward, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    leaf = torch.from_numpy(x).requires_grad_()
    forward(leaf).backward(torch.from_numpy(g))
    assert leaf.grad is not None
    return leaf.grad.numpy()


@pytest.mark.parametrize(("text", "forward"), [(SOFTMAX, "softmax"), (LOG_SOFTMAX, "log_softmax")])
@pytest.mark.parametrize("dim", [0, 1])
def test_vjp_is_torchs_backward(text: str, forward: str, dim: int, torch) -> None:
    x, g = _rows((4, 5)), _rows((4, 5), 1)
    vjp = F.vjp(parse(text), "x", _grad())
    theirs = _autograd(torch, lambda t: getattr(torch, forward)(t, dim), x, g)
    np.testing.assert_allclose(F.evaluate(vjp, {"x": x, "g": g}, axis=dim), theirs, rtol=1e-12, atol=1e-14)


def test_vjp_of_the_loss_per_row_is_the_backprop_times_the_rows_gradient() -> None:
    # The loss is one value per row, broadcast along it: its gradient is the row's sum of the gradient given to each
    # element, times d loss / d features = softmax(features) * rowsum(labels) - labels (the backprop, labels summing
    # to 1).
    features, labels, g = _rows((3, 4)), np.random.default_rng(2).dirichlet(np.ones(4), 3), _rows((3, 4), 4)
    env = {"features": features, "labels": labels, "g": g}
    vjp = F.vjp(parse(LOSS), "features", _grad())
    expected = F.evaluate(parse(BACKPROP), env, axis=1) * g.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(F.evaluate(vjp, env, axis=1), expected, rtol=1e-12, atol=1e-14)


def test_vjp_of_an_elementwise_formula_is_the_gradient_times_the_derivative() -> None:
    expr = parse("where(x > 0, x * x, alpha * (exp(x) - 1))")
    expected = F.Binary("mul", _grad(), F.differentiate(expr, "x"))
    assert F.first_difference(F.vjp(expr, "x", _grad()), expected, {"alpha": 1.5}) is None


def test_differentiate_moves_every_element_of_the_row_alike() -> None:
    # softmax does not change when the whole row moves; a row's sum of squares moves by twice the row's sum
    x = _rows((3, 4))
    np.testing.assert_allclose(F.evaluate(F.differentiate(parse(SOFTMAX), "x"), {"x": x}, axis=1), 0, atol=1e-15)
    moved = F.evaluate(F.differentiate(parse("rowsum(x * x)"), "x"), {"x": x}, axis=1)
    np.testing.assert_allclose(moved, np.broadcast_to(2 * x.sum(axis=1, keepdims=True), x.shape), rtol=1e-15)


def _at_result(backward: str, forward: str) -> F.Expr:
    """The backward formula with y, the forward's result, computed from x (as the check sees it)."""
    return F.substitute(parse(backward), {"y": parse(forward)})


@pytest.mark.parametrize(("backward", "forward"), [(SOFTMAX_BACKWARD, SOFTMAX), (LOG_SOFTMAX_BACKWARD, LOG_SOFTMAX)])
def test_the_backward_formulas_are_the_vjp_over_sample_rows(backward: str, forward: str) -> None:
    expected = F.vjp(parse(forward), "x", _grad())
    assert F.first_row_difference(_at_result(backward, forward), expected, {}, rtol=1e-7, atol=1e-10) is None


@pytest.mark.parametrize(
    ("wrong", "forward"),
    [
        ("y * (g - rowsum(g))", SOFTMAX),  # forgot the output in the sum
        ("g - y * rowsum(g)", LOG_SOFTMAX),  # y where exp(y) belongs
        ("g * y * (1 - y)", SOFTMAX),  # sigmoid's derivative: right on a row of one element only
    ],
)
def test_a_wrong_backward_is_found_with_its_row_and_element(wrong: str, forward: str) -> None:
    expected = F.vjp(parse(forward), "x", _grad())
    found = F.first_row_difference(_at_result(wrong, forward), expected, {}, rtol=1e-7, atol=1e-10)
    assert found is not None and found.element is not None
    row = {name: np.array([values]) for name, values in found.point.items()}
    ours = F.evaluate(_at_result(wrong, forward), row, axis=-1)[0]
    right = F.evaluate(expected, row, axis=-1)[0]
    assert ours[found.element] == found.first and right[found.element] == found.second
    assert not math.isclose(found.first, found.second, rel_tol=1e-7, abs_tol=1e-10)


def test_the_row_check_sweeps_to_either_side_of_a_boundary_random_rows_miss() -> None:
    # rowmax passes the row's gradient to the row's maximum; the wrong one also to an element within 1e-3 of it,
    # which random rows almost never hold: the sweep finds it just past x = rowmax(x) - 1e-3
    expected = F.vjp(parse("rowmax(x)"), "x", _grad())
    assert F.first_row_difference(parse("where(x == rowmax(x), rowsum(g), 0)"), expected, {}) is None
    wrong = parse("where(x >= rowmax(x) - 0.001, rowsum(g), 0)")
    found = F.first_row_difference(wrong, expected, {})
    assert found is not None
    row = found.point["x"]
    assert isinstance(row, tuple) and 0 < max(row) - row[found.element or 0] < 0.001


def test_first_difference_sends_a_reducing_formula_to_the_row_check() -> None:
    with pytest.raises(ValueError, match="first_row_difference"):
        F.first_difference(parse(SOFTMAX), parse(SOFTMAX), {})
