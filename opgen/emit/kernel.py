"""The AI Core kernel (op_kernel/<op>.cpp) and its tiling-data header, from the kernel plan.

Classic TPipe/TQue structure: Init / Process -> per tile CopyIn (DataCopyPad GM->UB), Compute (the lowered
vector program of the tiling key), CopyOut (DataCopyPad UB->GM). The C++ of every instruction is decided
here; the template only lays out the class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident, idents
from opgen.plan.kernel import (
    BUFFER_NUM,
    KernelPlan,
    KernelVariant,
)
from opgen.plan.lowering import Buffer, Instr, LoweringError, Scalar
from opgen.plan.operator import OperatorPlan
from opgen.plan.reduce_columns import ColumnProgram, ColumnStep, column_programs
from opgen.plan.reduce_dim_tiling import REPEAT_FLOATS, SCALAR_FLOATS
from opgen.plan.reduce_model import SUM_WIDTH


def scalar_cpp(scalar: Scalar | None, compute: DType) -> str:
    assert scalar is not None, "the instruction takes a scalar operand"
    if scalar.slot is not None:
        return scalar.slot
    assert scalar.constant is not None
    if compute.is_integral and float(scalar.constant).is_integer():
        return f"static_cast<{compute.cpp_type}>({int(scalar.constant)})"
    return f"static_cast<{compute.cpp_type}>({cpp.float_literal(scalar.constant)})"


def uniform_cpp(expr: F.Expr, fields: dict[str, str]) -> str:
    """A host-uniform expression as float C++ over tiling-data fields (scalar unit of the core)."""
    if isinstance(expr, F.Const):
        return cpp.float_literal(expr.value)
    if isinstance(expr, F.Name):
        return fields[expr.name]
    if isinstance(expr, F.Unary):
        return f"(-{uniform_cpp(expr.x, fields)})"
    if isinstance(expr, F.Binary) and expr.op in ("add", "sub", "mul", "div"):
        symbol = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[expr.op]
        return f"({uniform_cpp(expr.a, fields)} {symbol} {uniform_cpp(expr.b, fields)})"
    if isinstance(expr, F.Binary) and expr.op in ("min", "max"):
        a, b = uniform_cpp(expr.a, fields), uniform_cpp(expr.b, fields)
        return f"({a} {'<' if expr.op == 'min' else '>'} {b} ? {a} : {b})"
    raise LoweringError(f"cannot compute {F.to_text(expr)} on the kernel's scalar unit")


_CPP_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def condition_cpp(expr: F.Expr, fields: dict[str, str]) -> str:
    """A host-known condition (KernelPlan.conditions) as C++ over float values: the tiling decides it."""
    if isinstance(expr, F.Compare):
        return f"({uniform_cpp(expr.a, fields)} {_CPP_COMPARE[expr.op]} {uniform_cpp(expr.b, fields)})"
    if isinstance(expr, F.Logical) and expr.op == "not":
        return f"(!{condition_cpp(expr.args[0], fields)})"
    if isinstance(expr, F.Logical):
        return "(" + f" {'&&' if expr.op == 'and' else '||'} ".join(condition_cpp(a, fields) for a in expr.args) + ")"
    raise LoweringError(f"cannot decide {F.to_text(expr)} in the tiling")


def _buffer_cpp(buffer: Buffer, compute: DType) -> str:
    if buffer.kind == "temp" and buffer.dtype is not compute:  # a narrower carrier in a compute-typed temporary
        return f"{buffer.cpp}.template ReinterpretCast<{buffer.dtype.cpp_type}>()"
    return buffer.cpp


def instruction_cpp(instr: Instr, compute: DType) -> str:
    count = "cmpLen" if instr.padded_count else "len"
    dst = _buffer_cpp(instr.dst, compute)
    srcs = [_buffer_cpp(s, compute) for s in instr.srcs]
    api = instr.api
    if api == "Cast":
        return f"Cast({dst}, {srcs[0]}, RoundMode::{instr.mode}, {count});"
    if api in ("Compare", "CompareScalar"):
        operand = srcs[1] if api == "Compare" else scalar_cpp(instr.scalar, compute)
        return f"{api}({dst}, {srcs[0]}, {operand}, CMPMODE::{instr.mode}, {count});"
    if api == "Select":
        other = srcs[2] if len(srcs) == 3 else scalar_cpp(instr.scalar, compute)
        return f"Select({dst}, {srcs[0]}, {srcs[1]}, {other}, SELMODE::{instr.mode}, {count});"
    if api == "Duplicate":
        return f"Duplicate({dst}, {scalar_cpp(instr.scalar, compute)}, {count});"
    if instr.scalar is not None:
        return f"{api}({dst}, {srcs[0]}, {scalar_cpp(instr.scalar, compute)}, {count});"
    return f"{api}({dst}, {', '.join(srcs)}, {count});"


def _region(buffer: Buffer) -> tuple[str, int, str]:
    """A UB region: a temporary is one region whatever dtype views it."""
    return (buffer.kind, buffer.index, buffer.name)


def _touches(instr: Instr) -> set[tuple[str, int, str]]:
    return {_region(b) for b in (instr.dst, *instr.srcs)}


def compute_lines(variant: KernelVariant) -> list[str]:
    """Vector instructions with a V-pipe barrier wherever one reuses a buffer the previous one touched."""
    lines: list[str] = []
    previous: Instr | None = None
    for instr in variant.program.instrs:
        if previous is not None and (
            _region(previous.dst) in _touches(instr) or _region(instr.dst) in _touches(previous)
        ):
            lines.append("PipeBarrier<PIPE_V>();")
        lines.append(instruction_cpp(instr, variant.compute))
        previous = instr
    return lines


@dataclass(frozen=True)
class VariantView:
    key: int
    key_name: Code  # its named constant (tiling-data header)
    name: Code
    storage: Code
    compute: Code
    temps: int
    masks: int
    slots: list[tuple[Code, Code]]  # (variable, float C++ initialiser)
    gm_reads: list[Code]  # the scalars carried as one-element tensors its slots read (from GM, once)
    lines: list[Code]
    uses_cmp_len: bool
    cmp_align: int  # elements in one 256-byte repeat of the compute type


def variant_view(plan: KernelPlan, variant: KernelVariant) -> VariantView:
    fields = {name: f"tiling.{name}" for name in plan.scalars}
    # a scalar carried as a tensor is a local of the storage type T, read from GM: float in arithmetic
    fields |= {name: f"static_cast<float>({name})" for name in plan.gm_scalars}
    program = variant.program
    slots = []
    for slot in program.slots:
        if isinstance(slot.expr, F.Name) and slot.expr.name in plan.gm_scalars:
            init = slot.expr.name  # converted from T straight to the compute type, as ops-nn's kernels do
        else:
            init = uniform_cpp(slot.expr, fields)
        slots.append((ident(slot.name), code(init)))
    read = {name for slot in program.slots for name in F.free_names(slot.expr)}
    return VariantView(
        key=variant.key,
        key_name=ident(variant.key_name),
        name=ident(variant.name),
        storage=code(variant.storage.cpp_type),
        compute=code(variant.compute.cpp_type),
        temps=len(program.temps),
        masks=len(program.masks),
        slots=slots,
        gm_reads=idents([name for name in plan.gm_scalars if name in read]),
        lines=[code(line) for line in compute_lines(variant)],
        uses_cmp_len=any(i.padded_count for i in program.instrs),
        cmp_align=256 // variant.compute.itemsize,
    )


@dataclass(frozen=True)
class BranchView:
    """Tiling keys whose code is identical (e.g. fp16 and bf16 both computed in float) share one branch."""

    condition: Code  # "KEY == TILING_KEY_FLOAT16 || KEY == TILING_KEY_BFLOAT16"
    comment: Code
    body: VariantView


def branches(views: list[VariantView], same: Callable[[VariantView], object]) -> list[BranchView]:
    groups: dict[object, list[VariantView]] = {}
    for view in views:
        groups.setdefault(same(view), []).append(view)
    result = []
    for members in groups.values():
        condition = code(" || ".join(f"KEY == {v.key_name}" for v in members))
        comment = cpp.comment(f"{', '.join(v.name for v in members)}: computed in {members[0].compute}")
        result.append(BranchView(condition, comment, members[0]))
    return result


def render_kernel(operator: OperatorPlan) -> dict[str, str]:
    spec_name = operator.source
    plan = operator.kernel
    op = operator.file_stem
    gm = {i.param: i.name for i in operator.opdef.read_inputs}
    gm_scalar = {str(i.param): i.name for i in operator.opdef.scalar_inputs}
    schedule = operator.schedule
    # the programs' slots read the stages' per-row scalars: their views are _stages_context's
    bare = schedule.row_stages
    views = [variant_view(plan, replace(v, program=replace(v.program, slots=[])) if bare else v) for v in plan.variants]
    assert len({v.key_name for v in views}) == len(views), "each tiling key has its own name"
    context = {
        "op_type": ident(operator.op_type),
        "kernel": ident(operator.kernel_entry),
        "tiling_struct": operator.tiling_struct,
        "tiling_header": code(f"{op}_tiling_data.h"),
        "inputs": [
            {"name": ident(name), "gm": gm[name], "channel": operator.schedule.channel_of(name) is not None}
            for name in plan.inputs
        ],
        # the entry takes every OpDef input in order; one passed null, or filled with a tensor another input
        # carries (GeluGrad's y), is not read
        "entry_inputs": [{"gm": i.name, "read": i.read} for i in operator.opdef.inputs],
        "channels": bool(operator.schedule.channel_inputs),
        "scalars": idents(plan.scalars),
        # scalars carried as one-element tensors: their GM argument (OpDef name) and GlobalTensor
        "gm_scalars": [{"name": ident(name), "gm": gm_scalar[name]} for name in plan.gm_scalars],
        "variants": views,
        "compute_branches": branches(views, lambda v: (tuple(v.lines), v.temps, v.masks, v.uses_cmp_len, v.compute)),
        "scalar_branches": branches(views, lambda v: (tuple(v.slots), tuple(v.gm_reads))),
        "buffer_num": BUFFER_NUM,
        "max_slots": max((len(v.slots) for v in views), default=0),
    }
    # the schedule's own: its GM tensors, outputs (a half split's streams) and the like
    context |= schedule.kernel_data(plan, operator.opdef)
    if schedule.row_stages:
        context["reduce"] = _stages_context(operator)
    return {
        f"op_kernel/{op}.cpp": render(schedule.kernel_template, f"op_kernel/{op}.cpp", spec_name, **context),
        f"op_kernel/{op}_tiling_data.h": render(
            schedule.tiling_data_template, f"op_kernel/{op}_tiling_data.h", spec_name, **context
        ),
    }


def _stages_context(operator: OperatorPlan) -> dict:
    """A staged kernel's programs (Schedule.row_stages, reduce_dim's): each level's (writing acc buffers) and the
    outputs', by tiling key, with their slots over the tiling's scalars (members `<name>_`) and the per-row scalars
    (`row_[i]`)."""
    plan = operator.kernel
    first = plan.variants[0]
    shape = [tuple(r.op for r in stage.reductions) for stage in first.stages]
    assert all([tuple(r.op for r in s.reductions) for s in v.stages] == shape for v in plan.variants), (
        "every kernel variant reduces the same levels"
    )
    names = [r.name for stage in first.stages for r in (*stage.reductions, *stage.functions)]
    index = {name: int(name.removeprefix("row")) for name in names}
    fields = {name: f"{name}_" for name in plan.scalars} | {name: f"row_[{i}]" for name, i in index.items()}

    def view(variant: KernelVariant, program) -> VariantView:
        base = variant_view(plan, replace(variant, program=replace(program, slots=[])))
        used = {i.scalar.slot for i in program.instrs if i.scalar is not None}  # a level reads only some
        slots = [(ident(s.name), code(uniform_cpp(s.expr, fields))) for s in program.slots if s.name in used]
        return replace(base, slots=slots)

    def stage_view(programs: list[VariantView]) -> list[BranchView]:
        return branches(programs, lambda v: (tuple(v.lines), tuple(v.slots), v.temps, v.masks, v.uses_cmp_len))

    def read(programs: list) -> set[str]:
        return {b.name for p in programs for i in p.instrs for b in i.srcs if b.kind == "input"}

    def read_inputs(programs: list) -> list[dict]:
        """The inputs some variant's program reads (a level may read only some: LogSoftmaxGrad's sum reads only the
        gradient), each the float view its function declares."""
        loaded = read(programs)
        return [{"name": ident(name)} for name in plan.inputs if name in loaded]

    def load_mask(programs: list) -> int:
        """The inputs a pass over chunks loads, bit k for input k: those its programs read (softmax cross entropy's
        labels are loaded in its last level and output pass only, not in the max's and the sum's)."""
        loaded = read(programs)
        return sum(1 << k for k, name in enumerate(plan.inputs) if name in loaded)

    # a0 > 1: each program's columns form (opgen.plan.reduce_columns), per variant: the program over column buffers
    # and the steps computing them
    def columns_of(variant: KernelVariant) -> list[ColumnProgram]:
        programs = [*(s.program for s in variant.stages), variant.program]
        return column_programs(programs, names, len(names))

    def column_view(variant: KernelVariant, column: ColumnProgram) -> VariantView:
        base = view(variant, column.program)
        declared = [code(f"LocalTensor<float> {s.name}Local = Column({s.column});") for s in column.slots]
        return replace(base, lines=declared + base.lines)

    def steps_view(variant: KernelVariant, column: ColumnProgram) -> VariantView:
        base = view(variant, replace(column.program, instrs=[], slots=[]))
        lines = [code(line) for step in column.steps for line in _column_step_cpp(step, fields)]
        return replace(base, lines=lines, temps=0, masks=0, uses_cmp_len=False)

    columns = {v.key: columns_of(v) for v in plan.variants}

    sum_index = {r.name: i for i, r in enumerate(r for s in first.stages for r in s.reductions if r.op == "sum")}
    stages = []
    for level, stage in enumerate(first.stages):
        views = [view(v, v.stages[level].program) for v in plan.variants]
        stages.append(
            {
                "accs": [ident(f"acc{i}") for i in range(len(stage.reductions))],
                "reductions": [
                    {"op": r.op, "index": index[r.name], "sum": sum_index.get(r.name, -1)} for r in stage.reductions
                ],
                "functions": [
                    {"api": code(f.api), "index": index[f.name], "arg": index[f.arg]} for f in stage.functions
                ],
                "comment": cpp.comment(
                    ", ".join(
                        [f"{r.name} = row{r.op}({F.to_text(r.arg)})" for r in stage.reductions]
                        + [f"{f.name} = {f.api}({f.arg})" for f in stage.functions]
                    )
                ),
                "branches": stage_view(views),
                "inputs": read_inputs([v.stages[level].program for v in plan.variants]),
                "mask": load_mask([v.stages[level].program for v in plan.variants]),
                "column_branches": stage_view([column_view(v, columns[v.key][level]) for v in plan.variants]),
                "slot_branches": stage_view([steps_view(v, columns[v.key][level]) for v in plan.variants]),
            }
        )
    final = {
        "branches": stage_view([view(v, v.program) for v in plan.variants]),
        "inputs": read_inputs([v.program for v in plan.variants]),
        "mask": load_mask([v.program for v in plan.variants]),
        "column_branches": stage_view([column_view(v, columns[v.key][-1]) for v in plan.variants]),
        "slot_branches": stage_view([steps_view(v, columns[v.key][-1]) for v in plan.variants]),
    }

    def counts(v: KernelVariant) -> tuple[int, int, int]:
        programs = [v.program, *(s.program for s in v.stages)]
        return (
            max(len(p.temps) for p in programs),
            max(len(p.masks) for p in programs),
            max((len(s.reductions) for s in v.stages), default=0),
        )

    variants = []
    for v in plan.variants:
        temps, masks, accs = counts(v)
        variants.append(
            {
                "key_name": ident(v.key_name),
                "storage": code(v.storage.cpp_type),
                "temps": temps,
                "masks": masks,
                "accs": accs,
                "columns": len(names) + max(c.buffers for c in columns[v.key]),
            }
        )
    kernel_name = dict(zip(operator.schedule.outputs, plan.outputs, strict=True))
    per_row = [
        {"name": ident(kernel_name[name]), "cpp": code(uniform_cpp(expr, fields))}
        for name, expr in (first.stages[-1].row_outputs if first.stages else ())
    ]
    return {
        "row_count": len(index),
        "stages": stages,
        "final": final,
        "variants": variants,
        "has_functions": any(s.functions for s in first.stages),
        # the UB layout's constants, the tiling's (opgen.plan.reduce_dim_tiling): one rule for both sides
        "sum_width": SUM_WIDTH,
        "repeat_floats": REPEAT_FLOATS,
        "scalar_floats": SCALAR_FLOATS,
        # per-row outputs (one value per row), computed on the scalar unit after the last level's reductions
        "per_row": per_row,
        # each sum's counter blocks, in reduction order: sums[i] is the i-th sum's place among the sums
        "sums": sum(r.op == "sum" for stage in first.stages for r in stage.reductions),
    }


def _column_step_cpp(step: ColumnStep, fields: dict[str, str]) -> list[str]:
    """One step computing a slot's column buffer (a0 > 1), then a V barrier (the next step or program reads it)."""
    dst = f"Column({step.dst})"
    srcs = [f"Column({s})" for s in step.srcs]
    if step.api == "Duplicate":
        assert step.scalar is not None
        line = f"Duplicate({dst}, {uniform_cpp(step.scalar, fields)}, len);"
    elif step.scalar is not None:
        line = f"{step.api}({dst}, {srcs[0]}, {uniform_cpp(step.scalar, fields)}, len);"
    else:
        line = f"{step.api}({dst}, {', '.join(srcs)}, len);"
    return [line, "PipeBarrier<PIPE_V>();"]
