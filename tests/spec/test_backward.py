"""derivative_of: a backward formula is checked against the derivative of its forward formula, and may be derived."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.text import copy_specs, edit_once, line_of

from opgen import formula
from opgen.spec.diagnostics import SpecError
from opgen.spec.formula_binding import kernel_formula
from opgen.spec.loader import load_spec
from tests.conftest import ROOT

SPECS = ROOT / "specs"
PAIR = ("leaky_relu", "leaky_relu_grad")  # the pair the tests edit copies of


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    copy_specs(SPECS, tmp_path, *PAIR)
    return tmp_path / f"{PAIR[1]}.yaml"


def _problem(path: Path) -> str:
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    return str(caught.value)


def test_a_backward_beside_its_unlinked_forward_is_a_warning_of_check(tmp_path: Path, capsys) -> None:
    """Before: a test over specs/ enforced that a backward spec names its forward spec; with a user's hardtanh.yaml
    added, the shipped hardtanh_grad.yaml failed it while `opgen check` said nothing. Now `opgen check` says it,
    at the backward's api.aten line with what to add, as a warning: adding a forward spec never fails a backward."""
    from opgen.cli import main
    from opgen.spec_skeleton import render_skeleton

    # the shipped backward without its link (it names the shipped aclnnHardtanh spec, clip_by_value_v2)
    unlinked = re.sub(r"(?m)^derivative_of: .*\n", "", (SPECS / "hardtanh_grad.yaml").read_text(encoding="utf-8"))
    (tmp_path / "hardtanh_grad.yaml").write_text(unlinked, encoding="utf-8")
    forward = render_skeleton("Hardtanh", aten_name="hardtanh", folder=tmp_path)
    (tmp_path / "hardtanh.yaml").write_text(forward.replace("  expr: TODO", "  expr: min(max(self, min), max)"))
    assert main(["check", str(tmp_path), "-j", "1"]) == 0
    err = capsys.readouterr().err
    line = line_of((tmp_path / "hardtanh_grad.yaml").read_text(encoding="utf-8"), "  aten: hardtanh_backward")
    assert re.search(
        rf"hardtanh_grad\.yaml:{line}:\d+: api\.aten: warning: .*`derivative_of: {{forward: hardtanh,", err
    )
    # linked as the warning says, it is checked against the forward, and the warning is gone
    edit_once(
        tmp_path / "hardtanh_grad.yaml",
        "\nerrors:",
        "\nderivative_of: {forward: hardtanh, grad: gradOutput, input: self}\nerrors:",
    )
    assert main(["check", str(tmp_path), "-j", "1"]) == 0
    assert "warning" not in capsys.readouterr().err
    # alone, or beside specs of other ops, nothing to say
    (tmp_path / "hardtanh.yaml").unlink()
    (tmp_path / "hardtanh_grad.yaml").write_text(unlinked, encoding="utf-8")
    assert main(["check", str(tmp_path), "-j", "1"]) == 0 and "warning" not in capsys.readouterr().err


def test_a_wrong_backward_formula_is_an_error_at_its_line_naming_the_point(pair: Path) -> None:
    edit_once(
        pair,
        "where(self > 0, gradOutput, gradOutput * negativeSlope)",
        "where(self > 1, gradOutput, gradOutput * negativeSlope)",
    )
    message = _problem(pair)
    line = line_of(pair.read_text(encoding="utf-8"), "where(self > 1")
    assert re.search(
        rf"leaky_relu_grad\.yaml:{line}:\d+: formula\.expr: the formula is not the derivative of leaky_relu", message
    )
    # self is the value the backward saw: in the result mode the forward's result, with its input in parentheses
    names = r"at gradOutput=(\S+), self=([^ ,]+)(?: \(leaky_relu's result at \S+\))?, negativeSlope=(\S+), "
    point = re.search(names + r"selfIsResult=(\w+) it gives (\S+), the derivative (\S+)$", message)
    assert point is not None, message
    assert 0 < float(point[2]) <= 1  # where the edit differs, whichever mode
    assert point[5].rstrip(",") != point[6]


def test_the_result_mode_is_checked_with_the_input_holding_the_forwards_result(pair: Path) -> None:
    # Without the row refusing a negative slope for selfIsResult, y = slope * x > 0 for x < 0 takes the wrong branch.
    text = pair.read_text(encoding="utf-8")
    start = text.index("  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {reject_if:")
    end = text.index("  - status:", start + 1)
    pair.write_text(text[:start] + text[end:], encoding="utf-8")
    message = _problem(pair)
    assert "(self holding leaky_relu's result)" in message
    assert re.search(r"negativeSlope=-0\.3, selfIsResult=True", message), message


