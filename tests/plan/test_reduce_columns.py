"""The columns path of a reduce_dim kernel (a0 > 1; opgen.plan.reduce_columns) and its tiling model
(opgen.plan.reduce_dim_tiling): the sum order over rows is the rows path's bit for bit (so one model serves both), a
program's per-row slots become column buffers computing the same values, and the planned buffers fit the UB."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from spec_list import specs

from opgen import formula as F
from opgen.plan.kernel import kernel_plan
from opgen.plan.kernel_model import run_program_outputs, slot_value
from opgen.plan.lowering import LoweringError, lower_outputs
from opgen.plan.reduce_columns import ColumnProgram, column_program, needs_zero
from opgen.plan.reduce_dim_tiling import (
    BLOCK_BYTES,
    MAX_BLOCK_COUNT,
    REPEAT_FLOATS,
    SCALAR_FLOATS,
    ReduceCost,
    plan_reduce,
    reduce_cost,
)
from opgen.plan.reduce_model import SUM_WIDTH, lane_tree_sums, pairwise_total
from opgen.plan.tiling import MIN_BYTES_PER_CORE
from opgen.spec.dtypes import DType

OPS = ("softmax_v2", "log_softmax_v2")


def _column_counter(rows: np.ndarray) -> np.ndarray:
    """The columns path's sum of each row (n, r) as the kernel computes it across tile rows: every element a leaf
    of the binary counter (ColumnPush), the blocks from the last to the first (ColumnTotal), + 0 when r is not a
    multiple of SUM_WIDTH."""
    r = rows.shape[1]
    blocks: dict[int, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for k in range(r):
            value, level = rows[:, k], 0
            while (k >> level) & 1:
                value = (blocks[level] + value).astype(np.float32)
                level += 1
            blocks[level] = value
        total = None
        for level in range(r.bit_length()):
            if (r >> level) & 1:
                total = blocks[level] if total is None else (blocks[level] + total).astype(np.float32)
        assert total is not None
        return (total + np.float32(0)).astype(np.float32) if needs_zero(r) else total


@pytest.mark.parametrize("r", [1, 2, 3, 13, 63, 64, 65, 127, 128, 200, 777, 4100])
def test_the_counter_over_rows_is_the_rows_paths_order_bit_for_bit(r):
    rng = np.random.default_rng(r)
    rows = (rng.uniform(-1, 1, (6, r)) * 10.0 ** rng.integers(-30, 30, (6, r))).astype(np.float32)
    rows[1] = -0.0  # all -0: the lane tree's missing lanes give +0 unless r fills whole groups
    rows[2, ::3] = np.inf
    rows[3, r // 2] = np.nan
    rows[4, ::2] = -0.0
    want = pairwise_total(lane_tree_sums(rows))
    got = _column_counter(rows)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.signbit(want[1]) == (r % SUM_WIDTH == 0)


def _steps_values(column: ColumnProgram, columns: dict[int, np.ndarray], scalars: dict) -> dict[int, np.ndarray]:
    """The column buffers the steps compute, one float32 operation each (the vector unit's)."""
    ops = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
    values = dict(columns)
    with np.errstate(all="ignore"):
        for step in column.steps:
            srcs = [values[s] for s in step.srcs]
            scalar = slot_value(step.scalar, scalars) if step.scalar is not None else None
            if step.api == "Duplicate":
                values[step.dst] = np.broadcast_to(np.float32(scalar), srcs[0].shape if srcs else (1,))
            elif step.api in ("Muls", "Adds"):
                fn = np.multiply if step.api == "Muls" else np.add
                values[step.dst] = fn(srcs[0], np.float32(scalar)).astype(np.float32)
            else:
                values[step.dst] = ops[step.api](srcs[0], srcs[1]).astype(np.float32)
    return values


_ROW0, _ROW1 = F.Name("row0", F.SymbolKind.SCALAR), F.Name("row1", F.SymbolKind.SCALAR)
_SELF, _SCALE = F.Name("self", F.SymbolKind.TENSOR), F.Name("scale", F.SymbolKind.SCALAR)


@pytest.mark.parametrize(
    "expr",
    [
        F.Binary("sub", _SELF, _ROW0),  # softmax's shift: Adds(-row0)
        F.Binary("div", F.Call("exp", (F.Binary("sub", _SELF, _ROW0),)), _ROW1),  # Duplicate(row1), Div
        F.Binary("mul", _SELF, F.Binary("div", _SCALE, F.Binary("sub", _SCALE, _ROW1))),  # scalar - row, then /
        F.Binary("add", F.Binary("mul", _SELF, _ROW1), F.Unary("neg", _ROW0)),
        F.Select(F.Compare("gt", _SELF, _ROW0), _SELF, _ROW1),  # CompareScalar, Select with a scalar
    ],
)
def test_a_programs_per_row_slots_become_column_buffers_with_the_same_values(expr):
    program = lower_outputs({"out": expr}, inputs=["self"], storage=DType.FLOAT, compute=DType.FLOAT)
    column = column_program(program, frozenset({"row0", "row1"}), 2)
    assert column.slots and not any({"row0", "row1"} & set(F.free_names(s.expr)) for s in column.program.slots), (
        "no scalar slot reads a per-row value"
    )
    assert all(i.scalar is None or i.scalar.slot not in {s.name for s in column.slots} for i in column.program.instrs)
    rng = np.random.default_rng(3)
    x = rng.uniform(-5, 5, (7, 9)).astype(np.float32)  # (rows of the tile, columns)
    row0 = rng.uniform(-5, 5, 9).astype(np.float32)
    row1 = rng.uniform(0.5, 5, 9).astype(np.float32)
    scalars = {"scale": 1.5}
    values = _steps_values(column, {0: row0, 1: row1}, scalars)
    slots = {s.name: np.broadcast_to(values[s.column], x.shape) for s in column.slots}
    got = run_program_outputs(column.program, {"self": x, **slots}, scalars)["out"]
    # the rows path: the same program with the per-row values as scalars (one per column here)
    want = run_program_outputs(program, {"self": x}, {**scalars, "row0": row0[None, :], "row1": row1[None, :]})["out"]
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))


