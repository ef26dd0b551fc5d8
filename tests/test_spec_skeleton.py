"""`opgen new`: the skeleton follows aten's schema, `opgen check` points at what is left to write, and once the
TODOs are filled in the spec validates, plans and binds like aten."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from spec_list import loaded

from opgen import formula as F
from opgen.build import check_spec_text
from opgen.cli import main
from opgen.lang.data import yaml_text
from opgen.spec import aten
from opgen.spec.diagnostics import SpecError
from opgen.spec.formula_binding import formula_symbols, kernel_formula
from opgen.spec.loader import load_spec_text
from opgen.spec_skeleton import SkeletonError, default_api_name, render_skeleton

ROOT = Path(__file__).resolve().parents[1]


def _fill_formula(text: str, expr: str) -> str:
    return text.replace("  expr: TODO\n", f"  expr: {yaml_text(expr)}\n")


def test_the_only_error_of_a_fresh_skeleton_is_its_formula():
    text = render_skeleton("LeakyRelu", aten_name="leaky_relu")
    with pytest.raises(SpecError) as caught:
        check_spec_text(text, "leaky_relu.yaml")
    (problem,) = caught.value.diagnostics
    line = text.splitlines().index("  expr: TODO") + 1
    assert problem.location.line == line and str(problem).split(": ")[1] == "formula.expr", str(problem)
    assert "TODO" in problem.message


# `opgen new --aten NAME` starts from aten's schema: the specs of operators aten has
@pytest.mark.parametrize(
    "real",
    # `opgen new` starts one-output specs (an op returning several tensors, log_sigmoid_forward, is hand-made)
    [
        s
        for _, s in loaded()
        if s.api.aten in aten.known_names() and sum(p.direction.value == "output" for p in s.params) == 1
    ],
    ids=lambda s: s.api.name,
)
def test_a_filled_skeleton_binds_like_aten(real):
    """The real specs' OpType, API, aten name and formula through `opgen new`: the plan's binding has aten's name,
    argument order and defaults, the API has the real spec's input names, and the output binds as aten's out
    argument (its aclnn name is ops-nn's choice: `out` for aclnnLeakyReluBackward, `gradInput` elsewhere). The
    skeleton cannot know ops-nn's C names (aten's `grad_out` is ops-nn's `gradOutput`): those are the spec writer's."""
    if real.api.aten is None or aten.aten_op(real.api.aten) is None:
        pytest.skip(f"{real.api.name} has no aten counterpart: `opgen new` has no schema to start from")
    if real.formula.per_half:
        pytest.skip(f"{real.api.name} writes its gradient per half: a skeleton's formula is one expression")
    text = render_skeleton(real.operator.type, aten_name=real.api.aten, api_name=real.api.name)
    filled = yaml.safe_load(text)
    # The real formula over the skeleton's names (the inputs correspond by position).
    real_inputs = [p for p in real.params if p.direction.value == "input"]
    skeleton_inputs = [p for p in filled["params"] if p.get("direction", "input") == "input"]
    symbols = formula_symbols(real)
    names = {a.name: b["name"] for a, b in zip(real_inputs, skeleton_inputs, strict=False)}
    # a split tensor is no formula name: its halves are (named by the split section, which no skeleton has)
    renamed = {
        real_name: F.Name(name, symbols[real_name].kind) for real_name, name in names.items() if real_name in symbols
    }
    expr = F.to_text(F.substitute(kernel_formula(real), renamed))
    filled["formula"] = {"output": filled["params"][-1]["name"], "expr": expr}
    if real.split is not None:
        dim = real.split.dim
        filled["split"] = {
            "tensor": names[real.split.tensor],
            "dim": names[dim] if isinstance(dim, str) else dim,
            "halves": list(real.split.halves),
        }
        # and each tensor's shape follows the split, not a skeleton's same_as; the example's shapes are the real one's
        for param in filled["params"]:
            param.pop("shape", None)
        filled["example"]["tensors"] = {
            names.get(name, filled["params"][-1]["name"]): {
                "shape": list(t.shape),
                "dtype": t.dtype.value,
                "data": list(t.data),
            }
            for name, t in real.example.tensors.items()
        }
    # the dtypes computed in float are the real spec's, as its writer chose them for `opgen check`'s precision rule
    filled["kernel"]["compute_in_float"] = [d.value for d in real.kernel.compute_in_float]
    plan = check_spec_text(
        yaml.safe_dump(filled, allow_unicode=True, sort_keys=False), f"{real.operator.file_stem}.yaml"
    )
    schema = aten.aten_op(real.api.aten).functional
    assert plan.spec.api.name == real.api.name
    inputs = [p for p in plan.spec.params if p.direction.value == "input"]
    # an argument without a parameter kind (rrelu's generator) is one the API leaves out, as the real spec does
    assert plan.spec.api.aten_unused == real.api.aten_unused
    assert [p.python for p in inputs] == [a.name for a in schema.args if a.name not in real.api.aten_unused]
    assert len(inputs) == len([p for p in real.params if p.direction.value == "input"])
    out_arg = aten.aten_op(real.api.aten).out
    (output,) = plan.spec.outputs
    if out_arg:  # without an out overload the output's Python name is never a keyword
        assert output.python == out_arg.out_args[0].name
    assert plan.bindings[0] == real.api.aten
    for param, arg in zip(inputs, [a for a in schema.args if a.name not in real.api.aten_unused], strict=True):
        if arg.default is not None and param.kind.value == "scalar":
            assert param.default == float(arg.default)


def test_in_place_variant_where_aten_has_one():
    spec = yaml.safe_load(render_skeleton("Selu", aten_name="selu"))
    assert spec["api"]["inplace"] == {
        "name": "aclnnInplaceSelu",
        "param": "selfRef",
        "replaces": ["self", "out"],
        "aten": "selu_",
    }
    assert "inplace" not in yaml.safe_load(render_skeleton("MishGrad", aten_name="mish_backward"))["api"]


def test_backward_output_takes_atens_out_argument_name():
    spec = yaml.safe_load(render_skeleton("GeluGrad", aten_name="gelu_backward"))
    output = spec["params"][-1]
    assert output["name"] == "gradInput" and output["direction"] == "output"
    # aten's `str approximate` is a string parameter (see test_int_and_str_arguments_become_int64_and_string_params)
    approximate = next(p for p in spec["params"] if p["name"] == "approximate")
    assert approximate["kind"] == "string"


def test_default_api_names_follow_ops_nn():
    assert default_api_name("LeakyReluGrad") == "aclnnLeakyReluBackward"
    assert default_api_name("EluGradV2") == "aclnnEluBackward"
    assert default_api_name("Selu") == "aclnnSelu"


@pytest.mark.parametrize(
    "args,message",
    [
        (("leaky_relu",), "CamelCase"),
        (("LeakyRelu", "leaky_reluu"), "similar: leaky_relu"),
        (("LeakyRelu", None, "aclnn leaky"), "aclnn API name"),
    ],
)
def test_bad_requests_are_clear_errors(args, message):
    op_type, aten_name, api = (*args, None, None)[:3]
    with pytest.raises(SkeletonError, match=re.escape(message)):
        render_skeleton(op_type, aten_name=aten_name, api_name=api)


def test_cli_writes_once_and_refuses_to_overwrite(tmp_path, capsys):
    assert main(["new", "Selu", "--aten", "selu", "-o", str(tmp_path)]) == 0
    written = tmp_path / "selu.yaml"
    assert written.read_text(encoding="utf-8") == render_skeleton("Selu", aten_name="selu")
    assert "算子功能" in written.read_text(encoding="utf-8")  # readable Chinese, not \u escapes
    assert main(["new", "Selu", "--aten", "selu", "-o", str(tmp_path)]) == 1
    assert "exists" in capsys.readouterr().err
    assert main(["new", "Selu", "--aten", "selu", "-o", str(tmp_path), "--force"]) == 0
    assert main(["check", str(tmp_path)]) == 1  # the formula is still TODO
    assert "formula.expr" in capsys.readouterr().err


def test_an_operator_without_aten_counterpart(tmp_path):
    text = render_skeleton("AddRelu", aten_name="")
    spec = yaml.safe_load(text)
    assert "aten" not in spec["api"]
    plan = check_spec_text(_fill_formula(text, "max(self, 0)"), "add_relu.yaml")
    assert plan.bindings[0] == "add_relu"


def test_int_and_str_arguments_become_int64_and_string_params():
    """aten's `str approximate="none"` (keyword-only) and `int dim=-1` get parameter kinds, not `kind: TODO`; the
    string is null-checked and value-checked, and the binding keeps aten's keyword-only order."""
    from opgen.emit.python import python_functions

    text = render_skeleton("GeluGradV2", aten_name="gelu_backward")
    assert "kind: TODO" not in text
    spec_text = _fill_formula(text, "gradOutput * self")
    plan = check_spec_text(spec_text, "gelu_grad_v2.yaml")
    approximate = plan.spec.param("approximate")
    assert approximate.kind.value == "string" and approximate.keyword_only and approximate.default == "none"
    kinds = {row.check.kind: row.check.names() for row in plan.spec.errors}
    assert "approximate" in kinds["not_null"] and kinds["one_of"] == ["approximate"]
    (function,) = python_functions(plan)
    assert [str(a.name) for a in function.kwargs] == ["approximate"]
    assert [a.name for a in aten.aten_op("gelu_backward").functional.args if a.kwarg_only] == ["approximate"]

    glu = _fill_formula(render_skeleton("Glu", aten_name="glu"), "self")
    dim = check_spec_text(glu, "glu.yaml").spec.param("dim")
    assert dim.kind.value == "int64" and dim.default == -1 and not dim.keyword_only


def test_an_op_returning_several_tensors_gets_one_formula_per_output():
    # Before: refused ("several outputs need a hand-made spec"). aten names the outputs in its out overload.
    text = render_skeleton("LogSigmoidForward", aten_name="log_sigmoid_forward")
    with pytest.raises(SpecError) as caught:
        check_spec_text(text, "log_sigmoid_forward.yaml")
    lines = text.splitlines()
    where = {str(p).split(": ")[1]: p.location.line for p in caught.value.diagnostics}
    assert where == {
        "formula.outputs.output": lines.index("    output: TODO") + 1,
        "formula.outputs.buffer": lines.index("    buffer: TODO") + 1,
    }
    filled = text.replace("    output: TODO", "    output: -softplus(-self)")
    filled = filled.replace("    buffer: TODO", "    buffer: exp(-abs(self))")
    spec = load_spec_text(filled, "log_sigmoid_forward.yaml").spec  # a valid spec (the plan decides the kernel)
    schema = aten.aten_op("log_sigmoid_forward").out
    assert [p.python for p in spec.outputs] == [a.name for a in schema.out_args]


# torch.nn.functional's activations over aten's unary and binary ops, forward before backward: (OpType, aten op,
# formula). A backward's formula None takes the derived one (derivative_of with no expr); those handed the forward's
# result write theirs. rrelu's `Generator?` goes to api.aten_unused (before, it was a parameter of `kind: TODO`);
# rrelu_with_noise is left out: it writes into its input `noise`.
ACTIVATIONS = [
    ("Tanh", "tanh", "tanh(self)"),
    ("TanhGrad", "tanh_backward", "gradOutput * (1 - output * output)"),
    ("Hardtanh", "hardtanh", "min(max(self, minVal), maxVal)"),
    ("HardtanhGrad", "hardtanh_backward", None),
    ("Relu", "relu", "max(self, 0)"),
    ("Relu6", "relu6", "min(max(self, 0), 6)"),
    ("Elu", "elu", "where(self > 0, scale * self, scale * alpha * (exp(self * inputScale) - 1))"),
    (
        "EluGrad",
        "elu_backward",
        "where(selfOrResult > 0, gradOutput * scale, gradOutput * inputScale * where(isResult, selfOrResult + "
        "scale * alpha, scale * alpha * exp(selfOrResult * inputScale)))",
    ),
    ("Celu", "celu", "where(self > 0, self, alpha * (exp(self / alpha) - 1))"),
    ("Selu", "selu", "1.0507009873554805 * where(self > 0, self, 1.6732632423543772 * (exp(self) - 1))"),
    ("Gelu", "gelu", "0.5 * self * (1 + erf(self * 0.7071067811865476))"),
    ("GeluGrad", "gelu_backward", None),
    ("Silu", "silu", "self * sigmoid(self)"),
    ("SiluGrad", "silu_backward", None),
    ("Mish", "mish", "self * tanh(softplus(self))"),
    ("MishGrad", "mish_backward", None),
    ("Hardsigmoid", "hardsigmoid", "min(max(self / 6 + 0.5, 0), 1)"),
    ("HardsigmoidGrad", "hardsigmoid_backward", None),
    ("Hardswish", "hardswish", "self * min(max(self + 3, 0), 6) / 6"),
    ("HardswishGrad", "hardswish_backward", None),
    ("LeakyRelu", "leaky_relu", "where(self > 0, self, self * negativeSlope)"),
    ("Rrelu", "rrelu", "where(self > 0, self, self * ((lower + upper) / 2))"),
    ("LeakyReluGrad", "leaky_relu_backward", "where(self > 0, gradOutput, gradOutput * negativeSlope)"),
    ("Softplus", "softplus", "where(self * beta > threshold, self, softplus(self * beta) / beta)"),
    ("SoftplusGrad", "softplus_backward", None),
    ("Softshrink", "softshrink", "where(self > lambd, self - lambd, where(self < -lambd, self + lambd, 0))"),
    ("SoftshrinkGrad", "softshrink_backward", None),
    ("Hardshrink", "hardshrink", "where(abs(self) > lambd, self, 0)"),
    ("HardshrinkGrad", "hardshrink_backward", None),
    ("LogSigmoid", "log_sigmoid", "-softplus(-self)"),
    ("LogSigmoidGrad", "log_sigmoid_backward", None),
    ("Sigmoid", "sigmoid", "sigmoid(self)"),
    ("SigmoidGrad", "sigmoid_backward", "gradOutput * output * (1 - output)"),
    ("Threshold", "threshold", "where(self > threshold, self, value)"),
    ("ThresholdGrad", "threshold_backward", None),
    ("Glu", "glu", "self * sigmoid(self)"),  # not elementwise in aten: any valid formula serves here
    ("GluGrad", "glu_backward", None),
    ("Prelu", "prelu", "where(self > 0, self, weight * self)"),
]


def test_every_activation_skeleton_passes_check_once_its_formula_is_written(tmp_path):
    """Before: `opgen new Tanh --aten tanh` could never pass (its kernel entry 'tanh' is a libm name), a backward
    skeleton had no derivative_of, and TODO texts were values that reached the docs."""
    for op_type, aten_name, expr in ACTIVATIONS:
        assert main(["new", op_type, "--aten", aten_name, "-o", str(tmp_path), "-q"]) == 0
        path = next(p for p in tmp_path.glob("*.yaml") if f"  type: {op_type}\n" in p.read_text(encoding="utf-8"))
        text = path.read_text(encoding="utf-8")
        if aten_name.endswith("_backward"):
            assert "\nderivative_of: {forward: " in text, text  # linked: its forward's spec is in the folder
        text = _fill_formula(text, expr) if expr else text.replace("  expr: TODO\n", "")
        path.write_text(text, encoding="utf-8")
        try:
            check_spec_text(text, path.name, tmp_path)
        except SpecError as exc:
            pytest.fail(f"{op_type}:\n{exc}")
    assert main(["check", str(tmp_path), "-q", "-j", "1"]) == 0


def test_a_backward_without_aten_gets_its_gradient_and_a_link(tmp_path):
    """Before: `--aten ''` of a ...Grad operator had `self` and `out` only, no gradient input, no derivative_of."""
    forward = _fill_formula(render_skeleton("SquarePlus", aten_name=""), "(self + sqrt(self * self + 4)) / 2")
    (tmp_path / "square_plus.yaml").write_text(forward, encoding="utf-8")
    text = render_skeleton("SquarePlusGrad", aten_name="", folder=tmp_path)
    spec = yaml.safe_load(text)
    assert [(p["name"], p.get("direction", "input")) for p in spec["params"]] == [
        ("gradOutput", "input"),
        ("self", "input"),
        ("gradInput", "output"),
    ]
    assert spec["derivative_of"] == {"forward": "square_plus", "grad": "gradOutput", "input": "self"}
    (tmp_path / "square_plus_grad.yaml").write_text(text.replace("  expr: TODO\n", ""), encoding="utf-8")
    assert main(["check", str(tmp_path), "-q", "-j", "1"]) == 0
    # without its forward's spec in the folder, the link is a comment saying what to do
    alone = render_skeleton("SquarePlusGrad", aten_name="")
    assert "derivative_of" not in yaml.safe_load(alone) and "# derivative_of: {forward: square_plus" in alone


def test_a_skeleton_follows_the_spelling_of_the_specs_in_its_folder():
    """Before: hardtanh's bounds were minVal/maxVal where the shipped specs spell them otherwise (hardtanh_grad's
    min/max, aclnnHardtanh's clipValueMin/clipValueMax): the skeleton takes a spelling the folder uses."""
    folder_names = {p.name for _, s in loaded() for p in s.params}
    spec = yaml.safe_load(render_skeleton("Hardtanh", aten_name="hardtanh", folder=ROOT / "specs"))
    bounds = {p.get("py_name"): p["name"] for p in spec["params"] if p.get("py_name") in ("min_val", "max_val")}
    assert set(bounds) == {"min_val", "max_val"} and set(bounds.values()) <= folder_names, bounds
    assert "minVal" not in bounds.values()
    alone = yaml.safe_load(render_skeleton("Hardtanh", aten_name="hardtanh"))
    assert [p["name"] for p in alone["params"]][:3] == ["self", "minVal", "maxVal"]


def test_an_output_spelling_does_not_rename_an_input(tmp_path):
    """Before: in the shipped specs' folder, tanh_backward's input `output` became `out` (log_sigmoid's output says
    `py_name: output`), which the generated kernel and L0 op also call their output: `opgen check` now refuses it
    (tests/spec/test_names.py), and the build did not compile."""
    for spec in (ROOT / "specs").glob("*.yaml"):
        (tmp_path / spec.name).write_text(spec.read_text(encoding="utf-8"), encoding="utf-8")
    tanh = _fill_formula(render_skeleton("Tanh", aten_name="tanh", folder=tmp_path), "tanh(self)")
    (tmp_path / "tanh.yaml").write_text(tanh, encoding="utf-8")
    text = render_skeleton("TanhGrad", aten_name="tanh_backward", folder=tmp_path)
    spec = yaml.safe_load(text)
    assert [p["name"] for p in spec["params"]] == ["gradOutput", "output", "gradInput"]
    assert spec["derivative_of"]["input"] == "output"
    filled = _fill_formula(text, "gradOutput * (1 - output * output)")
    check_spec_text(filled, "tanh_grad.yaml", tmp_path)


def test_a_kernel_entry_clash_names_the_field_and_the_value_that_work(tmp_path):
    """Before: "operator.dir 'tanh' names the kernel's entry function ... libm name", and `stem` did not help."""
    text = _fill_formula(render_skeleton("Tanh", aten_name="tanh"), "tanh(self)")
    bare = text.replace("  stem: tanh_op\n", "")
    assert bare != text
    with pytest.raises(SpecError, match=r"operator\.dir: .*libm.*set `stem: tanh_op` under operator") as caught:
        check_spec_text(bare, "tanh.yaml")
    (problem,) = caught.value.diagnostics
    assert problem.location.line == bare.splitlines().index("  dir: tanh") + 1
    plan = check_spec_text(bare.replace("  dir: tanh\n", "  dir: tanh\n  stem: tanh_op\n"), "tanh.yaml")
    assert plan.kernel_entry == "tanh_op" and plan.spec.operator.dir == "tanh"
    with pytest.raises(SpecError, match=r"operator\.stem: operator\.stem 'exp' .*libm"):
        check_spec_text(bare.replace("  dir: tanh\n", "  dir: tanh\n  stem: exp\n"), "tanh.yaml")