def test_a_backward_may_take_the_derived_formula(pair: Path) -> None:
    written = load_spec(pair).spec
    edit_once(pair, "  expr: where(self > 0, gradOutput, gradOutput * negativeSlope)\n", "")
    edit_once(pair, ", result_flag: selfIsResult}", "}")
    derived = load_spec(pair).spec
    assert derived.formula.expr and derived.formula.expr != written.formula.expr
    x = np.array([-3.0, -1e-300, -0.0, 0.0, 1e-300, 2.5, np.inf, -np.inf, np.nan])
    env = {"self": x, "gradOutput": np.full_like(x, 1.5), "negativeSlope": 0.2}
    ours = formula.evaluate(kernel_formula(derived), env)
    theirs = formula.evaluate(kernel_formula(written), env)
    np.testing.assert_array_equal(ours[1:-1], theirs[1:-1])  # equal where the derivative is defined


def test_a_result_mode_backward_must_write_its_formula(pair: Path) -> None:
    edit_once(pair, "  expr: where(self > 0, gradOutput, gradOutput * negativeSlope)\n", "")
    assert "a backward taking the forward's result needs its formula written" in _problem(pair)


def test_a_missing_forward_spec_is_named(pair: Path) -> None:
    (pair.parent / "leaky_relu.yaml").unlink()
    line = line_of(pair.read_text(encoding="utf-8"), "derivative_of:")
    assert re.search(
        rf":{line}:\d+: derivative_of\.forward: no forward spec leaky_relu\.yaml beside this one", _problem(pair)
    )


def test_a_forward_parameter_without_a_counterpart_is_named(pair: Path) -> None:
    edit_once(pair, "result_flag: selfIsResult}", "result_flag: selfIsResult, params: {negativeSlope: selfIsResult}}")
    assert "derivative_of.params: the forward's scalar 'negativeSlope' has no scalar of that name here" in _problem(
        pair
    )


def test_a_derivative_cycle_is_an_error(pair: Path) -> None:
    edit_once(pair, "forward: leaky_relu,", "forward: leaky_relu_grad,")
    assert "derivative_of forms a cycle" in _problem(pair)


def test_editing_the_forward_spec_rebuilds_the_backward_one(pair: Path, tmp_path: Path) -> None:
    """The backward's build reads the forward spec, so its cache key holds the forward's bytes."""
    from opgen.build import SpecInput, _key

    item = SpecInput(pair, f"specs/{pair.name}", pair.name)
    before = _key(item)
    edit_once(pair.parent / "leaky_relu.yaml", "self * negativeSlope", "self * negativeSlope * 2")
    assert _key(item) != before
    with pytest.raises(SpecError, match="not the derivative of leaky_relu"):
        load_spec(pair)


@pytest.fixture
def gelu_pair(tmp_path: Path) -> Path:
    """GeluBackwardV2's string approximate ("none" | "tanh") against GeluV2's int64 one (0 | 1)."""
    copy_specs(SPECS, tmp_path, "gelu_v2", "gelu_grad_v2")
    return tmp_path / "gelu_grad_v2.yaml"


def test_mode_values_are_translated_between_forward_and_backward(gelu_pair: Path) -> None:
    assert load_spec(gelu_pair).spec.derivative_of is not None  # the real mapping passes
    edit_once(gelu_pair, "values: {approximate: {0: none, 1: tanh}}", "values: {approximate: {0: tanh, 1: none}}")
    message = _problem(gelu_pair)
    line = line_of(gelu_pair.read_text(encoding="utf-8"), "expr: >-")
    assert re.search(
        rf"gelu_grad_v2\.yaml:{line}:\d+: formula\.expr: the formula is not the derivative of gelu_v2", message
    )
    assert "approximate='none'" in message or "approximate='tanh'" in message


def test_a_mode_value_unknown_to_either_side_is_named(gelu_pair: Path) -> None:
    edit_once(gelu_pair, "{0: none, 1: tanh}", "{0: none, 1: tan}")
    assert "derivative_of.values.approximate.1: 'tan' is not one of 'approximate''s values (none, tanh)" in _problem(
        gelu_pair
    )
    edit_once(gelu_pair, "{0: none, 1: tan}", "{0: none, 2: tanh}")
    assert "'2' is not one of the forward's 'approximate' values (0, 1)" in _problem(gelu_pair)