def test_a_per_row_value_the_columns_path_cannot_spread_is_refused():
    slope = F.Binary("mul", _SELF, _ROW0)
    leaky = F.Select(F.Compare("gt", _SELF, F.Const(0.0)), _SELF, slope)
    program = lower_outputs({"out": leaky}, inputs=["self"], storage=DType.FLOAT, compute=DType.FLOAT)
    with pytest.raises(LoweringError, match="LeakyRelu"):
        column_program(program, frozenset({"row0"}), 1)
    minimum = F.Binary("add", _SELF, F.Binary("min", _ROW0, _SCALE))
    program = lower_outputs({"out": minimum}, inputs=["self"], storage=DType.FLOAT, compute=DType.FLOAT)
    with pytest.raises(LoweringError, match="per column"):
        column_program(program, frozenset({"row0"}), 1)


def _align(n: int, m: int) -> int:
    return -(-n // m) * m


def _kernel_ub_bytes(cost: ReduceCost, tile: int, pitch: int, levels: int) -> int:
    """The UB the generated kernel's InitBuffer calls take (reduce_dim_kernel.cpp.j2's Init), each rounded up to a
    32-byte block: stated from the kernel, not from the tiling's formula."""
    sizes = [tile * cost.item_size] * cost.queues
    sizes += [(tile + REPEAT_FLOATS) * 4] * (cost.float_buffers - (cost.scratch if pitch else 0))
    # the accs and temporaries: on the columns path one tile row each (the programs run row by row)
    sizes += [(pitch + REPEAT_FLOATS) * 4] * (cost.scratch if pitch else 0)
    # the masks: on the columns path one tile row each
    sizes += [((pitch if pitch else tile) + REPEAT_FLOATS) // 8] * cost.masks
    if not pitch:  # the group sums and ReduceMax's area: the rows path only
        sizes.append(_align(_align(tile, SUM_WIDTH) // SUM_WIDTH, 8) * 4)
        sizes.append(_align(2 * max(tile // SUM_WIDTH, 1), 8) * 4)
    sizes.append(SCALAR_FLOATS * 4)
    if pitch:
        sizes.append((cost.columns + cost.sums * levels) * (pitch + REPEAT_FLOATS) * 4)
    return sum(_align(s, BLOCK_BYTES) for s in sizes)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("ub", [196_352, 65_536, 16_384])
def test_column_plans_fit_the_ub_and_columns_that_fit_are_the_widest(op, ub):
    plan = kernel_plan(specs()[op])
    for variant in plan.variants:
        cost = reduce_cost(variant, len(plan.program_inputs), len(plan.outputs))
        block = BLOCK_BYTES // cost.item_size
        assert cost.sums == 1 and cost.columns >= 3  # softmax's row0, row1 (+ ln), a slot
        for rows, r, a0 in [(1, 1, 2), (4, 5, 6), (3, 1000, 100), (2, 20_000, 3), (1, 5000, 70_000), (9, 300, 4099)]:
            planned = plan_reduce(variant.key, cost, rows, r, a0, 48, ub)
            assert planned is not None and planned.rows_per_tile == 0
            pitch = _align(planned.columns_per_tile, block)
            assert planned.levels == r.bit_length()
            assert 1 <= planned.rows_per_chunk <= min(r, MAX_BLOCK_COUNT)
            assert planned.rows_per_chunk * pitch <= planned.tile_length
            assert _kernel_ub_bytes(cost, planned.tile_length, pitch, planned.levels) <= ub, (rows, r, a0)
            if planned.rows_per_chunk == r and planned.columns_per_tile < a0:
                # one block more would not fit, or would leave a core the launch is meant to use without a unit
                wider = _align((pitch + block) * r, SUM_WIDTH)
                target = min(48, -(-rows * r * a0 * cost.item_size // MIN_BYTES_PER_CORE))
                fewer_units = rows * -(-a0 // (pitch + block)) < target
                assert (
                    fewer_units or _kernel_ub_bytes(cost, wider, pitch + block, planned.levels) > ub - 64 * cost.buffers
                )
            units = rows * -(-a0 // planned.columns_per_tile)
            assert 1 <= planned.block_dim <= min(48, units)


def test_more_rows_than_one_copy_moves_are_column_chunks():
    plan = kernel_plan(specs()["softmax_v2"])
    variant = plan.variants[0]
    cost = reduce_cost(variant, len(plan.program_inputs), len(plan.outputs))
    planned = plan_reduce(variant.key, cost, 2, MAX_BLOCK_COUNT + 1, 2, 48, 10**7)
    assert planned is not None and planned.rows_per_chunk < MAX_BLOCK_COUNT + 1
    fits = plan_reduce(variant.key, cost, 2, MAX_BLOCK_COUNT, 2, 48, 10**7)
    assert fits is not None and fits.rows_per_chunk == MAX_BLOCK_COUNT


RANGE = range(1, MAX_BLOCK_COUNT + 1)  # the rows one DataCopyPad moves


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("ub", [196_352, 65_536])
@pytest.mark.parametrize("a0", [5, 100])
@pytest.mark.parametrize("masks", [0, 2])
def test_columns_fit_up_to_the_most_rows_the_kernels_ub_holds(op, ub, a0, masks):
    """The columns-fit boundary (the most rows r of a0 columns planned in one tile) is at least the largest r whose
    buffers, as the kernel allocates them (accs, temporaries and masks one tile row each, no group sums or ReduceMax
    area), fit the UB less the model's rounding allowance: no UB left idle that would take more rows. Derived from
    the kernel's InitBuffer sizes. No spec's program has masks yet: `masks` more stand for a program with some."""
    plan = kernel_plan(specs()[op])
    for variant in plan.variants:
        cost = reduce_cost(variant, len(plan.program_inputs), len(plan.outputs))
        cost = replace(cost, masks=cost.masks + masks)
        assert cost.scratch >= 1  # softmax's accs
        pitch = _align(a0, BLOCK_BYTES // cost.item_size)
        fits = [_kernel_ub_bytes(cost, _align(r * pitch, SUM_WIDTH), pitch, r.bit_length()) for r in RANGE]
        allowed = max(r for r, used in zip(RANGE, fits, strict=True) if used <= ub - 64 * cost.buffers)
        planned = [plan_reduce(variant.key, cost, 1, r, a0, 1, ub) for r in RANGE]  # one core: a0 not cut for cores
        boundary = max(
            r for r, p in zip(RANGE, planned, strict=True) if p and p.columns_per_tile == a0 and p.rows_per_chunk == r
        )
        assert boundary >= allowed, (variant.name, boundary, allowed)
        assert fits[boundary - 1] <= ub


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(("rows", "r", "a0"), [(1, 1001, 1000), (1, 300, 4099), (2, 500, 777), (3, 64, 20_000)])
@pytest.mark.parametrize("cores", [8, 48, 56])
def test_columns_that_fit_leave_every_core_a_unit(op, rows, r, a0, cores):
    """Columns that fit are not so wide that the cores the launch is meant to use lack a unit: a large tensor along a
    non-last dim keeps every core busy."""
    plan = kernel_plan(specs()[op])
    for variant in plan.variants:
        cost = reduce_cost(variant, len(plan.program_inputs), len(plan.outputs))
        planned = plan_reduce(variant.key, cost, rows, r, a0, cores, 253_952)
        assert planned is not None and planned.rows_per_chunk == r
        assert planned.block_dim == min(cores, -(-rows * r * a0 * cost.item_size // MIN_BYTES_PER_CORE)), variant.name
