"""The columns path of a reduce_dim kernel (a0 > 1: the reduced dim is not the last): per-row scalars become
per-column vectors, nothing is transposed through GM.

A tile holds rows of a0-columns (r rows, or a chunk of them, of `cols` columns each, a row every pitch elements).
Each level's program runs on one tile row at a time, its reductions fold element by element across the rows into one
column buffer per reduction (max: Max row after row; sum: a binary counter whose leaves are the rows, a column
buffer per level of the counter), and the outputs' program runs on each tile row. The programs are the ones the
rows path runs (`ReductionStage.program`, `KernelVariant.program`): a scalar slot reading a per-row value becomes a
column buffer computed once per tile (`ColumnStep`s, float step by step as the scalar unit computes the slot), and
each instruction taking that scalar takes the buffer instead (Adds -> Add, Duplicate -> an exact copy, ...): the
same IEEE operation on the same values, so `opgen.plan.reduce_model` models both paths.

Sum order: the binary counter over the r leaves gives the tree of aligned power-of-two blocks, which is the a0 == 1
path's order (lane trees of SUM_WIDTH elements, then the counter over the group sums); the lane tree adds +0 for
the missing lanes of a last partial group, which turns a sum of -0 into +0: the columns path adds +0 to its total
when r is not a multiple of SUM_WIDTH (`needs_zero`), and the two orders agree bit for bit.

Column buffers, in order: one per per-row value (`rowN` at N), then the slot buffers of the largest program, then
`levels` counter blocks per sum reduction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from opgen import formula as F
from opgen.plan.lowering import Buffer, Instr, LoweringError, Scalar, VectorProgram
from opgen.plan.reduce_model import SUM_WIDTH
from opgen.spec.dtypes import DType

ROW_PREFIX = "row"  # the per-row scalars' names in the lowered programs (row0, row1...), one per reduction

# a scalar form -> its tensor form, same operand order
_TENSOR_FORM = {"Adds": "Add", "Muls": "Mul", "Maxs": "Max", "Mins": "Min", "CompareScalar": "Compare"}


@dataclass(frozen=True)
class ColumnStep:
    """One vector instruction computing a slot's column buffer: dst = api(srcs..., scalar) over column buffers.
    `api` is Muls / Adds (with `scalar`, a host-uniform expression), Add / Sub / Mul / Div, or Duplicate."""

    api: str
    dst: int
    srcs: tuple[int, ...] = ()
    scalar: F.Expr | None = None


@dataclass(frozen=True)
class ColumnSlot:
    name: str  # the program's slot (s1): its buffer is the local `<name>Local`
    column: int  # the column buffer holding it


@dataclass(frozen=True)
class ColumnProgram:
    program: VectorProgram  # the row program with the slots over per-row values read from column buffers
    slots: tuple[ColumnSlot, ...]
    steps: tuple[ColumnStep, ...]  # computing those buffers from the per-row values (once per tile)
    buffers: int  # slot and intermediate column buffers it uses past the per-row values


def row_index(name: str) -> int:
    return int(name.removeprefix(ROW_PREFIX))


def _reads_rows(expr: F.Expr, rows: frozenset[str]) -> bool:
    return any(n in rows for n in F.free_names(expr))


def column_program(program: VectorProgram, rows: frozenset[str], first: int) -> ColumnProgram:
    """`program` for the columns path: per-row values are column buffers 0.. (rowN at N); buffers from `first` hold
    the slots reading them and their intermediate values."""
    used = {i.scalar.slot for i in program.instrs if i.scalar is not None and i.scalar.slot is not None}
    steps: list[ColumnStep] = []
    slots: list[ColumnSlot] = []
    buffers: dict[str, Buffer] = {}
    next_column = first

    def vector(expr: F.Expr, dst: int | None) -> int | None:
        """Steps computing `expr` into a column buffer (dst, or a new one) and its index; None for a uniform one."""
        nonlocal next_column
        if not _reads_rows(expr, rows):
            return None
        if isinstance(expr, F.Name):
            if dst is None:
                return row_index(expr.name)
            steps.append(ColumnStep("Muls", dst, (row_index(expr.name),), F.Const(1.0)))  # an exact copy
            return dst
        if dst is None:
            dst = next_column
            next_column += 1
        if isinstance(expr, F.Unary):
            x = vector(expr.x, None)
            assert x is not None
            steps.append(ColumnStep("Muls", dst, (x,), F.Const(-1.0)))
            return dst
        if not (isinstance(expr, F.Binary) and expr.op in ("add", "sub", "mul", "div")):
            raise LoweringError(f"the columns path cannot compute {F.to_text(expr)} per column")
        a, b = vector(expr.a, None), vector(expr.b, None)
        api = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div"}[expr.op]
        if a is not None and b is not None:
            steps.append(ColumnStep(api, dst, (a, b)))
        elif expr.op in ("add", "mul"):  # commutative: the vector operand first
            operand, scalar = (a, expr.b) if a is not None else (b, expr.a)
            assert operand is not None
            steps.append(ColumnStep(api + "s", dst, (operand,), scalar))
        elif expr.op == "sub" and a is not None:  # a - s = a + (-s), exactly
            steps.append(ColumnStep("Adds", dst, (a,), F.Unary("neg", expr.b)))
        elif expr.op == "sub":  # s - b = (-b) + s, exactly
            assert b is not None
            steps.append(ColumnStep("Muls", dst, (b,), F.Const(-1.0)))
            steps.append(ColumnStep("Adds", dst, (dst,), expr.a))
        else:  # division keeps its rounding: the scalar spread, then Div
            steps.append(ColumnStep("Duplicate", dst, (), expr.b if a is not None else expr.a))
            operands = (a, dst) if a is not None else (dst, b)
            steps.append(ColumnStep("Div", dst, tuple(o for o in operands if o is not None)))
        return dst

    for slot in program.slots:
        if slot.name not in used or not _reads_rows(slot.expr, rows):
            continue
        column = vector(slot.expr, None)
        assert column is not None
        slots.append(ColumnSlot(slot.name, column))
        buffers[slot.name] = Buffer("input", 1000 + len(buffers), DType.FLOAT, slot.name)

    instrs = []
    for instr in program.instrs:
        scalar = instr.scalar
        if scalar is None or scalar.slot not in buffers:
            instrs.append(instr)
            continue
        spread = buffers[scalar.slot]
        if instr.api == "Duplicate":  # the spread value is the column buffer: an exact copy
            instrs.append(Instr("Muls", instr.dst, (spread,), Scalar(F.Const(1.0))))
        elif instr.api == "Select":
            instrs.append(replace(instr, srcs=(*instr.srcs, spread), scalar=None, mode="VSEL_TENSOR_TENSOR_MODE"))
        elif instr.api in _TENSOR_FORM:
            instrs.append(replace(instr, api=_TENSOR_FORM[instr.api], srcs=(*instr.srcs, spread), scalar=None))
        else:  # LeakyRelu's slope has no tensor form
            raise LoweringError(f"the columns path has no tensor form of {instr.api} with a per-row scalar")
    kept = [s for s in program.slots if not _reads_rows(s.expr, rows)]  # those reading rows: buffers, or unused
    # the column buffers are inputs of the program (each a vector of the tile row's length)
    transformed = replace(program, inputs=[*program.inputs, *buffers.values()], instrs=instrs, slots=kept)
    return ColumnProgram(transformed, tuple(slots), tuple(steps), next_column - first)


def needs_zero(r: int) -> bool:
    """Whether the a0 == 1 order's last lane tree adds +0 to a partial group (see the module's docstring)."""
    return r % SUM_WIDTH != 0


def column_programs(programs: Sequence[VectorProgram], rows: Sequence[str], row_count: int) -> list[ColumnProgram]:
    """Each program's columns form, its buffers from `row_count` (past the per-row values)."""
    names = frozenset(rows)
    return [column_program(p, names, row_count) for p in programs]
