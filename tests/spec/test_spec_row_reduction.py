"""A spec formula reducing along dim (rowmax, rowsum): `opgen check` refuses it at its line, naming the missing
reduce-along-dim schedule, never crashing; the derivative check of a backward whose forward reduces compares it with
the vector-Jacobian product over sample rows (the specs are built without the refusal, as that schedule will)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.text import copy_specs, edit_once, line_of

from opgen import formula
from opgen.cli import main
from opgen.plan.precision import measure_precision
from opgen.spec.backward import check_backward, derived_formula_text
from opgen.spec.formula_binding import kernel_formula
from opgen.spec.model import OpSpec
from opgen.spec.yaml_source import load_yaml
from tests.conftest import ROOT

SPECS = ROOT / "specs"
SOFTMAX = "exp(self - rowmax(self)) / rowsum(exp(self - rowmax(self)))"
LOG_SOFTMAX = "self - rowmax(self) - log(rowsum(exp(self - rowmax(self))))"
ELEMENTWISE_FORWARD = "where(self > 0, self, self * negativeSlope)"
ELEMENTWISE_BACKWARD = "where(self > 0, gradOutput, gradOutput * negativeSlope)"


def _check(path: Path, capsys) -> str:
    assert main(["check", str(path), "-j", "1"]) == 1
    return capsys.readouterr().err


def test_check_refuses_a_reducing_formula_at_its_line_naming_the_missing_schedule(tmp_path: Path, capsys) -> None:
    spec = copy_specs(SPECS, tmp_path, "leaky_relu")
    edit_once(spec, ELEMENTWISE_FORWARD, SOFTMAX)
    err = _check(spec, capsys)
    line = line_of(spec.read_text(encoding="utf-8"), SOFTMAX)
    assert re.search(
        rf"leaky_relu\.yaml:{line}:\d+: formula\.expr: formula: rowmax\(\) and rowsum\(\) reduce along the "
        r"operator's dim: give the spec a 'reduce_dim' section",
        err,
    ), err
    assert "internal error" not in err and "Traceback" not in err


def test_check_refuses_a_reduction_in_a_local_name_at_its_line(tmp_path: Path, capsys) -> None:
    spec = copy_specs(SPECS, tmp_path, "leaky_relu")
    edit_once(spec, f"  expr: {ELEMENTWISE_FORWARD}", "  let:\n    m: rowsum(self)\n  expr: self - m")
    err = _check(spec, capsys)
    line = line_of(spec.read_text(encoding="utf-8"), "m: rowsum(self)")
    assert re.search(rf"leaky_relu\.yaml:{line}:\d+: formula\.let\.m: let 'm': rowsum\(\) reduces along", err), err
    assert err.count("error") <= 2 and "internal error" not in err  # once, not again where m is used


def test_check_refuses_a_reduction_in_a_golden_expression_at_its_line(tmp_path: Path, capsys) -> None:
    spec = copy_specs(SPECS, tmp_path, "logsigmoid_grad")
    edit_once(spec, "derived_inputs: {buffer: exp(-abs(self))}", "derived_inputs: {buffer: exp(self - rowmax(self))}")
    err = _check(spec, capsys)
    line = line_of(spec.read_text(encoding="utf-8"), "rowmax(self)")
    assert re.search(rf"logsigmoid_grad\.yaml:{line}:\d+: golden\.derived_inputs\.buffer: .*rowmax\(\) reduces", err)


def test_a_backward_whose_forward_reduces_names_the_forwards_refusal(tmp_path: Path, capsys) -> None:
    forward = copy_specs(SPECS, tmp_path, "leaky_relu")
    backward = copy_specs(SPECS, tmp_path, "leaky_relu_grad")
    edit_once(forward, ELEMENTWISE_FORWARD, SOFTMAX)
    err = _check(backward, capsys)
    assert "derivative_of.forward: the forward spec does not load" in err and "reduce_dim" in err, err


# ------------------------------------------------------------------- the derivative check along the row


def _spec(name: str, old: str, new: str) -> OpSpec:
    """specs/<name>.yaml with its formula edited, as a model (cross-reference checks, which refuse a reduction
    until the schedule exists, are not run)."""
    text = (SPECS / f"{name}.yaml").read_text(encoding="utf-8")
    assert old in text
    return OpSpec.model_validate(load_yaml(text.replace(old, new, 1), f"{name}.yaml").data)


def _forward(expr: str) -> OpSpec:
    return _spec("leaky_relu", ELEMENTWISE_FORWARD, expr)


def _backward(on_result: str, on_input: str) -> OpSpec:
    """leaky_relu_grad's formula: `on_result` where self holds the forward's result (selfIsResult), else `on_input`."""
    return _spec("leaky_relu_grad", ELEMENTWISE_BACKWARD, f"where(selfIsResult, {on_result}, {on_input})")


def _at(text: str, value: str) -> str:
    """`text` with `self` replaced by `value`: the backward on the forward's input, y computed from it."""
    return re.sub(r"\bself\b", f"({value})", text)