def test_another_forward_input_maps_to_the_backward_input_of_that_name(tmp_path: Path) -> None:
    """PRelu's derivative reads weight too: the backward's weight stands for it (before: 'has no counterpart')."""
    copy_specs(SPECS, tmp_path, "p_relu", "p_relu_grad_update")
    backward = tmp_path / "p_relu_grad_update.yaml"
    assert load_spec(backward).spec.derivative_of is not None
    edit_once(
        backward,
        "gradInput: where(self > 0, gradOutput, weight * gradOutput)",
        "gradInput: where(self > 0, gradOutput, gradOutput)",
    )
    message = _problem(backward)
    assert "the formula is not the derivative of p_relu's formula" in message
    point = re.search(r"weight=(\S+), self=(\S+)|self=(\S+), weight=(\S+)", message)
    assert point is not None, message


def test_the_result_mode_names_the_value_the_backward_saw(tmp_path: Path) -> None:
    """Before: `output=-1.38` was the forward's input, while the values shown were those at output = f(-1.38)."""
    copy_specs(SPECS, tmp_path, "sigmoid", "sigmoid_grad")
    backward = tmp_path / "sigmoid_grad.yaml"
    edit_once(backward, "expr: gradOutput * output * (1 - output)", "expr: gradOutput * output * (1 - output) * 1.5")
    message = _problem(backward)
    point = re.search(
        r"at gradOutput=(\S+), output=(\S+) \(sigmoid's result at (\S+)\) it gives (\S+), the derivative (\S+)$",
        message,
    )
    assert point is not None, message
    grad, output, x, gives, derivative = (float(point[i].rstrip(",")) for i in range(1, 6))
    assert output == pytest.approx(1 / (1 + np.exp(-x)), rel=1e-12)
    assert gives == pytest.approx(grad * output * (1 - output) * 1.5, rel=1e-12)  # the written formula at output
    assert derivative == pytest.approx(grad * output * (1 - output), rel=1e-12)


@pytest.fixture
def glu_pair(tmp_path: Path) -> Path:
    copy_specs(SPECS, tmp_path, "glu", "glu_grad")
    return tmp_path / "glu_grad.yaml"


HALVES = "halves: [gradOut * s, (1 - s) * s * a * gradOut]"


@pytest.mark.parametrize(
    "halves,index,half",
    [
        ("halves: [gradOut * s, gradOut * s * (a - s)]", 1, "b"),  # the second half wrong
        ("halves: [gradOut * (1 - s), (1 - s) * s * a * gradOut]", 0, "a"),  # the first half wrong
    ],
)
def test_a_half_split_backward_is_checked_per_half_naming_the_half_and_point(
    glu_pair: Path, halves: str, index: int, half: str
) -> None:
    """GluBackward writes one full-size gradient per half of self: its first half must be gradOut times d glu / d a,
    its second gradOut times d glu / d b. The shipped spec passes; a wrong half is an error at that half's expression
    naming the half, the forward's half it is differentiated by, and the point."""
    load_spec(glu_pair)  # the shipped halves are the derivative
    edit_once(glu_pair, HALVES, halves)
    message = _problem(glu_pair)
    line = line_of(glu_pair.read_text(encoding="utf-8"), halves)
    ordinal = ("first", "second")[index]
    assert re.search(
        rf"glu_grad\.yaml:{line}:\d+: formula\.outputs\.out\.halves\[{index}\]: the {ordinal} half of 'out' is not "
        rf"the gradient times the derivative of glu's formula \(glu\.yaml\) with respect to its {ordinal} half "
        rf"'{half}' \({half} here\): at ",
        message,
    ), message
    point = re.search(r"gradOut=(\S+), dim=-1 it gives (\S+), the derivative (\S+)$", message)
    assert point is not None and point[2].rstrip(",") != point[3], message


def test_a_backward_of_a_half_split_forward_must_write_its_gradient_per_half(glu_pair: Path) -> None:
    edit_once(glu_pair, "  outputs:\n    out:\n      " + HALVES, "  output: out\n  expr: gradOut * s")
    edit_once(
        glu_pair,
        "out: {shape: [2, 4], dtype: FLOAT, data: [0, 0, 0, 0, 0, 0, 0, 0]}",
        "out: {shape: [2, 2], dtype: FLOAT, data: [0, 0, 0, 0]}",
    )
    message = _problem(glu_pair)
    assert "derivative_of: a backward of a half-split forward writes its gradient per half" in message, message


FIXTURES = ROOT / "tests" / "fixtures" / "half_split"
SWAP_HALVES = "halves: [gradOut * s, gradOut * a * s * (1 - s)]"


