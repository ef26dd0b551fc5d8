"""One vector program writing several outputs (lower_outputs): each output in its own buffer, values the
outputs share computed once, the numpy model of every output against the float64 reference."""

from __future__ import annotations

import numpy as np
import pytest

from opgen import formula as F
from opgen.plan.kernel import BUFFER_NUM
from opgen.plan.kernel_model import run_program_outputs
from opgen.plan.lowering import lower, lower_outputs
from opgen.spec.dtypes import DType

SYMBOLS = {name: F.Symbol(F.SymbolKind.TENSOR) for name in ("gradOutput", "self", "weight")}
PRELU_GRAD = {
    "gradInput": "where(self > 0, gradOutput, weight * gradOutput)",
    "update": "where(self > 0, 0, gradOutput * self)",
}
INPUTS = ["gradOutput", "self", "weight"]


def _exprs(texts: dict[str, str]) -> dict[str, F.Expr]:
    return {name: F.parse(text, SYMBOLS) for name, text in texts.items()}


def _inputs(dtype: np.dtype, n: int = 4096) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    values = {name: rng.uniform(-4, 4, n).astype(dtype) for name in INPUTS}
    values["self"][:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-4, -1e-4, 2.0], dtype)
    return values


@pytest.mark.parametrize(
    ("storage", "compute"),
    [(DType.FLOAT, DType.FLOAT), (DType.FLOAT16, DType.FLOAT16), (DType.FLOAT16, DType.FLOAT)],
)
def test_every_output_matches_its_reference(storage: DType, compute: DType) -> None:
    exprs = _exprs(PRELU_GRAD)
    program = lower_outputs(exprs, inputs=INPUTS, storage=storage, compute=compute)
    assert [(b.kind, b.name) for b in program.outputs] == [("output", "gradInput"), ("output", "update")]
    assert program.output is program.outputs[0]
    values = _inputs(storage.numpy)
    got = run_program_outputs(program, values, {})
    assert list(got) == ["gradInput", "update"]
    for name, expr in exprs.items():
        want = F.evaluate(expr, dict(values), storage.numpy)
        assert got[name].dtype == storage.numpy
        np.testing.assert_array_equal(got[name], want, err_msg=name)


def test_each_output_is_written_once_and_a_shared_comparison_is_computed_once() -> None:
    program = lower_outputs(_exprs(PRELU_GRAD), inputs=INPUTS, storage=DType.FLOAT, compute=DType.FLOAT)
    written = [instr.dst for instr in program.instrs if instr.dst.kind == "output"]
    assert [b.name for b in written] == ["gradInput", "update"]
    assert [instr.api for instr in program.instrs].count("CompareScalar") == 1
    assert {b.cpp for b in program.outputs} == {"gradInputLocal", "updateLocal"}


def test_an_output_reads_a_value_an_earlier_output_holds() -> None:
    """out2 reuses out1's value: it is read from out1's buffer (the temporary it replaced is never written)."""
    exprs = _exprs({"first": "gradOutput * self", "second": "gradOutput * self + 1", "third": "gradOutput * self"})
    program = lower_outputs(exprs, inputs=INPUTS, storage=DType.FLOAT, compute=DType.FLOAT)
    first = program.outputs[0]
    assert any(first in instr.srcs for instr in program.instrs), "the later outputs read first's buffer"
    written = {instr.dst for instr in program.instrs}
    for instr in program.instrs:
        for src in instr.srcs:
            assert src.kind == "input" or src in written, f"{instr.api} reads {src}, never written"
    values = _inputs(np.float32)
    got = run_program_outputs(program, values, {})
    product = values["gradOutput"] * values["self"]
    np.testing.assert_array_equal(got["first"], product)
    np.testing.assert_array_equal(got["second"], product + np.float32(1))
    np.testing.assert_array_equal(got["third"], product)


def test_outputs_that_are_an_input_or_a_constant_get_their_own_copy() -> None:
    exprs = _exprs({"copy": "self", "ones": "1.5 + 0 * 0", "sum": "self + gradOutput"})
    program = lower_outputs(exprs, inputs=INPUTS, storage=DType.FLOAT, compute=DType.FLOAT)
    values = _inputs(np.float32)
    got = run_program_outputs(program, values, {})
    np.testing.assert_array_equal(got["copy"], values["self"])
    np.testing.assert_array_equal(got["ones"], np.full(4096, 1.5, np.float32))
    np.testing.assert_array_equal(got["sum"], values["self"] + values["gradOutput"])


def test_the_ub_budget_counts_a_double_buffered_queue_per_output() -> None:
    exprs = _exprs(PRELU_GRAD)
    both = lower_outputs(exprs, inputs=INPUTS, storage=DType.FLOAT16, compute=DType.FLOAT16)
    one = lower(exprs["gradInput"], inputs=INPUTS, storage=DType.FLOAT16, compute=DType.FLOAT16)
    queues = lambda p: (len(p.inputs) + len(p.outputs)) * BUFFER_NUM * 2  # noqa: E731
    assert both.ub_bytes_per_element(BUFFER_NUM) == queues(both) + 2 * len(both.temps) + len(both.masks) / 8
    assert both.ub_bytes_per_element(BUFFER_NUM) - one.ub_bytes_per_element(BUFFER_NUM) >= BUFFER_NUM * 2
    assert both.live_buffers(BUFFER_NUM) == 5 * BUFFER_NUM + len(both.temps) + len(both.masks)


@pytest.mark.parametrize(("storage", "compute"), [(DType.FLOAT, DType.FLOAT), (DType.FLOAT16, DType.FLOAT)])
def test_a_later_output_is_a_value_an_earlier_output_used(storage: DType, compute: DType) -> None:
    # GeGlu: out = A * gelu(B), outGelu = gelu(B): the gate value is computed for out, before out's last instruction
    texts = {"gradInput": "self * sigmoid(weight)", "update": "sigmoid(weight)"}
    exprs = _exprs(texts)
    program = lower_outputs(exprs, inputs=INPUTS, storage=storage, compute=compute)
    values = _inputs(storage.numpy)
    got = run_program_outputs(program, values, {})
    for name, expr in exprs.items():
        np.testing.assert_allclose(got[name], F.evaluate(expr, dict(values), storage.numpy), rtol=1e-6, err_msg=name)