SOFTMAX_BACKWARD = "self * (gradOutput - rowsum(gradOutput * self))"  # self: the forward's result
LOG_SOFTMAX_BACKWARD = "gradOutput - exp(self) * rowsum(gradOutput)"


@pytest.mark.parametrize(("forward", "backward"), [(SOFTMAX, SOFTMAX_BACKWARD), (LOG_SOFTMAX, LOG_SOFTMAX_BACKWARD)])
def test_the_softmax_backwards_are_the_vjp_of_their_forwards(forward: str, backward: str) -> None:
    spec = _backward(backward, _at(backward, forward))
    assert check_backward(spec, _forward(forward), "leaky_relu.yaml") == []


@pytest.mark.parametrize(
    ("forward", "wrong", "mode"),
    [
        (SOFTMAX, "self * (gradOutput - rowsum(gradOutput))", " (self holding leaky_relu's result)"),
        (LOG_SOFTMAX, "gradOutput - self * rowsum(gradOutput)", " (self holding leaky_relu's result)"),
    ],
)
def test_a_wrong_backward_is_named_with_the_row_and_element_where_it_differs(forward: str, wrong: str, mode) -> None:
    right = SOFTMAX_BACKWARD if forward == SOFTMAX else LOG_SOFTMAX_BACKWARD
    spec = _backward(wrong, _at(right, forward))  # wrong only where self holds the result
    [problem] = check_backward(spec, _forward(forward), "leaky_relu.yaml")
    assert problem.path == ("formula", "expr")
    found = re.search(
        r"^the formula is not the gradient times the Jacobian of leaky_relu's formula along the row "
        r"\(leaky_relu\.yaml\)"
        + re.escape(mode)
        + r": on the row gradOutput=\(([^)]*)\), self=\(([^)]*)\) \(leaky_relu's result at \(([^)]*)\)\), "
        r".*selfIsResult=True, element (\d+) is (\S+), the vector-Jacobian product's (\S+)$",
        problem.message,
    )
    assert found is not None, problem.message
    g, y, x = (np.array([float(v) for v in part.split(",") if v.strip()]) for part in found.groups()[:3])
    assert len(g) == len(y) == len(x) >= 1
    # the row shown is the one that differs: the forward's result at x, and the wrong formula's value there
    result = formula.evaluate(formula.parse(forward, {"self": formula.Symbol.tensor()}), {"self": x}, axis=-1)
    np.testing.assert_allclose(y, result, rtol=1e-15)
    element = int(found[4])
    symbols = {"self": formula.Symbol.tensor(), "gradOutput": formula.Symbol.tensor()}
    ours = formula.evaluate(formula.parse(wrong, symbols), {"self": y, "gradOutput": g}, axis=-1)
    assert float(found[5]) == pytest.approx(ours[element], rel=1e-12)
    assert float(found[5]) != pytest.approx(float(found[6]), rel=1e-7, abs=1e-10)


def test_an_elementwise_backward_of_a_reducing_forward_is_refused() -> None:
    # leaky_relu's own backward is not softmax's: with the forward reducing, the check compares rows
    spec = _spec("leaky_relu_grad", "derivative_of", "derivative_of")
    [problem] = check_backward(spec, _forward(SOFTMAX), "leaky_relu.yaml")
    assert "along the row" in problem.message and "vector-Jacobian product" in problem.message


def test_a_backward_of_a_reducing_forward_may_take_the_derived_formula() -> None:
    spec = _spec("leaky_relu_grad", ", result_flag: selfIsResult}", "}")
    derived = derived_formula_text(spec, _forward(SOFTMAX))
    assert "rowsum(" in derived
    taken = spec.model_copy(update={"formula": spec.formula.model_copy(update={"expr": derived})})
    assert check_backward(taken, _forward(SOFTMAX), "leaky_relu.yaml") == []
    rng = np.random.default_rng(0)
    x, g = rng.uniform(-4, 4, (3, 5)), rng.uniform(-4, 4, (3, 5))
    y = formula.evaluate(kernel_formula(_forward(SOFTMAX)), {"self": x, "negativeSlope": 0.0}, axis=1)
    expected = y * (g - (g * y).sum(axis=1, keepdims=True))
    ours = formula.evaluate(kernel_formula(taken), {"self": x, "gradOutput": g, "negativeSlope": 0.0}, axis=1)
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-14)