@pytest.fixture
def glu_swap_pair(tmp_path: Path) -> Path:
    copy_specs(FIXTURES, tmp_path, "glu_swap", "glu_swap_grad")
    return tmp_path / "glu_swap_grad.yaml"


def test_a_half_split_backward_with_swap_when_is_checked_for_each_value_of_the_flag(glu_swap_pair: Path) -> None:
    """Before: any swap_when made the check refuse the pair ("not checked yet"). The kernel reads a formula's half k
    from, and writes an output's half k to, where the split tensor's half k lies: forward and backward swapping on
    the same flag, the backward's half k is the derivative with respect to the forward's half k, for either value."""
    load_spec(glu_swap_pair)
    # the halves in the other order are wrong for either value of the flag: named at the first half
    edit_once(glu_swap_pair, SWAP_HALVES, "halves: [gradOut * a * s * (1 - s), gradOut * s]")
    message = _problem(glu_swap_pair)
    assert "the first half of 'out' is not the gradient times the derivative of glu_swap's formula" in message
    assert "with respect to its first half 'a' (a here)" in message, message


def test_a_backward_not_swapping_with_its_forward_differentiates_the_other_half_when_the_flag_holds(
    glu_swap_pair: Path,
) -> None:
    """Only the forward swaps: with swapHalves true the forward's a lies in self's second half, where this spec's b
    is, so the backward's first half (written first, unswapped) must be the derivative with respect to the forward's
    b. The formula right for swapHalves false is refused at swapHalves=True, naming that half."""
    edit_once(glu_swap_pair, "swap_when: swapHalves}", "}")
    message = _problem(glu_swap_pair)
    assert re.search(
        r"the first half of 'out' is not the gradient times the derivative of glu_swap's formula \(glu_swap\.yaml\) "
        r"with respect to its second half 'b' \(a here\): at .*swapHalves=True",
        message,
    ), message


def test_the_forwards_swap_flag_must_stand_for_a_flag_of_the_backward(glu_swap_pair: Path) -> None:
    """Which half lies where depends on the forward's flag: a backward without a parameter for it cannot be checked."""
    text = glu_swap_pair.read_text(encoding="utf-8")
    text = text.replace("swapHalves", "flipHalves")
    glu_swap_pair.write_text(text, encoding="utf-8")
    message = _problem(glu_swap_pair)
    assert "the forward's bool 'swapHalves' has no bool of that name here; map it in derivative_of.params" in message
    edit_once(glu_swap_pair, "input: self}", "input: self, params: {swapHalves: flipHalves}}")
    load_spec(glu_swap_pair)


@pytest.fixture
def geglu_pair(tmp_path: Path) -> Path:
    copy_specs(SPECS, tmp_path, "ge_glu_v2", "ge_glu_grad_v2")
    return tmp_path / "ge_glu_grad_v2.yaml"


def _problems(path: Path) -> str:
    from opgen.spec.loader import load_spec_documents

    with pytest.raises(SpecError) as caught:
        load_spec_documents(path)
    return str(caught.value)


def test_a_saved_forward_output_stands_for_its_formula(geglu_pair: Path) -> None:
    """GeGluBackward's gelu holds GeGlu's outGelu (derivative_of.saved): the first half, gradOutput * gelu, is the
    gradient times d(A * gelu(B)) / dA with gelu(B) in gelu's place, for either activateLeft; a first half that
    does not use it as the forward's gelu is refused there, and `saved` must name an output of the forward."""
    from opgen.spec.loader import load_spec_documents

    assert len(load_spec_documents(geglu_pair)) == 2
    edit_once(
        geglu_pair,
        "halves: [gradOutput * gelu, gradOutput * A * dg]",
        "halves: [gradOutput * gelu * 2, gradOutput * A * dg]",
    )
    message = _problems(geglu_pair)
    assert "the first half of 'gradInput' is not the gradient times the derivative of ge_glu_v2's formula" in message
    assert "with respect to its first half 'A' (A here)" in message, message
    edit_once(
        geglu_pair,
        "halves: [gradOutput * gelu * 2, gradOutput * A * dg]",
        "halves: [gradOutput * gelu, gradOutput * A * dg]",
    )
    edit_once(geglu_pair, "saved: {gelu: outGelu}}", "saved: {gelu: y}}")
    assert "derivative_of.saved.gelu: 'y' is not an output ge_glu_v2 computes (one of: out, outGelu)" in _problems(
        geglu_pair
    )
