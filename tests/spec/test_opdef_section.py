"""The spec's `opdef` section: mistakes reported at their file:line, and what a valid one makes the package do."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from spec_list import GENERATED, SPEC_DIR
from support.text import line_of

from opgen.build import check_spec_text, render_operator
from opgen.spec.diagnostics import SpecError


@dataclass(frozen=True)
class Case:
    id: str
    spec: str
    old: str  # text of the real spec the mistake replaces
    new: str
    marker: str  # text on the line the diagnostic must point at
    fragment: str  # part of the message


CASES = [
    Case(
        "input-names-no-tensor",
        "mish_grad.yaml",
        "{name: x, param: self}",
        "{name: x, param: slef}",
        "{name: x, param: slef}",
        "'slef' is not a tensor input or a scalar (did you mean 'self'?)",
    ),
    Case(
        "input-read-by-kernel-left-out",
        "sigmoid_grad.yaml",
        "    - {name: dy, param: gradOutput}\n",
        "",
        "  inputs:",
        "the kernel reads 'gradOutput'",
    ),
    Case(
        "input-without-param-must-be-optional",
        "mish_grad.yaml",
        "{name: tanhx, optional: true}",
        "{name: tanhx}",
        "{name: tanhx}",
        "declare it 'optional: true'",
    ),
    Case(
        "input-named-twice-with-opdef-name",
        "logsigmoid_grad.yaml",
        "  - name: self\n",
        "  - name: self\n    opdef_name: feats\n",
        "{name: features, param: self}",
        "has an opdef_name; name it here only",
    ),
    Case(
        "unread-input-repeats-a-read-tensor",
        "swish_grad.yaml",
        "{name: x, param: self}",
        "{name: x, param: gradOutput}",
        "{name: y, param: self, read: false}",
        "an unread input repeats a tensor a read input carries; none carries 'self'",
    ),
    Case(
        "unread-input-names-its-tensor",
        "gelu_grad.yaml",
        "{name: y, param: gradOutput, read: false}",
        "{name: y, optional: true, read: false}",
        "{name: y, optional: true, read: false}",
        "names the tensor the L0 op fills it with",
    ),
    Case(
        "read-input-carried-twice",
        "gelu_grad.yaml",
        "{name: y, param: gradOutput, read: false}",
        "{name: y, param: gradOutput}",
        "{name: y, param: gradOutput}",
        "'gradOutput' is carried twice",
    ),
    Case(
        "outputs-in-order",
        "sigmoid_grad.yaml",
        "    - {name: z, param: gradInput}\n",
        "    - {name: z, param: gradOutput}\n",
        "{name: z, param: gradOutput}",
        "is not a computed output",
    ),
    Case(
        "scalar-input-is-read",
        "threshold.yaml",
        "{name: value, param: value, optional: true}",
        "{name: value, param: value, optional: true, read: false}",
        "{name: value, param: value, optional: true, read: false}",
        "the kernel reads a scalar carried as a tensor",
    ),
    Case(
        "scalar-input-not-an-attribute-too",
        "threshold.yaml",
        "    - {name: value, param: value, optional: true}\n",
        "    - {name: value, param: value, optional: true}\n  attrs:\n    - {name: value_attr, param: value}\n",
        "{name: value_attr, param: value}",
        "opdef.inputs carries 'value' as a tensor; an attribute cannot carry it too",
    ),
    Case(
        "scalar-input-carried-twice",
        "threshold.yaml",
        "{name: value, param: value, optional: true}",
        "{name: value, param: threshold, optional: true}",
        "{name: value, param: threshold, optional: true}",
        "'threshold' is carried twice",
    ),
    Case(
        "optional-scalar-not-an-input",
        "swish.yaml",
        "  attrs:\n    - {name: scale, param: betaOptional, default: 1.0}\n",
        "  inputs:\n    - {name: x, param: self}\n    - {name: scale, param: betaOptional}\n",
        "{name: scale, param: betaOptional}",
        "'betaOptional' may be a null pointer (null_default): carry it as an attribute",
    ),
    Case(
        "input-carries-no-bool",
        "elu_grad_v2.yaml",
        "  attrs:\n    - {name: alpha, param: alpha, default: 1.0}\n",
        "  inputs:\n    - {name: grads, param: isResult}\n  attrs:\n    - {name: alpha, param: alpha, default: 1.0}\n",
        "{name: grads, param: isResult}",
        "'isResult' is a bool parameter: an input carries a tensor input or a scalar",
    ),
    Case(
        "attr-kind-fits-param",
        "leaky_relu.yaml",
        "{name: negative_slope, param: negativeSlope, default: 0.0}",
        "{name: negative_slope, param: negativeSlope, kind: Int, default: 0}",
        "kind: Int, default: 0}",
        "a scalar parameter is carried as a Float attribute, not Int",
    ),
    Case(
        "attr-texts-cover-values",
        "gelu_v2.yaml",
        "values: {0: none, 1: tanh}",
        "values: {0: none}",
        "values: {0: none}",
        "give the text of each of 'approximate''s values [0, 1]",
    ),
    Case(
        "attr-default-fits-kind",
        "soft_shrink_grad.yaml",
        "{name: lambd, param: lambd, default: 0.5}",
        "{name: lambd, param: lambd, default: half}",
        "default: half}",
        "'half' is not a default for a Float attribute",
    ),
    Case(
        "fixed-attr-needs-default",
        "hard_sigmoid_grad.yaml",
        "{name: beta, kind: Float, default: 0.5}",
        "{name: beta, kind: Float}",
        "{name: beta, kind: Float}",
        "needs its 'kind' and the 'default' the L0 op passes",
    ),
    Case(
        "list-attr-default-is-a-list",
        "softmax_grad.yaml",
        "{name: axes, param: dim, kind: ListInt, default: [-1]}",
        "{name: axes, param: dim, kind: ListInt, default: -1}",
        "kind: ListInt, default: -1}",
        "-1 is not a default for a ListInt attribute",
    ),
    Case(
        "list-attr-carries-an-int64",
        "leaky_relu.yaml",
        "{name: negative_slope, param: negativeSlope, default: 0.0}",
        "{name: negative_slope, param: negativeSlope, kind: ListInt, default: [0]}",
        "kind: ListInt, default: [0]}",
        "a scalar parameter is carried as a Float attribute, not ListInt",
    ),
    Case(
        "list-attr-carries-the-reduced-dim",
        "glu_grad.yaml",
        "{name: dim, param: dim, default: -1}",
        "{name: dim, param: dim, kind: ListInt, default: [-1]}",
        "kind: ListInt, default: [-1]}",
        "a ListInt attribute carries reduce_dim's dim; carry 'dim' as Int",
    ),
    Case(
        "list-attr-needs-a-param",
        "softmax_v2.yaml",
        "{name: half_to_float, kind: Bool, default: false}",
        "{name: half_to_float, kind: ListInt, default: [0]}",
        "{name: half_to_float, kind: ListInt",
        "a ListInt attribute carries an int64 parameter ('param')",
    ),
    Case(
        "attr-read-by-kernel-left-out",
        "hardtanh_grad.yaml",
        "    - {name: max_val, param: max, default: 1.0, required: true}\n",
        "",
        "  attrs:",
        "the kernel reads 'max': an attribute must carry it",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_opdef_mistakes_point_at_their_line(case: Case) -> None:
    original = (SPEC_DIR / case.spec).read_text(encoding="utf-8")
    assert case.old in original, f"case {case.id} no longer applies to {case.spec}"
    mutated = original.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, f"specs/{case.spec}", SPEC_DIR)
    found = [d for d in info.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.line == line_of(mutated, case.marker), str(found[0])


def _read(op: str, name: str) -> str:
    return (GENERATED / op / name).read_text(encoding="utf-8")


def test_l0_follows_the_opdef() -> None:
    """The L0 op takes the API's tensors in the OpDef's order and launches null for an input the API has none for;
    an int64 carried as text is converted by the op_api; a fixed attribute is passed by the L0 op."""
    mish = _read("mish_grad", "op_api/mish_grad.cpp")
    assert "OP_INPUT(gradOutput, self, nullptr)" in mish
    sigmoid = _read("sigmoid_grad", "op_api/sigmoid_grad.cpp")
    assert "SigmoidGrad(const aclTensor* output, const aclTensor* gradOutput," in sigmoid
    gelu = _read("gelu_v2", "op_api/aclnn_gelu_v2.cpp")
    assert '(approximate == 0 ? "none" : "tanh")' in gelu
    hard_sigmoid = _read("hard_sigmoid_grad", "op_api/hard_sigmoid_grad.cpp")
    assert "OP_ATTR(static_cast<float>(0.16666666666666666f), static_cast<float>(0.5f))" in hard_sigmoid
    log_sigmoid = _read("logsigmoid_grad", "op_api/logsigmoid_grad.cpp")
    assert "OP_INPUT(gradOutput, self)" in log_sigmoid  # the API's buffer is not passed
    # an input the kernel does not read gets the tensor ops-nn's L0 op passes (GeluGrad's y: gradOutput)
    assert "OP_INPUT(gradOutput, self, gradOutput)" in _read("gelu_grad", "op_api/gelu_grad.cpp")
    assert "OP_INPUT(gradOutput, self, self)" in _read("swish_grad", "op_api/swish_grad.cpp")


def test_an_int64_carried_as_a_one_element_list() -> None:
    """The softmax family's dim is ops-nn's `axes` ListInt({-1}): the L0 op keeps the int64 and passes {dim} as an
    aclIntArray (a fixed attribute after it), the tiling reads the list (GetListInt). Before: an Int attribute."""
    assert 'this->Attr("axes").AttrType(OPTIONAL).ListInt({-1});' in _read("softmax_v2", "op_host/softmax_v2_def.cpp")
    l0 = " ".join(_read("softmax_v2", "op_api/softmax_v2.cpp").split())
    assert "SoftmaxV2(const aclTensor* self, int64_t dim, aclOpExecutor* executor)" in l0
    assert "const aclIntArray* dimList = executor->AllocIntArray(&dim, 1);" in l0
    assert "OP_ATTR(dimList, false)" in l0
    assert "attrs->GetListInt(0)" in _read("softmax_v2", "op_host/softmax_v2_tiling.cpp")
    assert "attrs->GetListInt(0)" in _read("log_softmax_grad", "op_host/log_softmax_grad_tiling.cpp")


def test_a_list_default_follows_the_parameter() -> None:
    """Without its own default, a ListInt attribute's is the parameter's as a one-element list."""
    text = (SPEC_DIR / "softmax_v2.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "{name: axes, param: dim, kind: ListInt, default: [-1]}", "{name: axes, param: dim, kind: ListInt}"
    )
    plan = check_spec_text(text.replace("    default: -1\n", "    default: 1\n", 1), "specs/softmax_v2.yaml", SPEC_DIR)
    axes = plan.opdef.attrs[0]
    assert (str(axes.kind), str(axes.default), str(axes.ctype)) == (
        "ListInt",
        "{1}",
        "gert::TypedContinuousVector<int64_t>",
    )


def test_kernel_entry_takes_every_opdef_input() -> None:
    kernel = _read("mish_grad", "op_kernel/mish_grad.cpp")
    assert "void mish_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR x_grad," in kernel
    assert "(void)tanhx;" in kernel
    gelu_grad = _read("gelu_grad", "op_kernel/gelu_grad.cpp")
    assert "void gelu_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR y, GM_ADDR z," in gelu_grad
    assert "(void)y;" in gelu_grad
    tiling = _read("gelu_v2", "op_host/gelu_v2_tiling.cpp")
    assert 'std::strcmp(approximate, "tanh") == 0' in tiling


def test_a_scalar_carried_as_a_tensor() -> None:
    """Threshold's OpDef is ops-nn's ThresholdV2 (threshold and value as inputs, no attribute): the L0 op converts
    each aclScalar to a one-element tensor of self's dtype and launches it; the kernel reads it from GM once and the
    tiling data does not carry it; the AICPU kernel reads it from its input. Before: Float attributes."""
    definition = _read("threshold", "op_host/threshold_def.cpp")
    assert 'this->Input("threshold")' in definition and 'this->Input("value")' in definition
    assert "Attr(" not in definition
    l0 = _read("threshold", "op_api/threshold.cpp")
    assert "ThresholdV2(const aclTensor* self, const aclScalar* threshold, const aclScalar* value," in l0
    assert "executor->ConvertToTensor(threshold, self->GetDataType())" in l0
    assert "OP_INPUT(self, thresholdTensor, valueTensor), OP_OUTPUT(out))" in " ".join(l0.split())
    assert "l0op::ThresholdV2(selfCasted, threshold, value, uniqueExecutor.get())" in _read(
        "threshold", "op_api/aclnn_threshold.cpp"
    )
    kernel = _read("threshold", "op_kernel/threshold.cpp")
    assert "void threshold(GM_ADDR x, GM_ADDR threshold, GM_ADDR value, GM_ADDR y," in kernel
    assert "const T threshold = thresholdGm_.GetValue(0);" in kernel
    assert "tiling.threshold" not in kernel and "float threshold" not in _read(
        "threshold", "op_kernel/threshold_tiling_data.h"
    )
    aicpu = _read("threshold", "op_kernel/aicpu/threshold_aicpu.cpp")
    assert "ctx.Input(1)" in aicpu and "GetAttr" not in aicpu


LEAKY = (SPEC_DIR / "leaky_relu.yaml").read_text(encoding="utf-8")
HARDTANH_GRAD = (SPEC_DIR / "hardtanh_grad.yaml").read_text(encoding="utf-8")


def test_any_scalar_can_be_carried_as_a_tensor() -> None:
    """The mechanism is the spec's, not Threshold's: HardtanhGrad's max as an input instead of an attribute moves it
    from the tiling data and the OpDef's attributes to a GM read, with the same kernel program."""
    text = HARDTANH_GRAD.replace("    - {name: max_val, param: max, default: 1.0, required: true}\n", "", 1)
    text = text.replace(
        "    - {name: grad, param: gradOutput}\n",
        "    - {name: grad, param: gradOutput}\n    - {name: max_val, param: max}\n",
    )
    plan = check_spec_text(text, "specs/hardtanh_grad.yaml", SPEC_DIR)
    assert [(str(i.name), i.scalar) for i in plan.opdef.inputs] == [
        ("result", False),
        ("grad", False),
        ("max_val", True),
    ]
    assert [str(a.name) for a in plan.opdef.attrs] == ["min_val"]
    assert plan.kernel.scalars == ("min",) and plan.kernel.gm_scalars == ("max",)
    before = check_spec_text(HARDTANH_GRAD, "specs/hardtanh_grad.yaml", SPEC_DIR)
    assert [v.program for v in plan.kernel.variants] == [v.program for v in before.kernel.variants]
    files = render_operator(plan)
    kernel = files["hardtanh_grad/op_kernel/hardtanh_grad.cpp"]
    assert "const T max = maxGm_.GetValue(0);" in kernel
    assert "float max" not in files["hardtanh_grad/op_kernel/hardtanh_grad_tiling_data.h"]
    assert "executor->ConvertToTensor(max, self->GetDataType())" in files["hardtanh_grad/op_api/hardtanh_grad.cpp"]


def test_a_guarded_scalar_stays_an_attribute() -> None:
    """A scalar whose non-finite value makes the tiling pick the exact program (LeakyRelu's negativeSlope) cannot be
    a tensor: the tiling never sees a tensor's value."""
    text = LEAKY.replace("    empty_tensor: true\n    opdef_name: x\n", "    empty_tensor: true\n", 1)
    text = text.replace(
        "  attrs:\n    - {name: negative_slope, param: negativeSlope, default: 0.0}\n",
        "  inputs:\n    - {name: x, param: self}\n    - {name: negative_slope, param: negativeSlope}\n",
    )
    with pytest.raises(SpecError) as info:
        check_spec_text(text, "specs/leaky_relu.yaml", SPEC_DIR)
    (found,) = [d for d in info.value.diagnostics if "selects another kernel program" in d.message]
    assert "'negativeSlope'" in found.message and "carry it as an attribute" in found.message
    assert found.location.line == line_of(text, "{name: negative_slope, param: negativeSlope}")