def test_precision_measures_a_reducing_formula_in_rows() -> None:
    """Before: no table for a formula reducing along dim. Its points are rows of ROW_POINTS now, each output element
    measured against its own row's float64 reference through the reduce_dim kernel's model."""
    from opgen.plan.kernel import kernel_plan
    from opgen.plan.precision import ROW_POINTS, sweep_inputs
    from opgen.spec.dtypes import DType
    from opgen.spec.loader import load_spec

    spec = load_spec(SPECS / "softmax_v2.yaml").spec
    (points,) = sweep_inputs(spec, DType.FLOAT).values()
    assert points.ndim == 2 and points.shape[1] == ROW_POINTS
    rows = {row.dtype: row for row in measure_precision(spec, kernel_plan(spec))}
    assert set(rows) == {DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE}  # DOUBLE: AICPU, in double
    assert all(row.special_mismatches == 0 and row.fail_ratio == 0 for row in rows.values())
    assert 0 < rows[DType.FLOAT].max_ulp_error < 8  # a few float roundings, not a misplaced row


def test_row_passes_cut_softmax_into_the_max_the_sum_and_the_output() -> None:
    from opgen.plan.schedules.reduce_dim import row_passes
    from opgen.spec.formula_binding import kernel_formulas

    passes = row_passes(kernel_formulas(_forward(SOFTMAX)))
    assert [[(r.name, r.op, formula.to_text(r.arg)) for r in level] for level in passes.levels] == [
        [("row0", "max", "self")],
        [("row1", "sum", "exp(self - row0)")],
    ]
    assert [(name, formula.to_text(expr)) for name, expr in passes.outputs] == [("out", "exp(self - row0) / row1")]


def test_row_passes_cut_log_of_a_row_sum_into_a_per_row_function() -> None:
    """The scalar unit cannot compute ln: log(row1) becomes a per-row function (Ln on the vector unit) computed
    after row1's level, and the outputs read it as a per-row scalar."""
    from opgen.plan.schedules.reduce_dim import RowFunction, row_passes
    from opgen.spec.formula_binding import kernel_formulas

    passes = row_passes(kernel_formulas(_forward(LOG_SOFTMAX)))
    assert [[(r.name, r.op) for r in level] for level in passes.levels] == [[("row0", "max")], [("row1", "sum")]]
    assert passes.functions == ((), (RowFunction("row2", "Ln", "row1", "log"),))
    assert [(name, formula.to_text(expr)) for name, expr in passes.outputs] == [("out", "self - row0 - row2")]


# ---------------------------------------------------------------------------------------------- per-row outputs

SCE_LOSS = "loss: -rowsum(y * (x - rowmax(x) - log(rowsum(exp(x - rowmax(x))))))"


def test_check_refuses_a_per_row_output_whose_expression_varies_along_the_row(tmp_path: Path, capsys) -> None:
    spec = copy_specs(SPECS, tmp_path, "softmax_cross_entropy_with_logits")
    edit_once(spec, SCE_LOSS, "loss: -y * rowsum(x)")
    err = _check(spec, capsys)
    line = line_of(spec.read_text(encoding="utf-8"), "loss: -y * rowsum(x)")
    assert re.search(
        rf"\.yaml:{line}:\d+: formula\.outputs\.loss: 'loss' holds one value per row: it may read tensors only inside "
        r"rowmax/rowsum",
        err,
    ), err


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("shape: {rows_of: features}", "shape: {rows_of: labels}", "params[2].shape.rows_of"),  # not the reduced one
        ("reduce_dim: {tensor: features, dim: -1}\n", "", "params[2].shape.rows_of"),  # no reduction along dim
    ],
)
def test_check_refuses_rows_of_without_the_reduced_tensor(tmp_path: Path, capsys, old, new, field) -> None:
    spec = copy_specs(SPECS, tmp_path, "softmax_cross_entropy_with_logits")
    edit_once(spec, old, new)
    err = _check(spec, capsys)
    assert f"{field}: 'rows_of' is for an output of a reduce_dim operator" in err, err
    assert "internal error" not in err


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("reduce_dim: {tensor: features, dim: -1}", "reduce_dim: {tensor: features, dim: 0}", "reduce_dim.dim -1"),
        ("\nreduce_dim:", "\nrouting: {aicpu: [DOUBLE]}\n\nreduce_dim:", "AI Core only"),
    ],
)
def test_check_refuses_a_per_row_output_off_the_rows_path(tmp_path: Path, capsys, old, new, message) -> None:
    """The columns path (a reduced dim that is not the last) and the AICPU kernel compute no per-row output."""
    spec = copy_specs(SPECS, tmp_path, "softmax_cross_entropy_with_logits")
    edit_once(spec, old, new)
    err = _check(spec, capsys)
    assert re.search(rf"params\[2\]\.shape\.rows_of: [^\n]*{message}", err), err
    assert "internal error" not in err


