"""Reduce along a dimension (`reduce_dim: {tensor: self, dim: dim}`, the softmax family): the formula's reductions
(`rowmax`, `rowsum`) run along `dim`, every tensor has the reduced tensor's shape.

The kernel views every tensor as (a1, r, a0) (a1: the product of the dims before dim, r: size(dim), a0: the product
of those after it) and computes each row of r elements in passes (`row_passes`): the formula's reductions grouped
by nesting level (softmax: the max, then the sum of exp(x - max)), each level one elementwise program over the row
whose result the kernel reduces to one value per row (a per-row scalar of the later programs), then the outputs'
program. Every program is lowered from the formula by the elementwise lowering (`opgen.plan.lowering`) in FLOAT:
the kernel casts each input tile to float once and the result back (CAST_RINT).

Paths (templates/op/op_kernel/reduce_dim_kernel.cpp.j2, tiling model `opgen.plan.reduce_dim_tiling`):
- rows fit (a0 == 1, a padded row within a tile): as many whole rows per tile as fit, one DataCopyPad; every
  pass runs from UB (GM: each input read once, each output written once);
- row chunks (a0 == 1, a row longer than a tile): each level reads the row again in chunks, then the output pass
  (GM: each input read levels + 1 times, 3 for softmax);
- columns fit / column chunks (a0 > 1, `opgen.plan.reduce_columns`): a tile of (r, a0-chunk) reduced across r element
  by element, the per-row values per-column vectors; r rows in UB (read once) or chunks of rows (levels + 1 reads).
Sums run over groups of SUM_WIDTH elements from a row's first element, the group sums added in a fixed binary-
counter order (the columns path's counter over rows is the same tree), and a row never spans cores: results do not
depend on the core count, the tile size or the path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from opgen import formula as F
from opgen.lang import code, ident
from opgen.plan import reduce_dim_tiling
from opgen.plan.lowering import LoweringError, VectorProgram, lower_outputs
from opgen.plan.reduce_columns import ROW_PREFIX
from opgen.plan.reduce_model import run_reduce_outputs
from opgen.plan.schedules.base import ElementLoop, RowStep, Schedule
from opgen.spec.dtypes import DType
from opgen.spec.model import OpSpec

if TYPE_CHECKING:
    from opgen.plan.kernel import KernelPlan, KernelVariant
    from opgen.plan.opdef import OpDefPlan

ACC_PREFIX = "acc"  # the buffers a level's programs write, the kernel reduces each to its row scalar


# what a per-row output's expression may hold: the scalar unit's float arithmetic (`uniform_cpp`)
ROW_OUTPUT_NODES = (F.Const, F.Name, F.Unary, F.Binary)


@dataclass(frozen=True)
class RowReduction:
    name: str  # its per-row scalar (row0...), the name later programs read it by
    op: str  # max | sum
    arg: F.Expr  # the row to reduce: over tensors, host scalars and earlier reductions' names


@dataclass(frozen=True)
class RowFunction:
    """A function of one per-row scalar (log-softmax's ln of the row's sum): the scalar unit computes only + - * /
    min max, so the kernel computes it on the vector unit, one element (`api`, e.g. Ln), once per row."""

    name: str  # its per-row scalar (rowN)
    api: str  # the VectorApi of the function (opgen.formula.VECTOR_APIS)
    arg: str  # the per-row scalar it reads
    func: str = ""  # the formula's function (log), for a kernel computing it in C++ (AICPU)


@dataclass(frozen=True)
class RowPasses:
    """A formula cut at its reductions: the levels (each reduction's argument reads only earlier levels' results),
    the per-row functions computed after each level's reductions (one tuple per level), and the outputs with every
    reduction and per-row function replaced by its per-row scalar."""

    levels: tuple[tuple[RowReduction, ...], ...]
    outputs: tuple[tuple[str, F.Expr], ...]
    functions: tuple[tuple[RowFunction, ...], ...] = ()


def row_passes(exprs: Mapping[str, F.Expr]) -> RowPasses:
    """Each distinct reduction of the outputs' formulas (innermost first) named row0, row1...; a reduction's level
    is one past the deepest reduction its argument reads. A function call on one per-row scalar (log(row1)) is cut
    too, into a RowFunction computed after its argument's level."""
    names: dict[F.Expr, F.Name] = {}
    levels: list[list[RowReduction]] = []
    functions: list[list[RowFunction]] = []
    level_of: dict[str, int] = {}

    def row_function(node: F.Call) -> F.Expr:
        lowering = F.FUNCTIONS[node.func].lowering
        (arg,) = node.args
        if not (isinstance(lowering, F.VectorApi) and isinstance(arg, F.Name) and arg.name in level_of):
            return node
        if node not in names:
            name = f"{ROW_PREFIX}{len(names)}"
            names[node] = F.Name(name, F.SymbolKind.SCALAR)
            level_of[name] = level_of[arg.name]
            while len(functions) <= level_of[name]:
                functions.append([])
            functions[level_of[name]].append(RowFunction(name, lowering.name, arg.name, node.func))
        return names[node]

    def cut_node(node: F.Expr) -> F.Expr:
        if isinstance(node, F.Reduce):
            return names.get(node, node)
        if isinstance(node, F.Call) and len(node.args) == 1:
            return row_function(node)
        return node

    def cut(expr: F.Expr) -> F.Expr:
        return F.rewrite(expr, cut_node)

    for expr in exprs.values():
        for node in F.reductions(expr):  # innermost first: an argument's reductions are named before it
            arg = cut(node.x)
            key = F.Reduce(node.op, arg)  # as `cut` meets it: its operand already cut
            if key in names:
                continue
            read = [level_of[n] for n in F.free_names(arg) if n in level_of]
            level = 1 + max(read, default=-1)
            name = f"{ROW_PREFIX}{len(names)}"
            names[key] = F.Name(name, F.SymbolKind.SCALAR)
            level_of[name] = level
            while len(levels) <= level:
                levels.append([])
            levels[level].append(RowReduction(name, node.op, arg))
    outputs = tuple((n, cut(e)) for n, e in exprs.items())
    functions.extend([] for _ in range(len(levels) - len(functions)))
    return RowPasses(tuple(tuple(level) for level in levels), outputs, tuple(tuple(f) for f in functions))


