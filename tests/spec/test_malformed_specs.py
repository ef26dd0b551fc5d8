"""Malformed specs: each must give one clear diagnostic at the exact file:line, of the right class.

Every case mutates the real `specs/leaky_relu_grad.yaml` (or elu_grad_v2) by one textual edit; the expected
line is the line where the edit's marker text lands, found in the mutated text, never hard-coded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.text import line_of

from opgen.build import check_spec_text
from opgen.cli import main
from opgen.spec.diagnostics import SpecError

SPECS = Path(__file__).resolve().parents[2] / "specs"


@dataclass(frozen=True)
class Case:
    id: str
    old: str  # text replaced (first occurrence)
    new: str
    marker: str  # text on the line the diagnostic must point at (first occurrence after the edit)
    kind: str  # Diagnostic.kind
    fragment: str  # must appear in the message
    spec: str = "leaky_relu_grad.yaml"
    occurrence: int = 1  # which occurrence of `marker` in the mutated text


CASES = [
    Case("unknown-top-key", "operator:\n", "operatr:\n", "operatr:", "unknown-key", "did you mean 'operator'"),
    Case(
        "unknown-param-key",
        "    dtypes: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]\n    formats",
        "    dtyps: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]\n    formats",
        "dtyps:",
        "unknown-key",
        "did you mean 'dtypes'",
    ),
    Case(
        "misspelt-dtype",
        "dtypes: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]",
        "dtypes: [FLOAT, FLAOT16, BFLOAT16, DOUBLE]",
        "FLAOT16",
        "unknown-value",
        "did you mean 'FLOAT16'",
    ),
    Case(
        "misspelt-scalar-dtype",
        "DOUBLE, INT32, INT64",
        "DOUBLE, INT23, INT64",
        "INT23",
        "unknown-value",
        "unknown dtype 'INT23'",
    ),
    Case(
        "duplicate-yaml-key",
        "    description: 表示梯度。\n",
        "    description: 表示梯度。\n    description: again\n",
        "description: again",
        "duplicate-key",
        "duplicate key 'description'",
    ),
    Case(
        "duplicate-param-name",
        "  - name: self\n",
        "  - name: gradOutput\n",
        "name: gradOutput",
        "duplicate-name",
        "duplicate parameter name 'gradOutput'",
        occurrence=2,
    ),
    Case(
        "undefined-name-in-formula",
        "expr: where(self > 0, gradOutput, gradOutput * negativeSlope)",
        "expr: where(self > 0, gradOutput, gradOutput * negativeSlop)",
        "negativeSlop)",
        "formula",
        "did you mean 'negativeSlope'",
    ),
    Case(
        "formula-syntax",
        "expr: where(self > 0, gradOutput, gradOutput * negativeSlope)",
        "expr: where(self > 0, gradOutput, gradOutput * )",
        "expr: where",
        "formula",
        "formula:",
    ),
    Case(
        "formula-unknown-function",
        "expr: where(self > 0,",
        "expr: wher(self > 0,",
        "expr: wher",
        "formula",
        "did you mean 'where'",
    ),
    Case("formula-output-is-input", "  output: out\n", "  output: self\n", "output: self", "wrong-kind", "is an input"),
    Case(
        "undefined-name-in-condition",
        "reject_if: selfIsResult and negativeSlope < 0",
        "reject_if: selfIsResult and negSlope < 0",
        "reject_if:",
        "formula",
        "undefined name 'negSlope'",
    ),
    Case(
        "condition-uses-tensor",
        "reject_if: selfIsResult and negativeSlope < 0",
        "reject_if: selfIsResult and self < 0",
        "reject_if:",
        "formula",
        "'self'",
    ),
    Case(
        "differs-from-torch-bad-condition",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n  differs_from_torch:\n    - {when: self != slef, note: x}\n",
        "when: self != slef",
        "formula",
        "did you mean 'self'",
    ),
    Case(
        "differs-from-torch-not-boolean",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n  differs_from_torch:\n    - {when: self * 2, note: x}\n",
        "when: self * 2",
        "formula",
        "not a boolean",
    ),
    Case(
        "differs-from-torch-without-aten",
        "  special_values: [0.0, -0.0, 3.0, -3.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, 3.0, -3.0, inf, -inf, nan]\n  differs_from_torch:\n"
        "    - {when: self != self, note: x}\n",
        "{when: self != self, note: x}",
        "invalid",
        "neither api.aten nor api.aten_form is set",
        spec="hard_swish_grad_v2.yaml",
    ),
    # golden.derived_inputs: an input derived from the others (logsigmoid_grad's buffer = exp(-abs(self)))
    Case(
        "derived-input-unknown",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {bufer: exp(-abs(self))}",
        "bufer",
        "undefined-name",
        "did you mean 'buffer'",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-input-unknown-name-in-expression",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {buffer: exp(-abs(slef))}",
        "exp(-abs(slef))",
        "formula",
        "undefined name 'slef' (did you mean 'self'?)",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-input-is-an-output",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {gradInput: exp(-abs(self))}",
        "gradInput: exp",
        "wrong-kind",
        "'gradInput' is an output; only a tensor input can be derived",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-input-from-an-output",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {buffer: exp(-abs(gradInput))}",
        "exp(-abs(gradInput))",
        "formula",
        "uses the output 'gradInput'",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-input-from-itself",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {buffer: exp(-abs(buffer))}",
        "exp(-abs(buffer))",
        "cycle",
        "'buffer' is derived from itself",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-inputs-in-a-cycle",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs:\n    buffer: exp(-abs(self))\n    self: log(buffer)",
        "self: log(buffer)",
        "cycle",
        "(self -> buffer -> self)",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-input-not-a-number",
        "derived_inputs: {buffer: exp(-abs(self))}",
        "derived_inputs: {buffer: self > 0}",
        "self > 0",
        "formula",
        "a boolean, not a number",
        spec="logsigmoid_grad.yaml",
    ),
    Case(
        "derived-scalar",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n  derived_inputs: {negativeSlope: self * 2}\n",
        "negativeSlope: self",
        "wrong-kind",
        "'negativeSlope' is a scalar parameter; only a tensor input can be derived",
    ),
    Case(
        "derived-flag",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n  derived_inputs: {selfIsResult: self > 0}\n",
        "selfIsResult: self",
        "wrong-kind",
        "'selfIsResult' is a bool parameter",
    ),
    Case(
        "derived-input-from-a-scalar",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n",
        "  special_values: [0.0, -0.0, inf, -inf, nan]\n  derived_inputs: {self: gradOutput * negativeSlope}\n",
        "{self: gradOutput * negativeSlope}",
        "formula",
        "uses the scalar parameter 'negativeSlope'",
    ),
    # a half split's derived input may read the halves and the scalars (derived per case: ge_glu_grad_v2's gelu)
    Case(
        "derived-full-size-input-from-the-halves",
        "  derived_inputs:\n    gelu:",
        "  derived_inputs:\n    self:",
        '    self: "where',
        "formula",
        "derived input 'self': reads the halves, so it is half-size; 'self' is full-size",
        spec="ge_glu_grad_v2.yaml",
    ),
    Case(
        "derived-input-from-the-halves-and-an-output",
        "(approximate == 1, B /",
        "(approximate == 1, gradInput /",
        '    gelu: "where',
        "formula",
        "uses the output 'gradInput'",
        spec="ge_glu_grad_v2.yaml",
    ),
    Case(  # derivative_of saved: {gelu: outGelu}: derived as the forward computes outGelu, of the gate half B
        "derived-saved-input-is-not-the-forwards-output",
        '0.5 * B * (1 + erf(B / sqrt(2))))"\n',
        '0.5 * A * (1 + erf(A / sqrt(2))))"\n',
        '    gelu: "where',
        "derivative",
        "'gelu' holds ge_glu_v2's outGelu, but its derivation is another function",
        spec="ge_glu_grad_v2.yaml",
    ),
    Case(
        "torch-refuses-a-floating-dtype",
        "  torch_refuses: [INT32]\n",
        "  torch_refuses: [FLOAT]\n",
        "FLOAT]",
        "invalid",
        "FLOAT is not an integer dtype the first input takes",
        spec="hard_sigmoid.yaml",
    ),
    Case(  # aten computes FLOAT in float: only a 16-bit dtype can be rounded each step
        "aten-rounds-each-step-in-float",
        "    dtypes: [FLOAT16, BFLOAT16]\n    note: glu_backward",
        "    dtypes: [FLOAT16, FLOAT]\n    note: glu_backward",
        "[FLOAT16, FLOAT]",
        "invalid",
        "FLOAT is not a 16-bit floating dtype (FLOAT16, BFLOAT16) the first input takes",
        spec="glu_grad.yaml",
    ),
    Case(
        "aten-rounds-each-step-twice",
        "    dtypes: [FLOAT16, BFLOAT16]\n    note: glu_backward",
        "    dtypes: [FLOAT16, FLOAT16]\n    note: glu_backward",
        "[FLOAT16, FLOAT16]",
        "invalid",
        "FLOAT16 is listed twice",
        spec="glu_grad.yaml",
    ),
    Case(
        "aten-rounds-each-step-without-a-note",
        "    note: glu_backward rounds sigmoid(b) and each product to the 16-bit dtype\n",
        '    note: " "\n',
        'note: " "',
        "invalid",
        "empty note",
        spec="glu_grad.yaml",
    ),
    Case(
        "aten-rounds-each-step-without-an-aten-op",
        "  aten: glu_backward\n",
        "",
        "  aten_rounds_each_step:",
        "invalid",
        "api.aten is not set: there is no torch op",
        spec="glu_grad.yaml",
    ),
    Case(
        "aten-rounds-each-step-with-no-dtype",
        "    dtypes: [FLOAT16, BFLOAT16]\n    note: glu_backward",
        "    dtypes: []\n    note: glu_backward",
        "dtypes: []",
        "type",
        "at least 1 item",
        spec="glu_grad.yaml",
    ),
    Case(  # only a check over parameter values is one aten could take or refuse alike
        "aten-accepts-on-a-tensor-row",
        "    doc: self的shape与输出out的shape不一致。\n",
        "    doc: self的shape与输出out的shape不一致。\n    aten_accepts: aten broadcasts out\n",
        "aten_accepts: aten broadcasts out",
        "invalid",
        "only a reject_if row",
        spec="clip_by_value_v2.yaml",
    ),
    Case(
        "aten-accepts-without-an-aten-op",
        "  aten: hardtanh\n",
        "",
        "  aten_accepts:",
        "invalid",
        "api.aten is not set: there is no torch op",
        spec="clip_by_value_v2.yaml",
    ),
    Case(
        "aten-accepts-without-a-reason",
        "    aten_accepts: aten's hardtanh takes min_val > max_val (the result is max_val)\n",
        '    aten_accepts: ""\n',
        'aten_accepts: ""',
        "invalid",
        "empty reason",
        spec="clip_by_value_v2.yaml",
    ),
    Case(
        "undefined-name-in-check",
        "check: {not_null: [gradOutput, self, negativeSlope, out]}",
        "check: {not_null: [gradOutput, slef, negativeSlope, out]}",
        "not_null: [gradOutput, slef",
        "undefined-name",
        "did you mean 'self'",
    ),
    Case(
        "unknown-check-kind",
        "check: {max_rank: [gradOutput, self, out]}",
        "check: {max_rnk: [gradOutput, self, out]}",
        "max_rnk",
        "unknown-check",
        "did you mean 'max_rank'",
    ),
    Case(
        "status-code-mismatch",
        "    code: 161001\n",
        "    code: 161002\n",
        "code: 161002",
        "invalid",
        "does not match ACLNN_ERR_PARAM_NULLPTR",
        occurrence=1,
    ),
    Case(
        "unknown-status",
        "  - status: ACLNN_ERR_PARAM_NULLPTR",
        "  - status: ACLNN_ERR_PARAM_NULPTR",
        "ACLNN_ERR_PARAM_NULPTR",
        "unknown-value",
        "did you mean 'ACLNN_ERR_PARAM_NULLPTR'",
    ),
    Case(
        "unknown-soc",
        "{soc: ascend910b, supported: true}",
        "{soc: ascnd910b, supported: true}",
        "ascnd910b",
        "unknown-value",
        "did you mean 'ascend910b'",
    ),
    Case(
        "unsafe-python-tag",
        '  function: "[aclnnLeakyRelu]',
        '  function: !!python/object/apply:os.system ["echo hi"]\n  related: "[aclnnLeakyRelu]',
        "!!python",
        "unsafe-tag",
        "unsafe or unknown YAML tag",
    ),
    Case(
        "custom-tag",
        "  category: activation",
        "  category: !include activation",
        "!include",
        "unsafe-tag",
        "'!include'",
    ),
    Case(
        "yaml-syntax",
        "  category: activation\n",
        "  category: activation: nn\n",
        "category: activation: nn",
        "yaml-syntax",
        "invalid YAML",
    ),
    Case(
        "rank-out-of-range",
        "    rank: [0, 8]\n",
        "    rank: [0, 9]\n",
        "rank: [0, 9]",
        "invalid",
        "0 <= min <= max <= 8",
    ),
    Case(
        "tensor-without-dtypes",
        "    dtypes: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]\n    formats: [ND]\n    rank: [0, 8]\n"
        "    non_contiguous: true\n    empty_tensor: true\n    dtype: {promote_with: [self]}",
        "    formats: [ND]\n    rank: [0, 8]\n"
        "    non_contiguous: true\n    empty_tensor: true\n    dtype: {promote_with: [self]}",
        "  - name: gradOutput",
        "invalid",
        "needs 'dtypes'",
    ),
    Case(
        "bool-with-rank",
        "    kind: bool\n",
        "    kind: bool\n    rank: [0, 8]\n",
        "rank: [0, 8]",
        "invalid",
        "tensor parameters only",
        occurrence=3,
    ),
    Case("missing-required-key", "  type: LeakyReluGrad\n", "", "operator:", "missing-key", "required key is missing"),
    Case(
        "bad-dir-name",
        "  dir: leaky_relu_grad",
        "  dir: ../../etc",
        "dir: ../../etc",
        "type",
        "String should match pattern",
    ),
    Case(
        "unknown-format",
        "    formats: [ND]\n",
        "    formats: [NDD]\n",
        "formats: [NDD]",
        "unknown-value",
        "did you mean 'ND'",
    ),
    Case(
        "relation-to-unknown-param",
        "dtype: {promote_with: [self]}",
        "dtype: {promote_with: [selff]}",
        "promote_with: [selff]",
        "undefined-name",
        "did you mean 'self'",
    ),
    Case(
        "relation-to-scalar",
        "shape: {broadcast_with: [self]}",
        "shape: {broadcast_with: [negativeSlope]}",
        "broadcast_with: [negativeSlope]",
        "wrong-kind",
        "is a scalar parameter",
    ),
    Case(
        "example-missing-value",
        "  scalars: {negativeSlope: 0.01, selfIsResult: true}",
        "  scalars: {negativeSlope: 0.01}",
        "example:",
        "missing-key",
        "no value for 'selfIsResult'",
    ),
    Case(
        "example-size-mismatch",
        "gradOutput: {shape: [4], dtype: FLOAT, data: [2, 3, 4, 5]}",
        "gradOutput: {shape: [5], dtype: FLOAT, data: [2, 3, 4, 5]}",
        "gradOutput: {shape: [5]",
        "invalid",
        "shape [5] holds 5",
    ),
    Case(
        "golden-missing-tolerance",
        "    DOUBLE: {rtol: 1.0e-7, atol: 1.0e-12, "
        'standard: "FLOAT attribute: exact but for the scalar rounded to float"}\n',
        "",
        "  tolerance:",
        "missing-key",
        "no tolerance for DOUBLE",
    ),
    Case(
        "special-value-typo",
        "special_values: [0.0, -0.0, inf, -inf, nan]",
        "special_values: [0.0, -0.0, inf, -inf, nann]",
        "special_values",
        "unknown-value",
        "did you mean 'nan'",
    ),
    Case(
        "merge-key",
        "  - {soc: ascend950, supported: true}",
        "  - &s {soc: ascend950, supported: true}\n  - {<<: *s, soc: ascend910_93}",
        "<<",
        "merge-key",
        "merge keys",
    ),
    Case(
        "wrong-type",
        "    non_contiguous: true\n",
        "    non_contiguous: maybe\n",
        "non_contiguous: maybe",
        "type",
        "boolean",
    ),
    Case(
        "inplace-param-clashes-with-a-kept-param",
        "    param: selfRef",
        "    param: negativeSlope",
        "param: negativeSlope",
        "duplicate-name",
        "clashes with a parameter of the main API that it does not replace",
        spec="leaky_relu.yaml",
    ),
    Case(
        "inplace-unknown-param",
        "    replaces: [self, out]",
        "    replaces: [self, output]",
        "replaces: [self, output]",
        "undefined-name",
        "did you mean 'out'",
        spec="leaky_relu.yaml",
    ),
    Case(
        "var-to-unknown-param",
        "  vars: {x: selfOrResult}",
        "  vars: {x: selfOrResul}",
        "vars: {x: selfOrResul}",
        "undefined-name",
        "did you mean 'selfOrResult'",
        spec="elu_grad_v2.yaml",
    ),
    Case(
        "formula-not-lowerable",
        "expr: where(self > 0, self, self * negativeSlope)",
        "expr: where(self > 0, self, self * self ** 2.5)",
        "expr: where",
        "not-lowerable",
        "cannot lower x ** 2.5",
        spec="leaky_relu.yaml",  # a forward spec: a backward one would first fail its derivative check
    ),
    Case(
        "unreachable-error-row",
        "\nexample:\n",
        "  - status: ACLNN_ERR_PARAM_NULLPTR\n    code: 161001\n    check: {not_null: [self]}\n"
        "    message: again.\n    doc: again.\n\nexample:\n",
        "check: {not_null: [self]}",
        "unreachable",
        "no call trips error row 6",
    ),
    Case(
        "example-output-not-printable",
        "out: {shape: [4], dtype: FLOAT, data: [0, 0, 0, 0]}",
        "out: {shape: [4], dtype: FLOAT16, data: [0, 0, 0, 0]}",
        "out: {shape: [4], dtype: FLOAT16",
        "invalid",
        "use FLOAT or DOUBLE",
    ),
    Case(
        "where-condition-not-bool",
        "where(isResult,",
        "where(alpha,",
        "expr: >-",
        "formula",
        "condition of where()",
        spec="elu_grad_v2.yaml",
    ),
    Case(
        "promoted-dtype-scalar-target",
        "check: {promoted_dtype: {source: [gradOutput, self], target: gradInput}}",
        "check: {promoted_dtype: {source: [gradOutput, self], target: approximate}}",
        "promoted_dtype",
        "wrong-kind",
        "approximate",
        spec="gelu_grad_v2.yaml",
    ),
    Case(
        "promoted-dtype-unknown-source",
        "check: {promoted_dtype: {source: [gradOutput, self], target: gradInput}}",
        "check: {promoted_dtype: {source: [gradOutput, slef], target: gradInput}}",
        "promoted_dtype",
        "undefined-name",
        "'slef' (did you mean 'self'?)",
        spec="gelu_grad_v2.yaml",
    ),
    Case(
        "bfloat16-on-a-soc-without-it",
        "  - {soc: ascend310b, supported: true, exclude_dtypes: [BFLOAT16]}",
        "  - {soc: ascend310b, supported: true}",
        "{soc: ascend310b, supported: true}",
        "invalid",
        "ascend310b has no bfloat16",
        spec="hardtanh_grad.yaml",
    ),
    Case(
        "aten-form-unknown-op",
        "aten_form: {name: gelu,",
        "aten_form: {name: gelux,",
        "aten_form:",
        "invalid",
        "aten has no functional op 'gelux'",
        spec="gelu_v2.yaml",
    ),
    Case(
        "aten-form-value-unknown",
        "values: {approximate: {none: 0, tanh: 1}}",
        "values: {approximate: {none: 0, tanh: 2}}",
        "aten_form:",
        "invalid",
        "2 is not one of 'approximate''s values (0, 1)",
        spec="gelu_v2.yaml",
    ),
    # api.aten_unused: aten arguments the API does not take (rrelu's generator)
    Case(
        "aten-unused-unknown-argument",
        "aten_unused: [generator]",
        "aten_unused: [generater]",
        "aten_unused:",
        "invalid",
        "aten::rrelu has no argument 'generater' (it has self, lower, upper, training, generator)",
        spec="rrelu.yaml",
    ),
    Case(
        "aten-unused-taken-by-the-api",
        "aten_unused: [generator]",
        "aten_unused: [generator, training]",
        "aten_unused:",
        "invalid",
        "'training' is a parameter of the API (py name): the API takes it",
        spec="rrelu.yaml",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_spec_is_reported_at_its_line(case: Case):
    original = (SPECS / case.spec).read_text(encoding="utf-8")
    assert case.old in original, f"case {case.id} no longer applies to {case.spec}"
    mutated = original.replace(case.old, case.new, 1)
    with pytest.raises(SpecError) as info:
        check_spec_text(mutated, f"specs/{case.spec}", SPECS)
    diagnostics = info.value.diagnostics
    expected_line = line_of(mutated, case.marker, case.occurrence)
    matching = [d for d in diagnostics if d.kind == case.kind and case.fragment in d.message]
    assert matching, f"no {case.kind} diagnostic containing {case.fragment!r}; got: {[str(d) for d in diagnostics]}"
    assert matching[0].location.file == f"specs/{case.spec}"
    assert matching[0].location.line == expected_line, str(matching[0])
    assert str(matching[0]).startswith(f"specs/{case.spec}:{expected_line}:")


def test_there_are_at_least_25_cases():
    assert len(CASES) >= 25


def test_check_reports_every_error_of_every_file_in_one_run(tmp_path, capsys):
    good = (SPECS / "leaky_relu_grad.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(good.replace("dtypes: [FLOAT, FLOAT16,", "dtypes: [FLAOT, FLOAT16,", 1))
    (tmp_path / "b.yaml").write_text(
        (SPECS / "leaky_relu.yaml")
        .read_text(encoding="utf-8")
        .replace("  category: activation", "  categry: activation")
    )
    assert main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path.name}/a.yaml:" in err and "FLAOT" in err
    assert f"{tmp_path.name}/b.yaml:" in err and "categry" in err
    assert "Traceback" not in err


def test_duplicate_operator_dir_across_specs(tmp_path, capsys):
    text = (SPECS / "leaky_relu.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("type: LeakyRelu", "type: LeakyReluCopy"))
    assert main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "b.yaml:5:8: operator.dir: operator.dir 'leaky_relu' is already generated by" in err


def test_not_utf8_and_empty_spec(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_bytes(b"operator: \xff\xfe\n")
    (tmp_path / "empty.yaml").write_text("")
    assert main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml:1:1: <spec>: the spec is not valid UTF-8" in err
    assert "empty.yaml:1:1: <spec>: the spec is empty" in err


def test_real_specs_are_valid(capsys):
    assert main(["check", str(SPECS)]) == 0
    count = len(list(SPECS.glob("*.yaml")))
    assert f"{count} spec{'s' if count != 1 else ''} OK" in capsys.readouterr().out
