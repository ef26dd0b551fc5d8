"""Spec features the three real specs do not exercise, each generated from a one-line variant of a real spec.

Before: a scalar default `.nan` was printed as `nan` (NameError when `opgen_ops` is imported); a spec without
`api.aten` generated `torch.ops.aten.None` and `opgen_ops.None`.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np

from opgen.build import check_spec_text
from opgen.emit.golden_tests import render_golden_tests
from opgen.emit.python import python_fragment, render_python
from opgen.emit.tests import render_tests
from opgen.emit.torch_npu import render_torch_npu, torch_npu_fragment

ROOT = Path(__file__).resolve().parents[2]


def _variant(name: str, *edits: tuple[str, str]):
    text = (ROOT / "specs" / name).read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return check_spec_text(text, f"specs/{name}")


def _function(source: str, name: str) -> ast.FunctionDef:
    return next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)


def test_a_nan_default_is_a_python_expression() -> None:
    plan = _variant("leaky_relu.yaml", ("    default: 0.01", "    default: .nan"))
    source = render_python([python_fragment(plan)])["python/opgen_ops/__init__.py"]
    compile(source, "__init__.py", "exec")
    default = _function(source, "leaky_relu").args.defaults[-1]
    assert math.isnan(eval(compile(ast.Expression(default), "<default>", "eval"), {"math": math}))
    stub = render_python([python_fragment(plan)])["python/opgen_ops/__init__.pyi"]
    assert "math.nan" not in stub and "negative_slope: float | int | bool | np.generic | None = ..." in stub


def test_a_spec_without_aten_names_its_binding_after_the_api() -> None:
    plan = _variant("leaky_relu.yaml", ("  aten: leaky_relu\n", ""), ("    aten: leaky_relu_\n", ""))
    files = {
        **render_python([python_fragment(plan)]),
        **render_golden_tests(plan),
        **render_tests(plan),
        **render_torch_npu([torch_npu_fragment(plan)]),
    }
    for path, text in files.items():
        assert "aten.None" not in text and "opgen_ops.None" not in text and "def None" not in text, path
    binding = files["python/opgen_ops/__init__.py"]
    assert _function(binding, "leaky_relu") and _function(binding, "inplace_leaky_relu")
    golden = files["tests/test_golden_leaky_relu.py"]
    compile(golden, "golden.py", "exec")
    assert "torch.ops.aten" not in golden and "opgen_ops.leaky_relu(" in golden
    gen_data = files["tests/golden/gen_data.py"]
    compile(gen_data, "gen_data.py", "exec")
    assert "torch.ops.aten" not in gen_data


def test_generated_files_carry_only_the_helpers_their_formula_calls() -> None:
    # Before: every golden script and AICPU kernel embedded every helper of the function table (erfinv's
    # Halley iteration in a LeakyRelu test), a block growing with each function added to the table.
    from opgen.emit.aicpu import render_aicpu

    def generated(plan) -> tuple[str, str, str]:
        golden = render_golden_tests(plan)[f"tests/test_golden_{plan.op}.py"]
        gen_data = render_tests(plan)["tests/golden/gen_data.py"]
        return golden, gen_data, render_aicpu(plan)[f"op_kernel/aicpu/{plan.op}_aicpu.cpp"]

    old = "  expr: where(self > 0, self, self * negativeSlope)"
    no_hint = ("  vector_apis: [LeakyRelu]\n", "")  # the formulas below do not call LeakyRelu
    plan = _variant("leaky_relu.yaml", (old, "  expr: where(self > 0, self, softplus(self) * negativeSlope)"), no_hint)
    golden, gen_data, aicpu = generated(plan)
    for script in (golden, gen_data):
        compile(script, "script.py", "exec")
        assert [
            f.name for f in ast.parse(script).body if isinstance(f, ast.FunctionDef) and f.name.startswith("_")
        ] == ["_softplus"]
    assert "FormulaSoftplus(" in aicpu
    assert "FormulaErfinv" not in aicpu and "FormulaSign" not in aicpu and "FormulaMin" not in aicpu

    golden, gen_data, aicpu = generated(_variant("leaky_relu.yaml"))
    assert "def _" not in golden and "def _" not in gen_data and "inline double" not in aicpu
    clamped = _variant("leaky_relu.yaml", (old, "  expr: min(max(self, 0), negativeSlope)"), no_hint)
    assert "FormulaMin(" in generated(clamped)[2] and "FormulaSoftplus" not in generated(clamped)[2]


def test_derived_inputs_are_made_in_dependency_order_from_the_inputs_as_stored(tmp_path) -> None:
    # golden.derived_inputs in any order, through a formula.vars alias (x is self): grad_output is derived from buffer,
    # which is derived itself, so buffer comes first, and grad_output is computed from buffer as stored
    derived = "  derived_inputs: {gradOutput: 1 + buffer, buffer: exp(-abs(x))}"
    text = (ROOT / "specs" / "logsigmoid_grad.yaml").read_text(encoding="utf-8")
    assert "  derived_inputs: {buffer: exp(-abs(self))}" in text
    text = text.replace("  derived_inputs: {buffer: exp(-abs(self))}", derived)
    plan = check_spec_text(text, "specs/logsigmoid_grad.yaml", ROOT / "specs")  # its derivative check reads log_sigmoid
    assert [name for name, _ in plan.golden.derived_inputs] == ["buffer", "gradOutput"]
    golden = render_golden_tests(plan)["tests/test_golden_logsigmoid_grad.py"]
    compile(golden, "golden.py", "exec")
    assert 'DERIVED_INPUTS = ["buffer", "grad_output"]' in golden
    script = tmp_path / "gen_data.py"
    script.write_text(render_tests(plan)["tests/golden/gen_data.py"], encoding="utf-8")
    words = " ".join(script.read_text(encoding="utf-8").split())
    assert "but for those the spec derives from the others as stored (buffer = exp(-abs(self)); gradOutput = 1" in words
    namespace: dict = {"__name__": "gen_data"}
    exec(compile(script.read_text(encoding="utf-8"), str(script), "exec"), namespace)
    for dtype, storage in (("FLOAT", np.float32), ("FLOAT16", np.float16)):
        namespace["main"](["--dtype", dtype, "--shape", "3,40", "--reference", "numpy", "--out-dir", str(tmp_path)])
        read = {n: np.fromfile(tmp_path / f"input_{n}.bin", storage) for n in ("grad_output", "self", "buffer")}
        with np.errstate(all="ignore"):
            buffer = np.exp(-np.abs(read["self"].astype(np.float64))).astype(storage)
            assert np.array_equal(read["buffer"], buffer, equal_nan=True)
            grad_output = (1 + read["buffer"].astype(np.float64)).astype(storage)
            assert np.array_equal(read["grad_output"], grad_output, equal_nan=True)
        assert np.isnan(read["self"]).any() and np.isnan(read["buffer"]).any()  # NaN in, NaN derived


def test_a_spec_without_derived_inputs_generates_no_derivation() -> None:
    plan = _variant("leaky_relu.yaml")
    assert plan.golden.derived_inputs == ()
    for text in (
        render_golden_tests(plan)["tests/test_golden_leaky_relu.py"],
        render_tests(plan)["tests/golden/gen_data.py"],
    ):
        assert "derive" not in text and "in_golden_precision" not in text
