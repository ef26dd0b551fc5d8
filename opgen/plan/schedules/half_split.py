"""Half split (`split: {tensor: self, dim: dim, halves: [a, b]}`, ops-nn's gated activations): the full-size input
cut in two halves along `dim`, the outputs elementwise functions of the halves and the half-size inputs.

The kernel views the split tensor as (x, 2, ny) (`opgen.spec.half_split.rows_and_half`) and moves UB streams: each
half of a full-size tensor and each half-size tensor is one stream of rows of ny elements, the halves' rows 2ny
apart in GM, a half-size tensor's ny apart. The lowered vector program reads and writes the streams as an
elementwise program reads and writes its inputs and outputs; only the tile loop and the copies differ
(templates/op/op_kernel/half_split_kernel.cpp.j2, tiling model `opgen.plan.half_split_tiling`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opgen.lang import Code, code, ident
from opgen.plan.golden import GoldenSplit
from opgen.plan.schedules.base import ElementLoop, Schedule
from opgen.spec.model import OpSpec

if TYPE_CHECKING:
    from opgen.plan.kernel import KernelPlan
    from opgen.plan.opdef import OpDefPlan


@dataclass(frozen=True)
class SplitStream:
    """One UB stream of a half-split kernel: a lowered program's input or output buffer and where it lies in GM."""

    name: str  # the program's buffer name: a half's name, a half-size tensor's, an output's (or output half's)
    tensor: str  # the API tensor it reads or writes
    half: int | None  # 0 or 1: that half of a full-size tensor (rows 2ny apart); None: a half-size tensor


