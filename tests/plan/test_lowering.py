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
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]


def _activations():
    path = ROOT / "tests" / "formula" / "test_formula_activations.py"
    spec = importlib.util.spec_from_file_location("formula_activations", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being created
    spec.loader.exec_module(module)
    return module.ACTIVATIONS, module.SYMBOLS


ACTIVATIONS, SYMBOLS = _activations()
# Functions the vector lowering does not have yet (no Ascend C vector API or composition chosen).
NOT_LOWERABLE = {"gelu", "gelu_backward"}


@pytest.mark.parametrize("act", ACTIVATIONS, ids=[a.name for a in ACTIVATIONS])
def test_activation_family_lowers_and_matches_reference(act):
    expr = F.parse(act.formula, SYMBOLS)
    tensors = list(F.free_names(expr, F.SymbolKind.TENSOR))
    try:
        program = lower(expr, inputs=tensors, storage=DType.FLOAT, compute=DType.FLOAT)
    except LoweringError:
        assert act.name.split("_tanh")[0].split("_erf")[0] in NOT_LOWERABLE or "erf" in act.formula, act.name
        pytest.skip(f"{act.name}: not lowerable yet")
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