@dataclass(frozen=True)
class ReductionStage:
    """One level of a row's passes in one kernel variant: the program writing each reduction's argument into its
    acc buffer (acc0... in level order), and the reductions it feeds."""

    reductions: tuple[RowReduction, ...]
    program: VectorProgram
    functions: tuple[RowFunction, ...] = ()  # computed after the reductions, from their per-row scalars
    # per-row outputs (`rows_of`) computed after the reductions and functions, on the scalar unit: each one value per
    # row over the per-row scalars and host scalars (+ - * / min max); set on the last level
    row_outputs: tuple[tuple[str, F.Expr], ...] = ()

    @property
    def acc_names(self) -> tuple[str, ...]:
        """The program's outputs, one per reduction in order."""
        return tuple(f"{ACC_PREFIX}{i}" for i in range(len(self.reductions)))


@dataclass(frozen=True)
class ReduceDim(Schedule):
    name = "reduce_dim"
    rank = 4
    kernel_template = "op/op_kernel/reduce_dim_kernel.cpp.j2"
    tiling_data_template = "op/op_kernel/reduce_dim_tiling_data.h.j2"
    tiling_template = "op/op_host/reduce_dim_tiling.cpp.j2"
    tiling_header_template = "op/op_host/reduce_dim_tiling.h.j2"
    tiling_test_template = "op/tests/ut/op_host/reduce_dim_test_tiling.cpp.j2"
    row_stages = True  # each level's program before the outputs' (ReductionStage)
    elementwise_ub = False  # a row's UB figures are reduce_dim_tiling's (host_tiling_data)

    reduced_tensor: str = ""
    reduce_dim: str | int = -1  # the int64 parameter, or a literal dim
    dim_python: str = ""  # the dim parameter's Python name, or the literal
    # other inputs broadcast to the reduced tensor's shape (`broadcast_with: [reduced]`: SCE's labels [1, C], [N, 1],
    # [1, 1]): the host tiling says which form, the kernel reads a dim of 1 from GM once and lays it out in UB
    broadcast_inputs: tuple[str, ...] = ()

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        return spec.reduce_dim is not None

    @classmethod
    def refinements(cls, spec: OpSpec) -> dict:
        section = spec.reduce_dim
        assert section is not None
        dim = section.dim if isinstance(section.dim, int) else spec.param(section.dim).python
        return {
            "reduced_tensor": section.tensor,
            "reduce_dim": section.dim,
            "dim_python": str(dim),
            "row_outputs": tuple(spec.per_row_outputs),
            "broadcast_inputs": tuple(
                p.name for p in spec.tensor_inputs if p.name != section.tensor and p.shape.broadcast_with
            ),
        }

    @property
    def expands_inputs(self) -> bool:
        return False

    def lower(
        self, exprs: dict[str, F.Expr], inputs: list[str], storage: DType, compute: DType, exact: bool
    ) -> tuple[VectorProgram, tuple[ReductionStage, ...]]:
        """The outputs' program and one stage per level, every program in FLOAT over float copies of the inputs
        (the kernel casts each tile once; its row scalars are float)."""
        passes = row_passes(exprs)
        stages = []
        for level, functions in zip(passes.levels, passes.functions, strict=True):
            accs = {f"{ACC_PREFIX}{i}": r.arg for i, r in enumerate(level)}  # ReductionStage.acc_names
            program = lower_outputs(accs, inputs=inputs, storage=DType.FLOAT, compute=DType.FLOAT, exact=exact)
            stages.append(ReductionStage(level, program, functions))
        outputs = {n: e for n, e in passes.outputs if n not in self.row_outputs}
        per_row = tuple((n, e) for n, e in passes.outputs if n in self.row_outputs)
        if per_row:  # computed once per row after the last level (validation: every tensor read inside a reduction)
            for name, expr in per_row:
                unsupported = [n for n in F.walk(expr) if not isinstance(n, ROW_OUTPUT_NODES)]
                if unsupported or any(isinstance(n, F.Binary) and n.op == "pow" for n in F.walk(expr)):
                    raise LoweringError(
                        f"{name}: {F.to_text(expr)} is not computable on the scalar unit per row (+ - * / min max of "
                        "the rows' values rowN; a function applies to a reduction alone, e.g. log(rowsum(...)))"
                    )
            stages[-1] = replace(stages[-1], row_outputs=per_row)
        program = lower_outputs(outputs, inputs=inputs, storage=DType.FLOAT, compute=DType.FLOAT, exact=exact)
        return program, tuple(stages)

    def reduced_axis(self, shape: tuple[int, ...], scalars: Mapping[str, float | bool | int | str]) -> int:
        """The axis of `shape` the rows run along (a 0-d tensor: one row of one element, axis 0 of its (1,))."""
        dim = self.reduce_dim if isinstance(self.reduce_dim, int) else int(scalars[self.reduce_dim])
        rank = max(len(shape), 1)
        return dim + rank if dim < 0 else dim

    def kernel_outputs(
        self,
        variant: KernelVariant,
        inputs: Mapping[str, np.ndarray],
        attributes: Mapping[str, float],
        scalars: Mapping[str, float | bool | int | str],
    ) -> dict[str, np.ndarray]:
        """Row by row (`opgen.plan.reduce_model`): the inputs moved to (rows, r), the outputs moved back, flat; a dim
        that is not the last included (its columns path computes the same bits, `opgen.plan.reduce_columns`)."""
        shape = np.shape(next(iter(inputs.values())))
        full = shape or (1,)
        axis = self.reduced_axis(shape, scalars)
        moved = {n: np.moveaxis(np.reshape(v, full), axis, -1) for n, v in inputs.items()}
        inner = next(iter(moved.values())).shape
        if not all(full):  # an empty tensor: the kernel does not run
            empty = {b.name: np.zeros(0, b.dtype.numpy) for b in variant.program.outputs}
            # a per-row output of empty rows: the API's zeros (zeroed_on_empty), one per row
            count = int(np.prod(inner[:-1]))
            return empty | {n: np.zeros(count, variant.storage.numpy) for n in self.row_outputs}
        rows = {n: v.reshape(-1, full[axis]) for n, v in moved.items()}
        results = run_reduce_outputs(variant.program, variant.stages, rows, attributes, variant.storage)
        order = [n for n in self.outputs if n in results] + [n for n in results if n not in self.outputs]
        return {  # in the outputs' order (a per-row output's values come from the last level, the others after)
            n: results[n].reshape(-1)
            if n in self.row_outputs
            else np.moveaxis(results[n].reshape(inner), -1, axis).reshape(-1)
            for n in order
        }

    @property
    def zeroed_on_empty(self) -> tuple[str, ...]:
        """A per-row output of rows of no element: zeros, the sum of nothing (ops-nn leaves it unwritten)."""
        return self.row_outputs

    def l0_shapes(self, first: str) -> tuple[list[str], dict[str, str]]:
        """Every output takes `first`'s shape, a per-row one (`row_outputs`) the reduced tensor's without the reduced
        dim."""
        shapes = dict.fromkeys(self.outputs, f"{first}->GetViewShape()")
        if not self.row_outputs:
            return [], shapes
        tensor, dim = self.reduced_tensor, str(self.reduce_dim)
        setup = [
            f"const op::Shape& fullShape = {tensor}->GetViewShape();",
            "const int64_t fullRank = static_cast<int64_t>(fullShape.GetDimNum());",
            f"const int64_t rowAxis = {dim} < 0 ? {dim} + fullRank : {dim};",
            "op::Shape rowShape;",
            "for (int64_t d = 0; d < fullRank; ++d) {",
            "  if (d != rowAxis) {",
            "    rowShape.AppendDim(fullShape.GetDim(d));",
            "  }",
            "}",
        ]
        return setup, shapes | dict.fromkeys(self.row_outputs, "rowShape")

    def adapter_size(self, output: str) -> str | None:
        """A per-row output: the reduced tensor's sizes without the reduced dim (torch_npu's adapter)."""
        if output not in self.row_outputs:
            return None
        return f"op_infer::reduce_ops_npu_output_size({self.reduced_tensor}, {{{self.dim_python}}}, false)"

    def kernel_data(self, kernel: KernelPlan, opdef: OpDefPlan) -> dict:
        """The kernel's GM inputs and outputs (each output a local tensor named as the outputs' program's buffer);
        the stages' programs are the kernel emitter's (row_stages)."""
        gm = {i.param: i.name for i in opdef.read_inputs}
        gm_out = {str(o.param): o.name for o in opdef.outputs}
        outputs = [
            {
                "name": ident(name),
                "gm": gm_out[param],
                "local": ident(f"{name}Local"),
                "per_row": param in self.row_outputs,  # one value per row (rows_of): its own queue and store
                "copy_index": len(kernel.inputs) + index,  # its float buffer (copyBuf_) where the dtype is not FLOAT
            }
            for index, (name, param) in enumerate(zip(kernel.outputs, self.outputs, strict=True))
        ]
        inputs = [
            {"name": ident(name), "gm": gm[name], "broadcast": name in self.broadcast_inputs, "index": index}
            for index, name in enumerate(kernel.inputs)
        ]
        return {"inputs": inputs, "outputs": outputs, "any_broadcast": bool(self.broadcast_inputs)}

    def host_tiling_data(self, opdef: OpDefPlan, kernel: KernelPlan) -> dict:
        """Where the host finds the reduced tensor and dim, and each kernel variant's UB figures (the tiling
        model's)."""
        dim = self.reduce_dim
        attr = opdef.attr_of(dim) if isinstance(dim, str) else None
        variants = []
        for v in kernel.variants:
            cost = reduce_dim_tiling.reduce_cost(v, len(kernel.program_inputs), len(kernel.outputs))
            variants.append(
                {
                    "key": ident(v.key_name),
                    "dtype": code(v.storage.ge_enum),
                    "mode": v.mode_index,
                    "item_size": cost.item_size,
                    "queues": cost.queues,
                    "float_buffers": cost.float_buffers,
                    "masks": cost.masks,
                    "scratch": cost.scratch,
                    "columns": cost.columns,
                    "sums": cost.sums,
                    "row_queues": cost.row_queues,
                    "row_copies": cost.row_copies,
                    "name": ident(v.name),
                }
            )
        reduced = opdef.input_index(self.reduced_tensor)
        reduce = {
            "input": reduced,
            # the other inputs the kernel reads (softmax cross entropy's labels): of its dtype, and of its shape unless
            # they broadcast to it
            "others": [
                {"index": i.index, "name": ident(str(i.param)), "broadcast": i.param in self.broadcast_inputs}
                for i in opdef.read_inputs
                if i.index != reduced
            ],
            "per_row": bool(self.row_outputs),  # per-row outputs' buffers in the UB budget; no columns path
            "dim_attr": attr.index if attr else None,
            # the lines reading it as a dimension into dimValue, by its kind (an Int, a ListInt of one)
            "dim_read": attr.kind_record.dim_reader(attr.index) if attr else (),
            "dim": dim,
            "variants": variants,
            "sum_width": reduce_dim_tiling.SUM_WIDTH,
            "repeat_floats": reduce_dim_tiling.REPEAT_FLOATS,
            "scalar_floats": reduce_dim_tiling.SCALAR_FLOATS,
            "max_block_count": reduce_dim_tiling.MAX_BLOCK_COUNT,
            "column_chunk": reduce_dim_tiling.COLUMN_CHUNK,
        }
        return {"reduce": reduce}

    def shape_rule_data(self, opdef: OpDefPlan) -> dict:
        """With per-row outputs (`row_outputs`): which outputs drop the reduced dim, and where the dim is (its
        attribute's index and the lines reading it, or the literal)."""
        if not self.row_outputs:
            return {}
        dim = self.reduce_dim
        attr = opdef.attr_of(dim) if isinstance(dim, str) else None
        rows = {
            "outputs": [o in self.row_outputs for o in self.outputs],
            "dim_attr": attr.index if attr else None,
            "dim_read": attr.kind_record.dim_reader(attr.index) if attr else (),
            "dim": dim,
        }
        return {"rows": rows}

    def dropped_dim(self, output: str) -> str | None:
        return self.dim_python if output in self.row_outputs else None

    def element_loop(self, inputs: tuple[str, ...], output: str) -> ElementLoop:
        """Every tensor viewed as (outerSize, rowSize, innerSize) around the reduced dim (a 0-d tensor: one row of
        one element); the loops run over the rows (r, c) and, innermost, along each row (k)."""
        dim = str(self.reduce_dim)
        setup = (
            f"const std::vector<int64_t> dims = {self.reduced_tensor}->GetTensorShape()->GetDimSizes();",
            "const int64_t rank = static_cast<int64_t>(dims.size());",
            "const int64_t axes = rank > 0 ? rank : 1;",
            f"const int64_t axis = {dim} < 0 ? {dim} + axes : {dim};",
            "if (axis < 0 || axis >= axes) {",
            "  return aicpu::KERNEL_STATUS_PARAM_INVALID;",
            "}",
            "int64_t outerSize = 1;",
            "const int64_t rowSize = rank > 0 ? dims[axis] : 1;",
            "int64_t innerSize = 1;",
            "for (int64_t d = 0; d < rank; ++d) {",
            "  if (d < axis) {",
            "    outerSize *= dims[d];",
            "  } else if (d > axis) {",
            "    innerSize *= dims[d];",
            "  }",
            "}",
        )
        index = "(r * rowSize + k) * innerSize + c"
        return ElementLoop(
            setup,
            (("r", "outerSize"), ("c", "innerSize"), ("k", "rowSize")),
            tuple((name, f"{name}Data[{index}]") for name in inputs),
            ((output, index),),
            ("vector",),
            along_row=True,
        )

    def row_steps(self, exprs: Mapping[str, F.Expr]) -> tuple[tuple[RowStep, ...], dict[str, F.Expr]]:
        """The formula cut at its reductions (`row_passes`): each level's reductions, then the functions of their
        values (log-softmax's log of the sum), in level order."""
        passes = row_passes(exprs)
        steps: list[RowStep] = []
        for level, functions in zip(passes.levels, passes.functions, strict=True):
            steps += [RowStep(r.name, r.op, r.arg) for r in level]
            steps += [
                RowStep(f.name, "value", F.Call(f.func, (F.Name(f.arg, F.SymbolKind.SCALAR),))) for f in functions
            ]
        return tuple(steps), dict(passes.outputs)

    def shape_notes(self, name: str) -> tuple[str, ...]:
        if isinstance(self.reduce_dim, str) and name == self.reduce_dim:
            return (f"取值范围为[-{self.reduced_tensor}.dim, {self.reduced_tensor}.dim-1]（0维时为[-1, 0]）。",)
        if name in self.row_outputs:  # one value per row
            return (f"每行一个值：shape需要为{self.reduced_tensor}的shape去掉第{self.reduce_dim}维，否则返回错误。",)
        return ()


SCHEDULE = ReduceDim
