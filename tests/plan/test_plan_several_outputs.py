"""The plan of an operator with several outputs (aclnnLogSigmoidForward: out written, buffer taken but never
written): what the signature, the output rules, the calls and the bindings hold, and what the plan refuses."""

from __future__ import annotations

import pytest

from opgen.build import plan_specs_of
from opgen.plan.operator import binding_out_keywords, binding_result_index
from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec_documents, load_spec_text_documents
from opgen.spec.model import Direction
from tests.spec.test_spec_several_outputs import BUFFER_EXAMPLE, BUFFER_WRITTEN, FIRST, SECOND, SPEC


def test_two_written_outputs_validate_but_the_kernel_writes_one() -> None:
    """The spec states an expression per output; the plan refuses, at formula.outputs, what the kernel cannot
    write yet (one kernel writing several outputs)."""
    second = (
        SECOND.replace(*BUFFER_WRITTEN, 1)
        .replace(*BUFFER_EXAMPLE, 1)
        .replace("    out: -softplus(-x)", "    out: -softplus(-x)\n    buffer: exp(-abs(x))", 1)
    )
    text = FIRST + second
    loaded = load_spec_text_documents(text, "specs/log_sigmoid.yaml", SPEC)
    spec = loaded[1].spec
    assert [p.name for p in spec.outputs] == ["out", "buffer"]
    assert list(spec.formula.computed) == ["out", "buffer"]
    with pytest.raises(SpecError) as caught:
        plan_specs_of(loaded, "specs/log_sigmoid.yaml")
    [problem] = caught.value.diagnostics
    assert "writes out, buffer; opgen generates kernels writing one output" in problem.message
    line = text.count("\n", 0, len(FIRST) + second.index("  outputs:")) + 1
    assert problem.location.line == line


def test_an_unwritten_output_is_in_the_signature_but_not_among_the_computed_outputs() -> None:
    plans = plan_specs_of(load_spec_documents(SPEC), "specs/log_sigmoid.yaml")
    forward = plans[1]
    assert [p.name for p in forward.main.user_params] == ["self", "out", "buffer"]
    buffer = forward.main.user_params[2]
    assert buffer.direction is Direction.OUTPUT and f"{buffer.ctype}{buffer.stars}" == "aclTensor*"
    assert [rule.param.name for rule in forward.outputs] == ["out"]
    assert [p.name for p in forward.spec.unwritten_outputs] == ["buffer"]
    # every call passes buffer as torch_npu does: an empty tensor in self's dtype
    for call in (*forward.valid_calls, *forward.negative_calls):
        assert call.args["buffer"].shape == (0,)
        assert call.args["buffer"].dtype == call.args["self"].dtype or call.args["self"].kind != "tensor"


def test_bindings_return_every_output_in_atens_order_and_take_them_by_name() -> None:
    single, forward = plan_specs_of(load_spec_documents(SPEC), "specs/log_sigmoid.yaml")
    assert binding_out_keywords(single.spec) == {"out": "out"} and single.result_index is None
    # aten: log_sigmoid_forward.output(Tensor self, *, Tensor(a!) output, Tensor(b!) buffer)
    assert binding_out_keywords(forward.spec) == {"out": "output", "buffer": "buffer"}
    assert forward.result_index == binding_result_index(forward.spec) == 0
