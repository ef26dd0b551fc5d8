"""`kernel.vector_apis` accepts exactly the vector APIs the kernel lowering emits, from the one list the lowering
itself is held to (`formula.KERNEL_APIS`).

Before: spec validation kept its own list, which lacked the APIs the function table had since learned to lower
to (Tanh, Erf, Sigmoid, Sign, Floor, Trunc, Rsqrt) and listed Relu, which no kernel ever calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen import formula as F
from opgen.build import check_spec_text
from opgen.plan.kernel import kernel_plan
from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec_text

ROOT = Path(__file__).resolve().parents[2]
FORMULA = "  expr: where(self > 0, self, self * negativeSlope)"


def _spec(expr: str, apis: str) -> str:
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
    return text.replace(FORMULA, f"  expr: {expr}").replace("  vector_apis: [LeakyRelu]", f"  vector_apis: [{apis}]")


@pytest.mark.parametrize(
    ("function", "api"),
    [(n, f.lowering.name) for n, f in F.FUNCTIONS.items() if isinstance(f.lowering, F.VectorApi)],
)
def test_every_function_api_may_be_required(function: str, api: str) -> None:
    plan = check_spec_text(_spec(f"{function}(self) * negativeSlope", api), "specs/leaky_relu.yaml")
    used = {instr.api for variant in plan.kernel.variants for instr in variant.program.instrs}
    assert api in used


def test_an_api_the_lowering_never_emits_is_unknown() -> None:
    with pytest.raises(SpecError) as info:
        check_spec_text(_spec("max(self, 0) * negativeSlope", "Relu"), "specs/leaky_relu.yaml")
    assert "unknown vector API 'Relu'" in str(info.value.diagnostics)


def test_the_lowering_emits_only_listed_apis() -> None:
    for name in sorted(F.FUNCTIONS):
        text = _spec(f"where(self > 1, {name}(self), max(self, negativeSlope) - 2 * self)", "")
        # loaded and validated only: these made-up formulas need not meet LeakyRelu's precision standards
        plan = kernel_plan(load_spec_text(text, "specs/leaky_relu.yaml").spec)
        assert {i.api for v in plan.variants for i in v.program.instrs} <= set(F.KERNEL_APIS), name


def test_a_required_api_the_kernel_does_not_call_is_an_error() -> None:
    # Before: `kernel.vector_apis` ("vector APIs the kernel must use") was checked for spelling only; a formula
    # change that lost the LeakyRelu pattern still built, silently without the API the spec requires.
    with pytest.raises(SpecError) as info:
        check_spec_text(_spec("where(self > 0, self, exp(self) * negativeSlope)", "LeakyRelu"), "specs/leaky_relu.yaml")
    message = str(info.value.diagnostics)
    assert "the kernel must use LeakyRelu" in message and "Exp" in message
