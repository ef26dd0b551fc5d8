"""int64 / string / optional-scalar / keyword-only parameters: validation points at the exact file:line, and the
spec layer's rules (one_of, null-safe checks, signatures, kernel modes) hold for the fixture specs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.plan.cases import negative_calls
from opgen.plan.kernel import kernel_plan, mode_index
from opgen.plan.signature import signatures
from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "param_kinds"


@dataclass(frozen=True)
class Case:
    id: str
    spec: str  # a path relative to ROOT
    old: str
    new: str
    marker: str  # text on the line the diagnostic must point at
    fragment: str


GELU_V2 = "tests/fixtures/param_kinds/gelu_v2.yaml"
GELU_GRAD_V2 = "tests/fixtures/param_kinds/gelu_grad_v2.yaml"
SWISH = "tests/fixtures/param_kinds/swish.yaml"
SITU_ACT = "tests/fixtures/param_kinds/situ_act.yaml"
GELU_OPT = "tests/fixtures/param_kinds/gelu_opt.yaml"

CASES = [
    Case(
        "string-needs-not-null",
        GELU_GRAD_V2,
        "{not_null: [gradOutput, self, approximate, gradInput]}",
        "{not_null: [gradOutput, self, gradInput]}",
        "kind: string",
        "name it in a not_null error row",
    ),
    Case(
        "values-need-one-of",
        GELU_V2,
        "check: {one_of: [approximate]}",
        "check: {same_shape: [x, y]}",
        "values: [0, 1]",
        "name it in a one_of error row",
    ),
    Case(
        "one-of-needs-values",
        GELU_V2,
        "    values: [0, 1]\n",
        "",
        "one_of: [approximate]",
        "has no 'values' to check against",
    ),
    Case(
        "one-of-needs-int64-or-string",
        GELU_V2,
        "check: {one_of: [approximate]}",
        "check: {one_of: [x]}",
        "one_of: [x]",
        "needs a int64 or string",
    ),
    Case("string-needs-values", GELU_GRAD_V2, "    values: [none, tanh]\n", "", "kind: string", "needs 'values'"),
    Case(
        "string-values-are-strings",
        GELU_GRAD_V2,
        "values: [none, tanh]",
        "values: [0, 1]",
        "values: [0, 1]",
        "are strings",
    ),
    Case("ctype-matches-kind", GELU_GRAD_V2, "ctype: char*", "ctype: int64_t*", "ctype: int64_t*", "is a char"),
    Case("default-in-values", GELU_V2, "default: 0", "default: 2", "default: 2", "not one of 'values'"),
    Case(
        "example-value-in-values",
        GELU_V2,
        "scalars: {approximate: 1}",
        "scalars: {approximate: 3}",
        "scalars: {approximate: 3}",
        "is not one of the values",
    ),
    Case(
        "golden-string-value-is-a-string",
        GELU_GRAD_V2,
        "approximate: [none, tanh]",
        "approximate: [none, 1]",
        "approximate: [none, 1]",
        "is a string parameter",
    ),
    Case(
        "null-default-only-on-scalars",
        GELU_V2,
        "    default: 0\n",
        "    default: 0\n    null_default: 1.0\n",
        "null_default: 1.0",
        "applies to scalar and string parameters only",
    ),
    Case(
        "optional-scalar-is-not-null-checked",
        SWISH,
        "{not_null: [self, out]}",
        "{not_null: [self, betaOptional, out]}",
        "{not_null: [self, betaOptional, out]}",
        "is optional",
    ),
    Case(
        "null-only-for-optional-scalars",
        GELU_V2,
        "scalars: {approximate: 1}",
        "scalars: {approximate: null}",
        "scalars: {approximate: null}",
        "is not optional",
    ),
    Case(
        "positional-after-keyword-only",
        GELU_GRAD_V2,
        "    dtype: {promote_with: [self]}\n",
        "    dtype: {promote_with: [self]}\n    keyword_only: true\n",
        "- name: self",
        "follows the keyword-only 'gradOutput'",
    ),
    Case(
        "default-order",
        "specs/leaky_relu_grad.yaml",
        "    dtypes: [FLOAT, FLOAT16, DOUBLE, INT32, INT64, INT8, BOOL, INT16, UINT8, BFLOAT16]\n",
        "    dtypes: [FLOAT, FLOAT16, DOUBLE, INT32, INT64, INT8, BOOL, INT16, UINT8, BFLOAT16]\n    default: 0.01\n",
        "- name: selfIsResult",
        "has no default but follows 'negativeSlope'",
    ),
    Case(
        "string-compared-with-number",
        GELU_GRAD_V2,
        'where(approximate == "tanh",',
        "where(approximate == 1,",
        "expr: >-",
        "its right operand is a number",
    ),
    Case(
        "inplace-ctype-is-a-tensor",
        "specs/leaky_relu.yaml",
        "    aten: leaky_relu_\n",
        "    aten: leaky_relu_\n    ctype: aclScalar*\n",
        "ctype: aclScalar*",
        "the in-place parameter is an aclTensor",
    ),
    Case(
        "unknown-kind-lists-kinds",
        GELU_V2,
        "kind: int64",
        "kind: int",
        "kind: int",
        "tensor, scalar, bool, int64, double, string",
    ),
    Case(
        "double-default-is-a-float", SITU_ACT, "default: 1.0", "default: 1", "default: 1", "not a default for a double"
    ),
    Case("double-default-is-finite", SITU_ACT, "default: 1.0", "default: .inf", "default: .inf", "a finite number"),
    Case(
        "double-has-no-dtypes",
        SITU_ACT,
        "    default: 0.0\n",
        "    default: 0.0\n    dtypes: [FLOAT]\n",
        "dtypes: [FLOAT]",
        "a double parameter has no 'dtypes'",
    ),
    Case(
        "double-has-no-values",
        SITU_ACT,
        "    default: 0.0\n",
        "    default: 0.0\n    values: [0, 1]\n",
        "values: [0, 1]",
        "applies to int64 and string parameters only",
    ),
    Case(
        "double-ctype-is-double",
        SITU_ACT,
        "kind: double",
        "kind: double\n    ctype: float",
        "ctype: float",
        "is a double",
    ),
    Case(
        "double-example-value-is-a-float",
        SITU_ACT,
        "scalars: {beta: 2.0, linearBeta: 0.0}",
        "scalars: {beta: 2, linearBeta: 0.0}",
        "scalars: {beta: 2, linearBeta: 0.0}",
        "is a double parameter",
    ),
    Case(
        "double-needs-floating-tensors",
        SITU_ACT,
        "    dtypes: [FLOAT, FLOAT16, BFLOAT16]\n    formats: [ND]\n    rank: [0, 8]\n    non_contiguous: true\n"
        "    empty_tensor: true\n",
        "    dtypes: [FLOAT, FLOAT16, BFLOAT16, INT32]\n    formats: [ND]\n    rank: [0, 8]\n"
        "    non_contiguous: true\n    empty_tensor: true\n",
        "kind: double",
        "integer dtypes (INT32) cannot take it",
    ),
    Case(
        "string-null-default-in-values",
        GELU_OPT,
        "null_default: none",
        "null_default: fast",
        "null_default: fast",
        "is not one of 'values'",
    ),
    Case(
        "string-null-default-is-a-string",
        GELU_OPT,
        "null_default: none",
        "null_default: 1.0",
        "null_default: 1.0",
        "a string's null_default is one of its 'values'",
    ),
    Case(
        "optional-string-is-not-null-checked",
        GELU_OPT,
        "{not_null: [input, out]}",
        "{not_null: [input, approximateOptional, out]}",
        "{not_null: [input, approximateOptional, out]}",
        "is optional",
    ),
    Case(
        "scalar-null-default-is-a-number",
        SWISH,
        "null_default: 1.0",
        "null_default: one",
        "null_default: one",
        "a scalar's null_default is a number",
    ),
    Case(
        "double-golden-value-is-finite",
        SITU_ACT,
        "beta: [1.0, 2.5, -0.75]",
        "beta: [1.0, .nan, -0.75]",
        "beta: [1.0, .nan, -0.75]",
        "is a double parameter",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_parameter_kind_errors_point_at_their_line(case: Case):
    original = (ROOT / case.spec).read_text(encoding="utf-8")
    assert case.old in original, f"case {case.id} no longer applies to {case.spec}"
    mutated = original.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, case.spec)
    found = [d for d in info.value.diagnostics if case.fragment in d.message]
    assert found, [str(d) for d in info.value.diagnostics]
    assert found[0].location.file == case.spec
    assert found[0].location.line == line_of(mutated, case.marker), str(found[0])


def _spec(name: str):
    return load_spec(FIXTURES / name).spec


def test_signatures_spell_the_reference_prototypes():
    (v2,) = signatures(_spec("gelu_v2.yaml"))
    assert v2.parameter_list(", ").startswith("const aclTensor *x, int64_t approximate, aclTensor *y")
    (grad,) = signatures(_spec("gelu_grad_v2.yaml"))
    assert "const aclTensor *self, char *approximate, aclTensor *gradInput" in grad.parameter_list(", ")
    (swish,) = signatures(_spec("swish.yaml"))
    assert "const aclScalar *betaOptional" in swish.parameter_list(", ")
    # non-const where the reference's headers say so: AddRelu's alpha, SquaredRelu's const output
    (add_relu,) = signatures(_spec("add_relu.yaml"))
    assert "const aclTensor *other, aclScalar *alpha, aclTensor *out" in add_relu.parameter_list(", ")
    (squared,) = signatures(_spec("squared_relu.yaml"))
    assert squared.parameter_list(", ").startswith("const aclTensor *input, const aclTensor *out,")
    # double, as aclnnSituGlu declares beta and linearBeta
    (situ,) = signatures(_spec("situ_act.yaml"))
    assert "const aclTensor *x, double beta, double linearBeta, aclTensor *out" in situ.parameter_list(", ")


def test_mode_values_select_distinct_tiling_keys():
    for name, values in (("gelu_v2.yaml", (0, 1)), ("gelu_grad_v2.yaml", ("none", "tanh"))):
        plan = kernel_plan(_spec(name))
        assert [axis.values for axis in plan.enums] == [values]
        for storage in {v.storage for v in plan.variants}:
            programs = [plan.variant(storage, {"approximate": value}).program for value in values]
            assert programs[0] != programs[1]  # erf and tanh forms lower differently
            keys = {plan.variant(storage, {"approximate": value}).key for value in values}
            assert len(keys) == len(values)
        assert plan.mode_count == len(values)


def test_mode_index_is_mixed_radix():
    from opgen.plan.kernel import ModeAxis

    axes = (ModeAxis("f", (False, True)), ModeAxis("a", ("x", "y", "z")))
    indices = {mode_index(axes, {"f": f, "a": a}) for f in (False, True) for a in ("x", "y", "z")}
    assert indices == set(range(6))
    assert mode_index(axes, {"f": True, "a": "z"}, exact=True) == 1 + 2 * 2 + 6


def test_negative_calls_cover_values_and_same_dtype_against_an_output():
    calls = {c.name: c for c in negative_calls(_spec("gelu_v2.yaml"))}
    assert calls["row2_oneof"].args["approximate"].value not in (0, 1)
    # the output's dtype follows x: the mutation must not be undone by recomputing the outputs
    same = calls["row3_samedtype"]
    assert same.args["x"].dtype != same.args["y"].dtype
    strings = {c.name: c for c in negative_calls(_spec("gelu_grad_v2.yaml"))}
    assert strings["row3_oneof"].args["approximate"].value not in ("none", "tanh")


def test_optional_scalar_checks_are_null_safe():
    from opgen.spec.checks import Arg

    spec = _spec("swish.yaml")
    row = spec.errors[2].check
    assert row.kind == "scalars_castable"
    assert "betaOptional != nullptr &&" in row.cpp(spec, 2).condition
    assert not row.fails(spec, {"betaOptional": Arg("null")}, (), "ascend910b")


def test_inplace_ctype_spells_the_in_place_tensor():
    """InplaceErfinv-style headers declare the in-place tensor `const aclTensor*`."""
    import yaml

    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["api"]["inplace"]["ctype"] = "const aclTensor*"
    plan = check_spec_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "specs/leaky_relu.yaml")
    assert plan.inplace is not None
    assert plan.inplace.parameter_list(", ").startswith("const aclTensor *selfRef,")


def test_docs_state_allowed_values_optional_scalars_and_one_formula_per_mode():
    from opgen.plan.documentation import formula_blocks, usage_notes
    from opgen.plan.schedules import schedule_for
    from opgen.spec.formula_binding import kernel_formula

    grad = _spec("gelu_grad_v2.yaml")
    notes = usage_notes(grad, grad.param("approximate"), schedule_for(grad))
    assert '取值为"none"、"tanh"，其他取值返回错误。' in notes
    swish = _spec("swish.yaml")
    assert "可以为空指针，此时取值为1.0。" in usage_notes(swish, swish.param("betaOptional"), schedule_for(swish))
    v2 = _spec("gelu_v2.yaml")
    blocks = formula_blocks(v2, schedule_for(v2), kernel_formula(v2))
    assert [str(b.title) for b in blocks] == ["当approximate是0时：", "当approximate是1时："]
    assert "erf" in str(blocks[0].latex) and "tanh" in str(blocks[1].latex)
    titles = [str(b.title) for b in formula_blocks(grad, schedule_for(grad), kernel_formula(grad))]
    assert titles == ['当approximate是"none"时：', '当approximate是"tanh"时：']


def test_reject_if_may_test_a_string_parameter():
    """A condition over a string and a scalar: C++ compares with strcmp, and a negative call is found among the
    string's values."""
    import yaml

    data = yaml.safe_load((FIXTURES / "add_relu.yaml").read_text(encoding="utf-8"))
    data["params"].insert(
        3,
        {"name": "mode", "kind": "string", "description": "-", "values": ["fast", "exact"], "default": "exact"},
    )
    data["errors"][0]["check"]["not_null"].append("mode")
    data["errors"].append(
        {
            "status": "ACLNN_ERR_PARAM_INVALID",
            "code": 161002,
            "check": {"one_of": ["mode"]},
            "message": "bad mode.",
            "doc": "mode取值错误。",
        }
    )
    data["errors"].append(
        {
            "status": "ACLNN_ERR_PARAM_INVALID",
            "code": 161002,
            "check": {"reject_if": 'mode == "fast" and alpha < 0'},
            "message": "fast mode needs a non-negative alpha.",
            "doc": "mode为fast时alpha不能为负数。",
        }
    )
    data["example"]["scalars"]["mode"] = "exact"
    plan = check_spec_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "add_relu.yaml")
    assert 'std::strcmp(mode, "fast") == 0' in plan.checks[-1].condition
    last = plan.negative_calls[-1]
    assert last.args["mode"].value == "fast" and last.args["alpha"].value < 0
    assert plan.rejects({"mode": "fast", "alpha": -1.0}) and not plan.rejects({"mode": "exact", "alpha": -1.0})


