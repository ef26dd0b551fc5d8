"""What a half-split operator's artifacts say of its shapes, read from its schedule (`HalfSplit`): the docs' usage
notes, the torch_npu adapter's output size and the AICPU kernel's (x, 2, ny) loop. Before, a split operator's docs
gave out's dtype rule only, its adapter allocated out with self's shape, and DOUBLE was refused (the AICPU kernel
read every tensor at one flat index)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from opgen.build import check_spec_text
from opgen.emit.aicpu import render_aicpu
from opgen.plan.documentation import usage_notes
from opgen.plan.schedules.half_split import HalfSplit

ROOT = Path(__file__).resolve().parents[2]
GLU = (ROOT / "specs" / "glu.yaml").read_text(encoding="utf-8")


def _plan():  # type: ignore[no-untyped-def]
    return check_spec_text(GLU, "specs/glu.yaml")


def test_the_docs_state_each_tensors_split_shape_and_the_dims_range() -> None:
    plan = _plan()
    spec, schedule = plan.spec, plan.schedule
    assert isinstance(schedule, HalfSplit)
    assert "dim指定的维度上的大小需为偶数，沿该维度均分为公式中的a、b两部分。" in usage_notes(
        spec, spec.param("self"), schedule
    )
    assert "shape需要与self的shape在dim指定的维度上的大小减半（size(dim)/2）之后一致。" in usage_notes(
        spec, spec.param("out"), schedule
    )
    assert any("[-self.dim, self.dim-1]" in note for note in usage_notes(spec, spec.param("dim"), schedule))


def test_the_adapter_sizes_a_half_size_output_by_the_split_rule() -> None:
    schedule = _plan().schedule
    assert schedule.adapter_size("out") == "op_infer::glu_npu_output_size(self, dim)"


def test_the_aicpu_kernel_reads_each_half_of_a_row_and_writes_half_rows() -> None:
    plan = _plan()
    [text] = render_aicpu(plan).values()
    assert "selfData[r * 2 * ny + j]" in text and "selfData[r * 2 * ny + ny + j]" in text
    assert "outData[r * ny + j] =" in text
    assert "const int64_t dim = dimAttr->GetInt();" in text


def test_swap_when_swaps_the_halves_read_not_the_output_halves_written() -> None:
    schedule = dataclasses.replace(_plan().schedule, swap_when="activateLeft", per_half=())
    loop = schedule.element_loop(("self",), "out")
    reads = dict(loop.reads)
    assert reads["a"] == "selfData[(activateLeft ? r * 2 * ny + ny + j : r * 2 * ny + j)]"
    assert reads["b"] == "selfData[(activateLeft ? r * 2 * ny + j : r * 2 * ny + ny + j)]"
    assert loop.writes == (("out", "r * ny + j"),)


def test_an_output_written_per_half_is_interleaved_by_gather_at_ny_1() -> None:
    """GluBackward's gradient (written per half) keeps both halves in one buffer of 2 * tileLength, the second
    tileLength elements in; at ny = 1 one Gather per tile interleaves them (offsets built once, in Init) and one copy
    writes 2 * rows elements; the host tiling counts the extra UB. GLU (no output written per half) has none of it.
    Before, GluBackward took the strided path at ny = 1 (one 32-byte UB row per element)."""
    generated = ROOT / "generated"
    grad = (generated / "glu_grad" / "op_kernel" / "glu_grad.cpp").read_text(encoding="utf-8")
    assert "pipe_.InitBuffer(outHalvesQueue_, BUFFER_NUM, 2 * tiling.tileLength * sizeof(T));" in grad
    assert "LocalTensor<T> outSecondLocal = outFirstLocal[tileLength_];" in grad
    assert grad.count("InitOffsets();") == 1 and grad.count("Gather(joined0, outFirstLocal, offsetBuf_") == 1
    assert "DataCopyPad(outGm_[row * 2], joined0," in grad
    assert "CopyRowsOut(outGm_, outFirstLocal[tileLength_], 2 * ny_, ny_, row, rows, col, cols);" in grad
    tiling = (generated / "glu_grad" / "op_host" / "glu_grad_tiling.cpp").read_text(encoding="utf-8")
    assert "constexpr bool INTERLEAVES_HALVES = true;" in tiling
    glu = (generated / "glu" / "op_kernel" / "glu.cpp").read_text(encoding="utf-8")
    assert "GatherMask(" in glu and "Gather(" not in glu.replace("GatherMask(", "")
    assert "offsetBuf_" not in glu and "HalvesQueue_" not in glu
    glu_tiling = (generated / "glu" / "op_host" / "glu_tiling.cpp").read_text(encoding="utf-8")
    assert "constexpr bool INTERLEAVES_HALVES = false;" in glu_tiling
