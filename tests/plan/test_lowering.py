"""Lowering formulas to vector programs: structure (APIs, live buffers) and numerics (the numpy model of
the lowered program agrees with the float64 reference)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from opgen import formula as F
from opgen.plan.kernel import kernel_plan
from opgen.plan.kernel_model import run_program
from opgen.plan.lowering import LoweringError, lower
from opgen.spec.dtypes import DType
from opgen.spec.loader import load_spec, load_spec_text

ROOT = Path(__file__).resolve().parents[2]


def _activations():
    path = ROOT / "tests" / "formula" / "test_formula_activations.py"
    spec = importlib.util.spec_from_file_location("formula_activations", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being created
    spec.loader.exec_module(module)
    return module.ACTIVATIONS, module.SYMBOLS


ACTIVATIONS, SYMBOLS = _activations()


@pytest.mark.parametrize("act", ACTIVATIONS, ids=[a.name for a in ACTIVATIONS])
def test_activation_family_lowers_and_matches_reference(act):
    expr = F.parse(act.formula, SYMBOLS)
    tensors = list(F.free_names(expr, F.SymbolKind.TENSOR))
    program = lower(expr, inputs=tensors, storage=DType.FLOAT, compute=DType.FLOAT)
    rng = np.random.default_rng(7)
    inputs = {name: rng.uniform(-6, 6, 4096).astype(np.float32) for name in tensors}
    got = run_program(program, inputs, act.scalars).astype(np.float64)
    want = F.evaluate(expr, {**inputs, **act.scalars}, np.float32).astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = np.isnan(want) | np.isclose(got, want, rtol=2e-5, atol=2e-5)
    assert ok.all(), (act.name, got[~ok][:5], want[~ok][:5])


def _plan(name):
    return kernel_plan(load_spec(ROOT / "specs" / f"{name}.yaml").spec)


def test_leaky_relu_uses_the_leaky_relu_api_and_no_temporaries():
    plan = _plan("leaky_relu")
    fp32 = plan.variant(DType.FLOAT, {})
    assert [i.api for i in fp32.program.instrs] == ["LeakyRelu"]
    assert not fp32.program.temps and not fp32.program.masks
    bf16 = plan.variant(DType.BFLOAT16, {})
    assert [i.api for i in bf16.program.instrs] == ["Cast", "LeakyRelu", "Cast"]
    assert [i.mode for i in bf16.program.instrs if i.api == "Cast"] == ["CAST_NONE", "CAST_RINT"]
    assert len(bf16.program.temps) == 1  # cast, LeakyRelu and cast back reuse one buffer


def test_leaky_relu_grad_program_and_buffers():
    plan = _plan("leaky_relu_grad")
    fp32 = plan.variant(DType.FLOAT, {})
    assert [i.api for i in fp32.program.instrs] == ["CompareScalar", "Muls", "Select"]
    assert fp32.program.instrs[0].padded_count and fp32.program.instrs[0].mode == "GT"
    assert (len(fp32.program.temps), len(fp32.program.masks)) == (1, 1)
    # 3 double-buffered queues + 1 temporary = 7 tile-sized buffers (the community kernel holds 8)
    assert fp32.program.live_buffers(2) == 8 and fp32.program.ub_bytes_per_element(2) == 3 * 2 * 4 + 4 + 1 / 8
    assert plan.flags == ()  # selfIsResult is a host check only


def test_elu_grad_modes_become_tiling_keys():
    plan = _plan("elu_grad_v2")
    assert plan.flags == ("isResult",)
    keys = {(v.storage, dict(v.mode)["isResult"]): v.key for v in plan.variants}
    assert len(set(keys.values())) == 6
    with_exp = plan.variant(DType.FLOAT16, {"isResult": False})
    assert "Exp" in with_exp.program.apis and with_exp.compute is DType.FLOAT  # the spec computes fp16 in float
    assert "Exp" not in plan.variant(DType.FLOAT16, {"isResult": True}).program.apis


def test_scalar_operands_use_scalar_apis_and_division_keeps_its_rounding():
    symbols = {"x": F.Symbol.tensor(), "s": F.Symbol.scalar()}
    program = lower(F.parse("x * s + 1 - x / s", symbols), inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT)
    apis = [i.api for i in program.instrs]
    assert apis[:2] == ["Muls", "Adds"] and "Duplicate" in apis and "Div" in apis


def test_temporaries_are_reused():
    symbols = {"x": F.Symbol.tensor()}
    expr = F.parse("exp(exp(exp(exp(x))))", symbols)
    program = lower(expr, inputs=["x"], storage=DType.FLOAT16, compute=DType.FLOAT)
    assert len(program.temps) == 1  # each Exp runs in place on the cast input


def test_flags_must_be_specialised_first():
    symbols = {"x": F.Symbol.tensor(), "f": F.Symbol.flag()}
    with pytest.raises(LoweringError):
        lower(F.parse("where(f, x, -x)", symbols), inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT)


def _leaky_relu_with(formula: str):
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
    text = text.replace("expr: where(self > 0, self, self * negativeSlope)", f"expr: {formula}")
    text = text.replace("  vector_apis: [LeakyRelu]\n", "")
    return kernel_plan(load_spec_text(text, "leaky_relu_variant.yaml").spec)


def test_a_function_imprecise_in_half_makes_the_kernel_compute_in_float():
    # log1p's composition computed in float16 errs up to 1.4e-3 (> 双千分之一's 1e-3): the half kernel computes
    # in float; exp is correctly rounded in half, so the half kernel stays in half.
    assert not F.FUNCTIONS["log1p"].precise_in("float16") and F.FUNCTIONS["exp"].precise_in("float16")
    imprecise = _leaky_relu_with("log1p(self) * negativeSlope")
    assert imprecise.variant(DType.FLOAT16, {}).compute is DType.FLOAT
    precise = _leaky_relu_with("exp(self) * negativeSlope")
    assert precise.variant(DType.FLOAT16, {}).compute is DType.FLOAT16
    assert precise.variant(DType.FLOAT, {}).compute is DType.FLOAT


def test_advanced_math_apis_never_write_into_their_source():
    # Tanh/Erf/Sigmoid forbid dst/src overlap: the result goes to a fresh buffer even when the source dies there
    symbols = {"x": F.Symbol.tensor()}
    program = lower(F.parse("tanh(exp(x))", symbols), inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT)
    exp, tanh = program.instrs
    assert (exp.api, tanh.api) == ("Exp", "Tanh") and tanh.distinct_dst and tanh.srcs[0] != tanh.dst
    program = lower(F.parse("exp(exp(x))", symbols), inputs=["x"], storage=DType.FLOAT16, compute=DType.FLOAT)
    assert all(i.srcs[0] == i.dst for i in program.instrs if i.api == "Exp")  # basic APIs run in place


def test_integer_powers_are_multiplication_chains():
    symbols = {"x": F.Symbol.tensor()}

    def apis(text):
        return [
            i.api for i in lower(F.parse(text, symbols), inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT).instrs
        ]

    assert apis("x ** 2") == ["Mul"] and apis("x ** 3") == ["Mul", "Mul"] and apis("x ** 4") == ["Mul", "Mul"]
    assert apis("pow(x, -2)") == ["Mul", "Reciprocal"] and apis("x ** -0.5") == ["Rsqrt"]
    assert apis("x ** 0") == ["Duplicate"]
    with pytest.raises(LoweringError, match=r"x \*\* 2.5"):
        apis("x ** 2.5")
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -3.0, 1.5], np.float32)
    for text in ("x ** 3", "x ** 4", "x ** 5", "x ** -3", "x ** 0"):
        expr = F.parse(text, symbols)
        program = lower(expr, inputs=["x"], storage=DType.FLOAT, compute=DType.FLOAT)
        want = F.evaluate(expr, {"x": x}, np.float32)
        np.testing.assert_array_equal(run_program(program, {"x": x}, {}), want, err_msg=text)
