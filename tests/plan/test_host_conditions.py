"""A where() whose condition reads no tensor (SituGlu's linearBeta > 0) lowers as a kernel mode the tiling decides:
one program per outcome, each computing one branch; the variant a call runs follows its scalar values."""

from __future__ import annotations

from pathlib import Path

from opgen import formula as F
from opgen.plan.kernel import kernel_plan
from opgen.spec.dtypes import DType
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]


def test_a_host_condition_is_a_mode_bit_with_a_program_per_outcome():
    plan = kernel_plan(load_spec(ROOT / "specs" / "situ_glu.yaml").spec)
    assert [F.to_text(c) for c in plan.conditions] == ["linearBeta > 0"]
    floats = [v for v in plan.variants if v.storage is DType.FLOAT]
    assert [(v.conditions, v.mode_index) for v in floats] == [((False,), 0), ((True,), 1)]
    tanhs = [sum(i.api == "Tanh" for i in v.program.instrs) for v in floats]
    assert tanhs[1] == tanhs[0] + 1  # linearBeta * tanh(up / linearBeta) only where linearBeta > 0
    assert not any(i.api in ("Compare", "CompareScalar", "Select") for v in floats for i in v.program.instrs)
    assert plan.variant(DType.FLOAT, {}, {"beta": 1.0, "linearBeta": 1.5}).conditions == (True,)
    assert plan.variant(DType.FLOAT, {}, {"beta": 1.0, "linearBeta": 0.0}).conditions == (False,)
    assert plan.variant(DType.FLOAT, {}, {"beta": 1.0, "linearBeta": -1.0}).conditions == (False,)


def test_the_tiling_decides_the_condition_from_its_attribute():
    from opgen.emit.host import render_host
    from opgen.plan.operator import plan_operator

    operator = plan_operator(load_spec(ROOT / "specs" / "situ_glu.yaml").spec, "specs/situ_glu.yaml")
    tiling = render_host(operator)["op_host/situ_glu_tiling.cpp"]
    assert "if ((static_cast<float>(*linearBeta) > 0.0f)) {" in tiling
    assert "mode += 1u;" in tiling
