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


def _two_written() -> str:
    """log_sigmoid.yaml with aclnnLogSigmoidForward writing buffer = exp(-|x|) too (what aten does on CPU)."""
    second = (
        SECOND.replace(*BUFFER_WRITTEN, 1)
        .replace(*BUFFER_EXAMPLE, 1)
        .replace("    out: -softplus(-x)", "    out: -softplus(-x)\n    buffer: exp(-abs(x))", 1)
        # writing buffer too, it needs a kernel of its own: LogSigmoid's computes one output
        .replace("  runs: {type: LogSigmoid}\n", "", 1)
    )
    return FIRST + second


def test_two_written_outputs_are_lowered_into_one_kernel() -> None:
    """Each written output has its expression lowered into the same program: its own output buffer, queue and
    GM argument; the UB budget per element counts both outputs' queues."""
    loaded = load_spec_text_documents(_two_written(), "specs/log_sigmoid.yaml", SPEC)
    single, forward = plan_specs_of(loaded, "specs/log_sigmoid.yaml")
    assert [rule.param.name for rule in forward.outputs] == ["out", "buffer"]
    assert forward.kernel.outputs == ("out", "buffer") and single.kernel.outputs == ("out",)
    for variant in forward.kernel.variants:
        program = variant.program
        assert [b.name for b in program.outputs] == ["out", "buffer"]
        assert {i.dst.name for i in program.instrs if i.dst.kind == "output"} == {"out", "buffer"}
        one = single.kernel.variant(variant.storage, {}).program
        assert program.ub_bytes_per_element(2) >= one.ub_bytes_per_element(2) + 2 * variant.storage.itemsize


def test_several_outputs_with_an_aicpu_route_are_refused_at_routing() -> None:
    """The AICPU kernel computes one output: a spec routing dtypes there with two written outputs is refused."""
    text = _two_written()
    # every document of the file takes DOUBLE (the replacements below reach each), so each routes it to AICPU
    text = text.replace("\nparams:\n", "\nrouting:\n  aicpu: [DOUBLE]\n\nparams:\n")
    text = text.replace(
        "    dtypes: [FLOAT, FLOAT16, BFLOAT16]\n", "    dtypes: [FLOAT, FLOAT16, BFLOAT16, DOUBLE]\n"
    ).replace(
        "    BFLOAT16: {rtol: 4.0e-3, atol: 4.0e-3, max_fail_ratio: 4.0e-3}\n",
        "    BFLOAT16: {rtol: 4.0e-3, atol: 4.0e-3, max_fail_ratio: 4.0e-3}\n"
        "    DOUBLE: {rtol: 1.0e-4, atol: 1.0e-4, max_fail_ratio: 1.0e-4}\n",
    )
    loaded = load_spec_text_documents(text, "specs/log_sigmoid.yaml", SPEC)
    with pytest.raises(SpecError) as caught:
        plan_specs_of(loaded, "specs/log_sigmoid.yaml")
    messages = [d.message for d in caught.value.diagnostics]
    assert any("writes out, buffer; opgen generates AICPU kernels writing one output" in m for m in messages), messages


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