@dataclass(frozen=True)
class HalfSplit(Schedule):
    name = "half_split"
    rank = 3
    kernel_template = "op/op_kernel/half_split_kernel.cpp.j2"
    tiling_data_template = "op/op_kernel/half_split_tiling_data.h.j2"
    tiling_template = "op/op_host/half_split_tiling.cpp.j2"
    tiling_header_template = "op/op_host/half_split_tiling.h.j2"
    tiling_test_template = "op/tests/ut/op_host/half_split_test_tiling.cpp.j2"

    split_tensor: str = ""
    split_dim: str | int = -1  # the int64 parameter, or a literal dim
    split_python: str = ""  # the split tensor's Python name
    dim_python: str = ""  # the dim parameter's Python name, or the literal
    default_dim: int = -1  # the dim of a call leaving the dim parameter at its example value (or the literal)
    halves: tuple[str, str] = ("", "")
    swap_when: str | None = None  # a bool parameter: when it holds, each stream of a half reads (writes) the other
    swap_python: str = ""  # swap_when's Python name
    half_size: tuple[str, ...] = ()  # the half-size tensors (inputs and outputs)
    per_half: tuple[tuple[str, str, str], ...] = ()  # full-size outputs: (output, first half's name, second's)
    in_streams: tuple[SplitStream, ...] = ()
    out_streams: tuple[SplitStream, ...] = ()

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        return spec.split is not None

    @classmethod
    def refinements(cls, spec: OpSpec) -> dict:
        split = spec.split
        assert split is not None
        per_half = tuple((out, first, second) for out, (first, second) in spec.formula.per_half.items())
        # a one-element tensor (FatreluMul's threshold) follows no split: the kernel reads its value from GM once
        tensors = [p.name for p in spec.params if p.is_tensor and p.written and not p.shape.one_element]
        in_streams = [SplitStream(half, split.tensor, i) for i, half in enumerate(split.halves)]
        in_streams += [
            SplitStream(p.name, p.name, None)
            for p in spec.tensor_inputs
            if p.name in tensors and p.name != split.tensor
        ]
        out_streams = []
        for out in spec.outputs:
            names = spec.formula.per_half.get(out.name)
            if names is None:
                out_streams.append(SplitStream(out.name, out.name, None))
            else:
                out_streams += [SplitStream(name, out.name, i) for i, name in enumerate(names)]
        dim = split.dim if isinstance(split.dim, int) else spec.param(split.dim).python
        return {
            "split_tensor": split.tensor,
            "split_dim": split.dim,
            "split_python": spec.param(split.tensor).python,
            "dim_python": str(dim),
            "default_dim": spec.split_dim(spec.example.scalars),
            "halves": split.halves,
            "swap_when": split.swap_when,
            "swap_python": spec.param(split.swap_when).python if split.swap_when is not None else "",
            "half_size": tuple(n for n in tensors if not spec.full_size(n)),
            "per_half": per_half,
            "in_streams": tuple(in_streams),
            "out_streams": tuple(out_streams),
        }

    # -- shape rules ------------------------------------------------------------------------------------------

    @property
    def shape_kind(self) -> str:
        return "half_split"

    @property
    def expands_inputs(self) -> bool:
        return False

    def stream_layout(self, stream: SplitStream) -> tuple[str, str]:
        """(the GM pitch between its rows, its offset in a row) of a stream, as C++ over the kernel's ny_; with
        swap_when, a half's offset is the kernel's halfBase_[half], which the tiling's swapHalves sets per call."""
        if stream.half is None:
            return "ny_", "0"
        if self.swap_when is not None:
            return "2 * ny_", f"halfBase_[{stream.half}]"
        return "2 * ny_", "0" if stream.half == 0 else "ny_"

    @property
    def gathers(self) -> bool:
        """ny = 1 runs through GatherMask (opgen.plan.half_split_tiling): one contiguous copy of a tile's element
        pairs, each half gathered out of them; an output written per half is interleaved back by Gather
        (`interleaves`)."""
        return True

    @property
    def interleaves(self) -> bool:
        """ny = 1 with an output written per half: its two half results share one UB buffer (the second
        tileLength elements after the first) and Gather, with a vector of byte offsets built once per kernel,
        interleaves them into one contiguous tile written by one copy."""
        return bool(self.per_half)

    def gather_pattern(self, stream: SplitStream) -> str:
        """GatherMask's built-in pattern picking a half's elements out of the pairs (ny = 1), as C++: 1 keeps the even
        elements (a row's first half), 2 the odd; with swap_when the kernel's halfBase_ decides."""
        assert stream.half is not None
        if self.swap_when is not None:
            return f"halfBase_[{stream.half}] == 0 ? 1 : 2"
        return str(stream.half + 1)

    def width(self, tensor: str) -> int:
        """Rows of a tensor hold 2 * ny elements (full-size) or ny (half-size)."""
        return 1 if tensor in self.half_size else 2

    def l0_shapes(self, first: str) -> tuple[list[str], dict[str, str]]:
        """A half-size output takes the split tensor's shape with size(dim) halved, a full-size one its shape."""
        tensor, dim = self.split_tensor, str(self.split_dim)
        setup = [
            f"op::Shape halfShape = {tensor}->GetViewShape();",
            f"const int64_t splitAxis = {dim} < 0 ? {dim} + static_cast<int64_t>(halfShape.GetDimNum()) : {dim};",
            "halfShape.SetDim(splitAxis, halfShape.GetDim(splitAxis) / 2);",
        ]
        shapes = {o: f"{tensor}->GetViewShape()" if self.output_full(o) else "halfShape" for o in self.outputs}
        return setup, shapes

    def element_loop(self, inputs: tuple[str, ...], output: str) -> ElementLoop:
        """Rows r of the (rows, 2, ny) view and the ny elements j of each half-row: a half's element is 2ny apart
        per row (the second ny further on, or the first where swap_when holds), a half-size tensor's ny apart; a
        full-size output is written per half."""
        dim = str(self.split_dim)
        setup = (
            f"const std::vector<int64_t> dims = {self.split_tensor}->GetTensorShape()->GetDimSizes();",
            "const int64_t rank = static_cast<int64_t>(dims.size());",
            f"const int64_t axis = {dim} < 0 ? {dim} + rank : {dim};",
            "if (axis < 0 || axis >= rank || dims[axis] % 2 != 0) {",
            "  return aicpu::KERNEL_STATUS_PARAM_INVALID;",
            "}",
            "int64_t rows = 1;",
            "int64_t ny = dims[axis] / 2;",
            "for (int64_t d = 0; d < rank; ++d) {",
            "  if (d < axis) {",
            "    rows *= dims[d];",
            "  } else if (d > axis) {",
            "    ny *= dims[d];",
            "  }",
            "}",
        )
        first, second = ("r * 2 * ny + j", "r * 2 * ny + ny + j")
        swapped = (first, second)
        if self.swap_when is not None:
            flag = self.swap_when
            swapped = (f"({flag} ? {second} : {first})", f"({flag} ? {first} : {second})")
        reads = [
            (s.name, f"{s.tensor}Data[{'r * ny + j' if s.half is None else swapped[s.half]}]")
            for s in self.in_streams
            if s.tensor in inputs
        ]
        # a full-size output's half is written where the split tensor's half of that name lies, as the AI Core
        # kernel writes it (halfBase_) and its references join it (join_halves' swap)
        writes = [
            (s.name, "r * ny + j" if s.half is None else swapped[s.half])
            for s in self.out_streams
            if s.tensor == output
        ]
        return ElementLoop(setup, (("r", "rows"), ("j", "ny")), tuple(reads), tuple(writes), ("vector",))

    def shape_notes(self, name: str) -> tuple[str, ...]:
        """The split tensor is even along dim and cut there into the halves; a half-size tensor has its shape with
        that size halved, a full-size output its shape; the dim parameter picks a dimension of it."""
        tensor, (first, second) = self.split_tensor, self.halves
        where = f"{self.split_dim}指定的维度" if isinstance(self.split_dim, str) else f"维度{self.split_dim}"
        if name == tensor:
            return (f"{where}上的大小需为偶数，沿该维度均分为公式中的{first}、{second}两部分。",)
        if name == self.split_dim:
            return (f"取值范围为[-{tensor}.dim, {tensor}.dim-1]，{tensor}在该维度上的大小需为偶数。",)
        if name in self.half_size:
            return (f"shape需要与{tensor}的shape在{where}上的大小减半（size(dim)/2）之后一致。",)
        if name in self.outputs:
            return (f"shape需要与{tensor}的shape一致。",)
        return ()

    def adapter_size(self, output: str) -> str | None:
        """A full-size output has the split tensor's sizes; a half-size one them with size(dim) halved, as
        op-plugin's op_infer::glu_npu_output_size computes it."""
        if self.output_full(output):
            return f"{self.split_python}.sizes()"
        return f"op_infer::glu_npu_output_size({self.split_python}, {self.dim_python})"

    def kernel_inputs(self, inputs: tuple[str, ...]) -> tuple[str, ...]:
        """The lowered program reads each half of the split tensor and each half-size input."""
        return tuple(s.name for s in self.in_streams if s.tensor in inputs)

    def output_full(self, output: str) -> bool:
        return output not in self.half_size

    # -- the kernel's and the host tiling's template data ------------------------------------------------------

    def kernel_data(self, kernel: KernelPlan, opdef: OpDefPlan) -> dict:
        """The kernel's GM tensors and UB streams (each a queue of the lowered program's buffers); its outputs are
        its streams (an output written per half is two)."""
        gm = {i.param: i.name for i in opdef.read_inputs}
        gm_out = {str(o.param): o.name for o in opdef.outputs}

        def stream(s: SplitStream, output: bool) -> dict:
            pitch, base = self.stream_layout(s)
            # ny = 1: GatherMask's pattern picking a half out of the split tensor's pairs (None: a half-size tensor)
            pattern = code(self.gather_pattern(s)) if s.half is not None and self.gathers else None
            view: dict[str, Code | None] = {
                "name": ident(s.name),
                "tensor": ident(s.tensor),
                "pitch": code(pitch),
                "base": code(base),
                "pattern": pattern,
            }
            if output:  # named as the lowered program's output buffers: out* for one output, <name>* for several
                name = s.name if kernel.outputs != ("out",) else "out"
                view |= {"local": ident(f"{name}Local"), "queue": ident(f"{name}Queue_"), "within": None}
                if s.half is not None:  # both halves of an output written per half share one buffer (its queue)
                    view["queue"] = ident(f"{s.tensor}HalvesQueue_")
                    if s.half == 1:  # the second half: tileLength elements into the first's buffer
                        view["within"] = code(f"{halves_local[s.tensor]}[tileLength_]")
                    else:
                        halves_local[s.tensor] = f"{name}Local"
            return view

        halves_local: dict[str, str] = {}
        outputs = [stream(s, True) for s in self.out_streams]
        # the output queues: one per half-size output, one (of two halves' buffers) per output written per half
        out_queues: list[dict] = []
        for view in outputs:
            if view["within"] is None:
                out_queues.append({"queue": view["queue"], "local": view["local"], "pair": False, "streams": []})
            out_queues[-1]["streams"].append(view)
        for q in out_queues:
            q["pair"] = len(q["streams"]) == 2
            q["tensor"] = q["streams"][0]["tensor"]

        return {
            "gm_inputs": [{"name": ident(name), "gm": gm[name], "width": self.width(name)} for name in kernel.inputs],
            "gm_outputs": [
                {"name": ident(name), "gm": gm_out[name], "width": self.width(name)} for name in self.outputs
            ],
            "inputs": [stream(s, False) for s in self.in_streams if s.tensor in kernel.inputs],
            "outputs": outputs,
            "out_queues": out_queues,
            "interleave": self.interleaves,
            "swap": ident(self.swap_when) if self.swap_when is not None else None,
            "gather": self.gathers,
            "split": ident(self.split_tensor),
        }

    def host_split(self, opdef: OpDefPlan) -> dict:
        """Where the host finds the split: the split tensor's OpDef input, the dim's attribute (or the literal), the
        bool attribute swapping the halves (swap_when), if any, whether ny = 1 goes through GatherMask and whether an
        output written per half is interleaved by Gather then."""
        dim = self.split_dim
        attr = opdef.attr_of(dim) if isinstance(dim, str) else None
        swap = opdef.attr_of(self.swap_when) if self.swap_when is not None else None
        return {
            "input": opdef.input_index(self.split_tensor),
            "dim_attr": attr.index if attr else None,
            # the lines reading it as a dimension into dimValue, by its kind (an Int, a ListInt of one)
            "dim_read": attr.kind_record.dim_reader(attr.index) if attr else (),
            "dim": dim,
            "swap": ident(self.swap_when) if self.swap_when is not None else None,
            "swap_attr": swap.index if swap else None,
            "gathers": self.gathers,
            "interleaves": self.interleaves,
        }

    def host_tiling_data(self, opdef: OpDefPlan, kernel: KernelPlan) -> dict:
        return {"split": self.host_split(opdef)}

    def shape_rule_data(self, opdef: OpDefPlan) -> dict:
        """The split, and whether each output is full-size (else the split tensor's shape with size(dim) halved)."""
        return {"split": self.host_split(opdef), "full": [self.output_full(o) for o in self.outputs]}

    # -- the bindings' hooks ----------------------------------------------------------------------------------

    def halved_dim(self, output: str) -> str | None:
        return None if self.output_full(output) else self.dim_python

    # -- golden-test hooks ------------------------------------------------------------------------------------

    def reference(self, output: str, elementwise: str) -> str:
        return elementwise

    def joined(self, first: str, second: str) -> str:
        """The numpy reference of a full-size output from its halves' sources (swapped where swap_when holds)."""
        if self.swap_when is None:
            return f"join_halves({first}, {second}, {self.dim_python})"
        return f"join_halves({first}, {second}, {self.dim_python}, {self.swap_python})"

    def output_references(self, computed: Mapping[str, str]) -> dict[str, str]:
        """An output written per half is its halves' references joined along dim; the others their own."""
        halves = {first: (out, second) for out, first, second in self.per_half}
        seconds = {second for _, _, second in self.per_half}
        references = {}
        for name, source in computed.items():
            if name in halves:
                out, second = halves[name]
                references[out] = self.joined(source, computed[second])
            elif name not in seconds:
                references[name] = source
        return references

    def golden_split(self, tensor_inputs: Mapping[str, str]) -> GoldenSplit:
        """A case's shape is a half's: the split tensor doubles it along dim (gen_data's `--shape` is the split
        tensor's, cut along the example's dim by default), a half-size input is a half of a full-size array; an output
        written per half is compared per half where torch differs."""
        dim = self.split_dim
        return GoldenSplit(
            tensor=self.split_python,
            halves=self.halves,
            dim_python=self.dim_python if isinstance(dim, str) else None,
            dim=dim if isinstance(dim, int) else None,
            example_dim=self.default_dim,
            half_inputs=tuple(python for name, python in tensor_inputs.items() if name in self.half_size),
            full_outputs=tuple(out for out, _, _ in self.per_half),
        )


SCHEDULE = HalfSplit
