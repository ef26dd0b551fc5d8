"""Clamp-like formulas keep torch's sign of zero: relu6(-0.0) and hardtanh(-0.0, 0, 1) are -0.0 in torch (clamp keeps
its input within the bounds; torch.maximum/minimum keep the first argument on a tie), so in opgen's float64
reference, in the numpy reference the golden tests carry, in the AICPU kernel's C++ helpers, in the numpy model of the
AI Core kernel and in the kernel itself on the twin.

The specs are written here: the guide's Relu6 (docs/adding-an-operator.md) and a Hardtanh-like spec with scalar bounds
made from the shipped LeakyRelu (none of them is added to specs/)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from program_twin import ProgramCase, ProgramRunner

from opgen import formula as F
from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.kernel import kernel_plan
from opgen.plan.kernel_model import run_program
from opgen.plan.lowering import lower
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import kernel_formula
from opgen.spec.loader import load_spec
from opgen.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[2]
# -0.0 and +0.0 within the bounds, next to them, at them, outside them, NaN
X = np.array([-0.0, 0.0, -1e-3, 1e-3, -2.0, 0.5, 1.0, 7.0, np.nan], dtype=np.float64)


def _relu6(tmp_path: Path) -> OpSpec:
    guide = (ROOT / "docs" / "adding-an-operator.md").read_text(encoding="utf-8")
    (text,) = re.findall(r"```yaml\n(.*?)```", guide, re.S)
    path = tmp_path / "relu6.yaml"
    path.write_text(text, encoding="utf-8")
    return load_spec(path).spec


def _hardtanh_like(tmp_path: Path) -> OpSpec:
    """LeakyRelu with its slope renamed minVal, a second bound maxVal, and clamp(self, minVal, maxVal)."""
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
    text = text.replace("negativeSlope", "minVal").replace("negative_slope", "min_val")
    text = text.replace("LeakyRelu", "HardtanhLike").replace("leaky_relu", "hardtanh_like")
    text = text.replace("aten: hardtanh_like_", "aten: hardtanh_").replace("aten: hardtanh_like", "aten: hardtanh")
    replacements = {
        "expr: where(self > 0, self, self * minVal)": "expr: clamp(self, minVal, maxVal)",
        "    default: 0.01\n": "    default: -1.0\n  - name: maxVal\n    kind: scalar\n    description: 上界。\n"
        "    dtype: {castable_to: FLOAT}\n    default: 1.0\n",
        "not_null: [self, minVal, out]": "not_null: [self, minVal, maxVal, out]",
        "scalars: {minVal: 0.1}": "scalars: {minVal: 0.0, maxVal: 1.0}",
        "scalar_dtypes: {minVal: FLOAT}": "scalar_dtypes: {minVal: FLOAT, maxVal: FLOAT}",
        "minVal: [0.01, 0.0, 0.2, 2.0, -0.3]": "minVal: [0.0, -1.0]\n    maxVal: [1.0]",
        "  vector_apis: [HardtanhLike]\n": "",
        "- {name: min_val, param: minVal, default: 0.0}": "- {name: min_val, param: minVal, default: -1.0}\n"
        "    - {name: max_val, param: maxVal, default: 1.0}",
    }
    for old, new in replacements.items():
        assert old in text, old  # the shipped spec changed: update the recipe
        text = text.replace(old, new)
    path = tmp_path / "hardtanh_like.yaml"
    path.write_text(text, encoding="utf-8")
    return load_spec(path).spec


def _torch_like(spec: OpSpec, scalars: dict[str, float]) -> np.ndarray:
    """What torch gives: clamp keeps x (its sign of zero too) within the bounds."""
    lo, hi = (0.0, 6.0) if spec.operator.dir == "relu6" else (scalars["minVal"], scalars["maxVal"])
    x = X
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x), np.nan, np.where(x < lo, lo, np.where(x > hi, hi, x)))


CASES = [
    ("relu6", {}),
    ("hardtanh_like", {"minVal": 0.0, "maxVal": 1.0}),
    ("hardtanh_like", {"minVal": -0.0, "maxVal": 0.0}),
]


@pytest.fixture(scope="module")
def specs(tmp_path_factory) -> dict[str, OpSpec]:
    tmp = tmp_path_factory.mktemp("sign_of_zero")
    return {"relu6": _relu6(tmp), "hardtanh_like": _hardtanh_like(tmp)}


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    number = ~np.isnan(want)
    np.testing.assert_array_equal(got[number], want[number])
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]), err_msg=f"{got} vs {want}")


@pytest.mark.parametrize("name,scalars", CASES)
def test_the_references_keep_the_sign_of_zero(specs, name, scalars):
    spec = specs[name]
    expr = kernel_formula(spec)
    want = _torch_like(spec, scalars)
    _same_bits(F.evaluate(expr, {"self": X, **scalars}), want)
    # the numpy source the generated golden tests carry, with its helpers
    namespace: dict = {"np": np, "math": __import__("math")}
    exec(F.numpy_helpers([expr]), namespace)  # opgen's own generated source
    _same_bits(eval(F.to_numpy(expr), namespace, {"self": X, **scalars}), want)
    assert "FormulaMax(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? b : a); }" in (
        F.cpp_helpers([expr])
    )


@pytest.mark.parametrize(
    "text,want",
    [
        ("max(x, 0)", -0.0),  # relu: the tensor against its bound, whichever side it is written on
        ("max(0, x)", -0.0),
        ("min(0, x)", -0.0),
        ("max(y, x)", 0.0),  # two tensors: the first, as torch.maximum
        ("max(x, y)", -0.0),
        ("min(y, x)", 0.0),
    ],
)
def test_a_tie_keeps_the_operand_torch_keeps(text, want):
    symbols = {"x": F.SymbolKind.TENSOR, "y": F.SymbolKind.TENSOR}
    expr = F.parse(text, symbols)
    x, y = np.array([-0.0]), np.array([0.0])
    _same_bits(F.evaluate(expr, {"x": x, "y": y}), np.array([want]))
    namespace: dict = {"np": np}
    exec(F.numpy_helpers([expr]), namespace)  # opgen's own generated source
    _same_bits(eval(F.to_numpy(expr), namespace, {"x": x, "y": y}), np.array([want]))
    for storage, compute in ((DType.FLOAT, DType.FLOAT), (DType.FLOAT16, DType.FLOAT)):
        program = lower(expr, inputs=["x", "y"], storage=storage, compute=compute)
        _same_bits(run_program(program, {"x": x.astype(storage.numpy), "y": y.astype(storage.numpy)}, {}), [want])


@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16, DType.BFLOAT16])
@pytest.mark.parametrize("name,scalars", CASES)
def test_the_kernel_model_keeps_the_sign_of_zero(specs, name, scalars, dtype):
    spec = specs[name]
    x = X.astype(np.float32).astype(dtype.numpy)
    got = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": dtype}, scalars, dtype)
    _same_bits(got, _torch_like(spec, scalars).astype(np.float32).astype(dtype.numpy))


@pytest.mark.cxx
def test_the_kernel_keeps_the_sign_of_zero_on_the_twin(specs, tmp_path):
    cases = []
    for index, (name, scalars) in enumerate(CASES):
        for dtype in (DType.FLOAT, DType.FLOAT16):
            program = kernel_plan(specs[name]).variant(dtype, {}, scalars).program
            cases.append(ProgramCase(f"case{index}_{dtype.value.lower()}", program, scalars))
    runner = ProgramRunner(cases, tmp_path)
    for case in cases:
        x = X.astype(np.float32).astype(case.program.storage.numpy)
        got = runner.run(case.name, {"self": x})
        _same_bits(got, runner.model(case.name, {"self": x}))  # the model is what the twin computes
        spec = specs[CASES[int(case.name[4])][0]]
        _same_bits(got, _torch_like(spec, dict(case.scalars)).astype(np.float32).astype(case.program.storage.numpy))