def test_the_reference_of_a_per_row_output_drops_the_reduced_dim() -> None:
    from opgen.spec.formula_binding import evaluate_reference
    from opgen.spec.loader import load_spec

    spec = load_spec(SPECS / "softmax_cross_entropy_with_logits.yaml").spec
    rng = np.random.default_rng(1)
    x = rng.uniform(-5, 5, (4, 7))
    y = rng.uniform(0, 1, (4, 7))
    loss = evaluate_reference(spec, {"features": x, "labels": y}, None, "loss")
    shifted = x - x.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss, -(y * log_softmax).sum(axis=1), rtol=1e-14)
    assert spec.row_shape((4, 7), {}) == (4,)


def test_check_refuses_a_per_row_output_the_scalar_unit_cannot_compute(tmp_path: Path, capsys) -> None:
    spec = copy_specs(SPECS, tmp_path, "softmax_cross_entropy_with_logits")
    edit_once(spec, SCE_LOSS, "loss: exp(rowsum(y * x) * rowmax(x))")
    err = _check(spec, capsys)
    assert "loss: exp(row0 * row1) is not computable on the scalar unit per row" in err, err
    assert "internal error" not in err


@pytest.mark.parametrize(
    ("old", "new", "param"),
    [
        # the reduced tensor itself broadcasting: the outputs take its shape, so nothing could broadcast up to it
        (
            "    formats: [ND]\n    rank: [2, 2]\n    non_contiguous: true\n    empty_tensor: true\n  - name: labels",
            "    formats: [ND]\n    rank: [2, 2]\n    non_contiguous: true\n    empty_tensor: true\n"
            "    shape: {broadcast_with: [labels]}\n  - name: labels",
            "params[0]",
        ),
        # an output: its shape follows the reduced tensor
        (
            "    shape: {same_as: features}\n    dtype: {same_as: features}",
            "    shape: {broadcast_with: [features]}\n    dtype: {same_as: features}",
            "params[3]",
        ),
    ],
)
def test_check_allows_only_another_input_broadcast_to_the_reduced_tensor(tmp_path: Path, capsys, old, new, param):
    """SCE's labels broadcast to features (`broadcast_with: [features]`, what the spec says); the reduced tensor or an
    output broadcasting is refused at its shape."""
    spec = copy_specs(SPECS, tmp_path, "softmax_cross_entropy_with_logits")
    edit_once(spec, old, new)
    err = _check(spec, capsys)
    assert f"{param}.shape: a reduce_dim operator's tensors all have the reduced tensor's shape" in err, err
    assert "internal error" not in err


@pytest.mark.parametrize("labels_shape", [(1, 7), (4, 1), (1, 1)])
def test_the_reference_broadcasts_labels_to_features(labels_shape) -> None:
    """SCE's labels broadcast to features ([1, C], [N, 1], [1, 1]): the float64 reference gives loss [N] and backprop
    [N, C], those of the expanded labels."""
    from opgen.spec.formula_binding import evaluate_reference
    from opgen.spec.loader import load_spec

    spec = load_spec(SPECS / "softmax_cross_entropy_with_logits.yaml").spec
    rng = np.random.default_rng(2)
    x = rng.uniform(-5, 5, (4, 7))
    y = rng.uniform(0, 1, labels_shape)
    expanded = np.broadcast_to(y, x.shape).copy()
    for output, shape in (("loss", (4,)), ("backprop", (4, 7))):
        got = evaluate_reference(spec, {"features": x, "labels": y}, None, output)
        want = evaluate_reference(spec, {"features": x, "labels": expanded}, None, output)
        assert np.shape(got) == shape
        np.testing.assert_array_equal(got, want)