def test_double_is_a_float_attribute_read_from_the_tiling_data():
    """ops-nn's OpDef declares aclnnSituGlu's doubles as Float attributes: the kernel reads them as tiling numbers,
    the docs say they compute in float."""
    from opgen.plan.documentation import usage_notes
    from opgen.plan.opdef import opdef_plan
    from opgen.plan.schedules import schedule_for

    spec = _spec("situ_act.yaml")
    attrs = {str(a.name): (str(a.kind), str(a.default), str(a.ctype)) for a in opdef_plan(spec).attrs}
    assert attrs == {"beta": ("Float", "1.0f", "float"), "linear_beta": ("Float", "0.0f", "float")}
    assert set(kernel_plan(spec).scalars) == {"beta", "linearBeta"}
    assert "以FLOAT属性传入kernel，按float精度参与计算。" in usage_notes(spec, spec.param("beta"), schedule_for(spec))


def test_optional_string_means_its_default_in_checks_and_calls():
    """GeluMul's approximateOptional: the value check lets a null pointer through, the valid call passes null,
    and the value row is tripped by a string."""
    from opgen.plan.cases import valid_call
    from opgen.spec.checks import Arg
    from opgen.spec.dtypes import DType

    spec = _spec("gelu_opt.yaml")
    row = spec.errors[2].check
    assert row.cpp(spec, 2).condition.startswith("(approximateOptional != nullptr && (std::strcmp(")
    assert not row.fails(spec, {"approximateOptional": Arg("null")}, (), "ascend910b")
    assert row.fails(spec, {"approximateOptional": Arg("string", value="fast")}, (), "ascend910b")
    assert valid_call(spec, DType.FLOAT).args["approximateOptional"].kind == "null"
    bad = {c.row: c for c in negative_calls(spec)}[2].args["approximateOptional"]
    assert bad.kind == "string" and bad.value not in ("none", "tanh")


def test_a_null_optional_means_its_default_in_the_reference():
    """evaluate_reference takes None for an optional string (a null pointer, as the bindings pass it) as its
    null_default: GeluOpt's approximateOptional None computes the erf form, as "none" does."""
    import numpy as np

    from opgen.spec.formula_binding import evaluate_reference

    spec = _spec("gelu_opt.yaml")
    x = np.linspace(-4, 4, 33)
    null = evaluate_reference(spec, {"input": x, "approximateOptional": None}, None)
    np.testing.assert_array_equal(null, evaluate_reference(spec, {"input": x, "approximateOptional": "none"}, None))
    assert not np.array_equal(null, evaluate_reference(spec, {"input": x, "approximateOptional": "tanh"}, None))
