"""The schedule base: how an operator maps onto the hardware, and what each artifact needs to know of it.

A schedule is chosen once per operator (`opgen.plan.schedules.schedule_for`) and held by its plan
(`OperatorPlan.schedule`). Emitters read its data and call its hooks instead of testing spec fields; a schedule
subclass overrides the hooks where its operators differ (one module each, in this package).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from opgen import formula as F
from opgen.lang import ident
from opgen.plan.kernel_model import run_program_outputs
from opgen.plan.lowering import VectorProgram, lower_outputs
from opgen.spec.dtypes import DType
from opgen.spec.model import OpSpec

if TYPE_CHECKING:
    from opgen.plan.golden import GoldenSplit
    from opgen.plan.kernel import KernelPlan, KernelVariant
    from opgen.plan.opdef import OpDefPlan


@dataclass(frozen=True)
class ChannelInput:
    """An input holding one value per channel (dim 1) of another input (`shape.channel_of`)."""

    name: str
    python: str  # its Python name
    of: str  # the input whose channels it follows
    of_python: str


@dataclass(frozen=True)
class ChannelSum:
    """An output the API sums per channel after the kernel (`formula.reduce`)."""

    output: str
    of: str  # the tensor whose channels the sum keeps (the sum runs over its other axes)
    like: str  # the channel input whose shape the sum takes
    of_python: str
    like_python: str


@dataclass(frozen=True)
class ElementLoop:
    """How a per-element C++ loop (the AICPU kernel) walks an operator's tensors: statements computing its bounds
    from the tensors (`aicpu::Tensor*` named after the inputs, and `out`) and the attributes (C++ locals named after
    their parameters), the nested loops, each name the formula reads as an element, and where each computed part of
    the output goes (its index into `outData`)."""

    setup: tuple[str, ...]
    loops: tuple[tuple[str, str], ...]  # (index, bound), outermost first
    reads: tuple[tuple[str, str], ...]  # (formula name, C++ element), e.g. ("self", "selfData[i]")
    writes: tuple[tuple[str, str], ...]  # (computed output, C++ index into outData)
    includes: tuple[str, ...] = ()  # standard headers the setup needs
    # the innermost loop runs along a row (the reduced dim): the row's steps (`Schedule.row_steps`) run before it,
    # each over the same range, and the outputs' formulas read their per-row values
    along_row: bool = False


@dataclass(frozen=True)
class RowStep:
    """A per-row value an element loop computes before the row's elements: `max` or `sum` of `arg` over the row's
    elements in order (from the first), or `value`, `arg` itself (a function of earlier steps' values)."""

    name: str  # the C++ local holding it, the name later steps and the outputs' formulas read it by
    op: str  # max | sum | value
    arg: F.Expr  # over the formula's parameters and earlier steps' names


@dataclass(frozen=True)
class Schedule:
    """The elementwise map over one flat buffer, the base every schedule refines.

    Fields are plain data computed from the spec once; subclasses fill the ones their operators use."""

    name: ClassVar[str] = ""
    # the most specific schedule that applies is chosen: a higher rank refines a lower one
    rank: ClassVar[int] = -1
    # the templates of its kernel, tiling data and host tiling (package data under opgen/templates)
    kernel_template: ClassVar[str] = "op/op_kernel/kernel.cpp.j2"
    tiling_data_template: ClassVar[str] = "op/op_kernel/tiling_data.h.j2"
    tiling_template: ClassVar[str] = "op/op_host/tiling.cpp.j2"
    tiling_header_template: ClassVar[str] = "op/op_host/tiling.h.j2"
    tiling_test_template: ClassVar[str] = "op/tests/ut/op_host/test_tiling.cpp.j2"

    outputs: tuple[str, ...]  # the computed outputs, in order
    # the first output's shape: the (numpy-broadcast, when `broadcast`) shape of these inputs, or a copy of one
    shape_sources: tuple[str, ...]
    broadcast: bool
    # the tensors whose emptiness makes the API return success (the kernel does not run)
    empty_return: tuple[str, ...]
    channel_inputs: tuple[ChannelInput, ...] = ()
    sums: tuple[ChannelSum, ...] = ()
    # the outputs holding one value per row of a reduction along dim (`rows_of`): the shape without that dim
    row_outputs: tuple[str, ...] = ()

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        raise NotImplementedError

    @classmethod
    def from_spec(cls, spec: OpSpec) -> Schedule:
        out = spec.outputs[0]
        return cls(
            outputs=tuple(p.name for p in spec.outputs),
            shape_sources=tuple(spec.shape_sources(out)),
            broadcast=bool(out.shape.broadcast_result_of),
            empty_return=tuple(spec.empty_return_tensors),
            **cls.refinements(spec),
        )

    @classmethod
    def refinements(cls, spec: OpSpec) -> dict:
        """The fields this schedule adds to the base's (channel inputs, sums)."""
        return {}

    # -- shape rules ------------------------------------------------------------------------------------------

    @property
    def several(self) -> bool:
        """Several computed outputs: one kernel writes each; the L0 op returns a tuple of them."""
        return len(self.outputs) > 1

    @property
    def shape_kind(self) -> str:
        """The infershape rule of every output: `broadcast` of the sources, or `copy` of the first."""
        return "broadcast" if self.broadcast else "copy"

    @property
    def gathers(self) -> bool:
        """Whether the kernel separates interleaved halves with GatherMask (a half split's ny = 1)."""
        return False

    @property
    def interleaves(self) -> bool:
        """Whether the kernel also interleaves an output's two half results with Gather (a half split's ny = 1)."""
        return False

    @property
    def expands_inputs(self) -> bool:
        """Whether the aclnn API expands inputs to the output's shape before the kernel (numpy broadcast)."""
        return self.broadcast

    def lower(
        self, exprs: dict[str, F.Expr], inputs: list[str], storage: DType, compute: DType, exact: bool
    ) -> tuple[VectorProgram, tuple]:
        """One kernel variant's vector program of the outputs' specialised formulas (`exprs`, by output) and the
        stages a schedule runs before it (none: an elementwise program is the whole kernel)."""
        return lower_outputs(exprs, inputs=inputs, storage=storage, compute=compute, exact=exact), ()

    def kernel_outputs(
        self,
        variant: KernelVariant,
        inputs: Mapping[str, np.ndarray],
        attributes: Mapping[str, float],
        scalars: Mapping[str, float | bool | int | str],
    ) -> dict[str, np.ndarray]:
        """The kernel's outputs (by computed output, flat) as `opgen.plan.kernel_model` computes them, for one
        variant, the inputs in the compute dtype and the output's shape, its tiling attributes
        and the API's scalars: an elementwise program over the flat buffers."""
        flat = {n: np.reshape(v, -1) for n, v in inputs.items()}
        return run_program_outputs(variant.program, flat, attributes)

    def kernel_inputs(self, inputs: tuple[str, ...]) -> tuple[str, ...]:
        """The buffers the lowered vector program reads, given the tensors the kernel reads (its GM inputs)."""
        return inputs

    def l0_shapes(self, first: str) -> tuple[list[str], dict[str, str]]:
        """The L0 op's C++ allocating its outputs: statements computing shapes, and each output's shape
        expression, given its first tensor (every output takes that one's shape)."""
        return [], dict.fromkeys(self.outputs, f"{first}->GetViewShape()")

    def element_loop(self, inputs: tuple[str, ...], output: str) -> ElementLoop:
        """The AICPU kernel's loop over the first output's elements, reading `inputs` (the kernel's GM inputs) at
        the same index and writing `output` (the computed output it holds)."""
        return ElementLoop(
            setup=("const int64_t count = out->NumElements();",),
            loops=(("i", "count"),),
            reads=tuple((name, f"{name}Data[i]") for name in inputs),
            writes=((output, "i"),),
        )

    def row_steps(self, exprs: Mapping[str, F.Expr]) -> tuple[tuple[RowStep, ...], dict[str, F.Expr]]:
        """The per-row values an element loop computes before each row (none: a formula of one element) and the
        outputs' formulas (`exprs`, over parameter names) reading them."""
        return (), dict(exprs)

    def shape_notes(self, name: str) -> tuple[str, ...]:
        """The docs' usage notes (使用说明) on parameter `name`'s shape the schedule adds to its shape rule's."""
        return ()

    def constraint_notes(self) -> tuple[str, ...]:
        """The docs' constraints (约束说明) the schedule adds, one sentence each (no list marker)."""
        return ()

    def adapter_size(self, output: str) -> str | None:
        """The torch_npu adapter's C++ size of `output` (over the aten arguments' names) where the schedule fixes
        it, else None: the output's shape rule (a copy or broadcast of its sources)."""
        return None

    def channel_of(self, name: str) -> ChannelInput | None:
        return next((c for c in self.channel_inputs if c.name == name), None)

    def sum_of(self, output: str) -> ChannelSum | None:
        return next((s for s in self.sums if s.output == output), None)

    @property
    def zeroed_on_empty(self) -> tuple[str, ...]:
        """Outputs the empty-tensor return sets to zeros (a sum of nothing)."""
        return tuple(s.output for s in self.sums)

    # -- the kernel's and the host tiling's template data (opgen.emit.kernel, opgen.emit.host) ------------------

    # the kernel runs stages before the outputs' program (`lower`'s: reduce_dim's row reductions) that compute
    # per-row scalars the programs' slots read: the kernel emitter renders the stages' programs and those slots
    row_stages: ClassVar[bool] = False
    # the host tiling sizes tiles by each kernel variant's elementwise UB cost per element (queues, temporary and
    # mask buffers); False: by the schedule's own figures, in its host_tiling_data
    elementwise_ub: ClassVar[bool] = True

    def kernel_data(self, kernel: KernelPlan, opdef: OpDefPlan) -> dict:
        """What the schedule's kernel template reads beyond the emitter's common data: here each output's GM
        argument (its OpDef name), local tensor, queue and GM member, named as the lowered program's output buffers
        are (out* for the one output of a kernel, <output>* for each of several)."""
        outputs = []
        for name, output in zip(kernel.outputs, opdef.outputs, strict=True):
            outputs.append(
                {
                    "gm": output.name,
                    "local": ident(f"{name}Local"),
                    "queue": ident(f"{name}Queue_"),
                    "gm_member": ident(f"{name}Gm_"),
                }
            )
        return {"outputs": outputs}

    def host_tiling_data(self, opdef: OpDefPlan, kernel: KernelPlan) -> dict:
        """What the schedule's host tiling templates read beyond the emitter's common data (none here)."""
        return {}

    def shape_rule_data(self, opdef: OpDefPlan) -> dict:
        """What the infershape rule takes beyond its kind and sources (none here: every output a copy or broadcast
        of its sources)."""
        return {}

    # -- the bindings' hooks ----------------------------------------------------------------------------------

    def halved_dim(self, output: str) -> str | None:
        """Where `output` is the input's shape halved along a dim (a half of a split tensor): that dim as the Python
        binding's source (its parameter's Python name, or the literal), which allocates the output; else None."""
        return None

    def dropped_dim(self, output: str) -> str | None:
        """Where `output` holds one value per row of a reduction (`row_outputs`): the reduced dim as the Python
        binding's source (its parameter's Python name, or the literal), which allocates the output without that dim;
        else None."""
        return None

    # -- golden-test hooks: Python sources over the tensors' Python names --------------------------------------

    def reference(self, output: str, elementwise: str) -> str:
        """An output's numpy reference, from its elementwise expression's source."""
        return elementwise

    def output_references(self, computed: Mapping[str, str]) -> dict[str, str]:
        """Each API output's numpy reference, from the computed outputs' sources (the formula's, by name)."""
        return dict(computed)

    def aten_arg(self, name: str, python: str) -> str:
        """How the golden test passes tensor input `name` (held in `python`) to aten's elementwise op."""
        return python

    def golden_split(self, tensor_inputs: Mapping[str, str]) -> GoldenSplit | None:
        """How the golden tests and scripts cut a case's inputs (`tensor_inputs`: each one's Python name by parameter
        name, in order) where the schedule splits a tensor; None: each input is drawn in the case's shape (and
        gen_data's `--shape` is every tensor input's)."""
        return None
