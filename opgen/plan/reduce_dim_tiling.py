"""Python model of the reduce_dim tiling (`op_host/<op>_tiling.cpp` of an operator reducing along dim,
`Plan<OpType>Tiling`), step by step in the C++'s integer arithmetic, so the generated tiling tests state exact plans.

Every tensor is viewed as (a1, r, a0) (rows = a1). UB per element of a tile: each input and output queue in the stored
dtype (one buffer each), a float copy of each input and output when the stored dtype is not FLOAT, the acc buffers of
the widest level, the temporaries and masks of the largest program; each float buffer holds REPEAT_FLOATS more (a
Compare's whole repeats from a row's start); per SUM_WIDTH elements 3 floats of group sums and ReduceMax's work area
(rows path only). The tile is a multiple of SUM_WIDTH (a chunk holds whole groups of the fixed sum order). A padded row
(r rounded up to whole 32-byte blocks) within the tile: as many whole rows as fit (at most MAX_BLOCK_COUNT, one
DataCopyPad); else the row in chunks of the tile (rowsPerTile 0). Rows are split evenly over the cores, at least
MIN_BYTES_PER_CORE of input each.

a0 > 1 (the columns path, `opgen.plan.reduce_columns`): a unit is one a1 index and a0Tile columns, its rows a pitch of
whole 32-byte blocks apart (pitch = a0Tile rounded up to a block); the queues and float copies of `tile` elements, but
the accs and temporaries (`cost.scratch`) of one tile row each (the programs run on one tile row at a time: pitch +
REPEAT_FLOATS floats, whole blocks) and the masks of one tile row (pitch + REPEAT_FLOATS bits), no group sums or
ReduceMax area (the levels reduce element by element across rows), plus one more InitBuffer of column buffers of that
size each: the per-row values and slot buffers (`cost.columns`) and `levels` = bit length of r counter blocks per sum.
Columns fit: the most columns (whole blocks, or a0) whose r rows all fit in a tile (at most MAX_BLOCK_COUNT rows, one
DataCopyPad), but no more than leaves a unit to each core the launch is meant to use; x read once. Else column chunks:
a0Tile = min(a0, COLUMN_CHUNK) columns, rChunk rows per load (as many as fit); x read once per level and once more for
the outputs. Units (a1 x column tiles) are split evenly over the cores.

A per-row output (one value per row, `row_outputs`) has a queue and, when the stored dtype is not FLOAT, a float copy
of one element per 32-byte block of the tile (a tile holds at most that many rows): `ReduceCost.row_bits` per element
and `row_slack` bytes. It is computed on the rows path only: a0 > 1 is refused for an operator with one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from opgen.plan.kernel import BLOCK_BYTES, KernelVariant
from opgen.plan.reduce_columns import column_programs
from opgen.plan.reduce_model import SUM_WIDTH
from opgen.plan.tiling import MIN_BYTES_PER_CORE, _align_up, _ceil_div

REPEAT_FLOATS = 64  # slack past each float buffer
SCALAR_FLOATS = 16  # the scalar exchange buffer (ReduceMax's dst)
MAX_BLOCK_COUNT = 4095
COLUMN_CHUNK = 64  # columns per unit when the r rows of a block of columns do not fit


@dataclass(frozen=True)
class ReduceCost:
    """A kernel variant's UB figures, as the kernel allocates."""

    item_size: int
    queues: int  # inputs + full-size outputs
    float_buffers: int  # float copies (not FLOAT), accs and temporaries
    masks: int
    scratch: int = 0  # the accs and temporaries of float_buffers: on the columns path one tile row each
    columns: int = 0  # a0 > 1: column buffers of the per-row values and the slots reading them
    sums: int = 0  # sum reductions: a binary counter of column buffers each
    # per-row outputs (one value per row): a queue of one element per BLOCK_BYTES of a tile's stored elements (a
    # row's padded length is at least a block), and its float copy (not FLOAT)
    row_queues: int = 0
    row_copies: int = 0
    row_masks: int = 0  # the columns path's masks: one tile row each (its programs run row by row)
    groups: int = 1  # 1: the group sums' and ReduceMax's buffers (3 floats per SUM_WIDTH elements); the rows path's

    @property
    def element_bits(self) -> int:
        """UB bits of one tile element: the queues in the stored dtype, the float buffers, the masks, the share of the
        per-row outputs' buffers."""
        return (self.queues * self.item_size + self.float_buffers * 4) * 8 + self.masks + self.row_bits

    @property
    def buffers(self) -> int:
        """InitBuffer calls: each may round up by one 32-byte block (+ scalars, and groups and ReduceMax's area)."""
        fixed = self.queues + self.float_buffers + self.masks + self.row_masks + 1 + 2 * self.groups
        return fixed + self.row_queues + self.row_copies

    @property
    def row_bits(self) -> int:
        """A tile element's share of the per-row buffers, in bits: item_size / BLOCK_BYTES of an element each."""
        return (self.row_queues * self.item_size + self.row_copies * 4) * 8 * self.item_size // BLOCK_BYTES

    @property
    def row_slack(self) -> int:
        """Bytes the per-row buffers round up by: one block of elements each (tile / block rounded up)."""
        block = BLOCK_BYTES // self.item_size
        return block * (self.row_queues * self.item_size + self.row_copies * 4)

    def columns_path(self) -> ReduceCost:
        """The figures of the columns path's tile: the scratch buffers leave the tile's float buffers and are sized
        as column buffers (one tile row each, no rounding: whole blocks), the masks one tile row each, and no group
        sums or ReduceMax area (the levels reduce element by element across rows)."""
        return replace(
            self,
            float_buffers=self.float_buffers - self.scratch,
            columns=self.columns + self.scratch,
            scratch=0,
            row_masks=self.row_masks + self.masks,
            masks=0,
            groups=0,
        )


def reduce_cost(variant: KernelVariant, inputs: int, outputs: int) -> ReduceCost:
    programs = [variant.program, *(s.program for s in variant.stages)]
    temps = max(len(p.temps) for p in programs)
    masks = max(len(p.masks) for p in programs)
    accs = max((len(s.reductions) for s in variant.stages), default=0)
    per_row = len(variant.stages[-1].row_outputs) if variant.stages else 0
    full = inputs + outputs - per_row
    floating = variant.storage.itemsize == 4 and variant.storage.is_floating
    copies = 0 if floating else full
    rows = [n for s in variant.stages for n in (*(r.name for r in s.reductions), *(f.name for f in s.functions))]
    columns = column_programs(programs, rows, len(rows))
    sums = sum(r.op == "sum" for s in variant.stages for r in s.reductions)
    slots = max(c.buffers for c in columns)
    return ReduceCost(
        variant.storage.itemsize,
        full,
        copies + accs + temps,
        masks,
        accs + temps,
        len(rows) + slots,
        sums,
        row_queues=per_row,
        row_copies=0 if floating else per_row,
    )


@dataclass(frozen=True)
class ReducePlan:
    tiling_key: int
    block_dim: int
    rows_per_tile: int  # 0: a row in chunks of tile_length
    tile_length: int
    columns_per_tile: int = 0  # a0 > 1: columns per unit (a0Tile); 0: a0 == 1
    rows_per_chunk: int = 0  # a0 > 1: rows of r per load (r: the columns fit)
    levels: int = 0  # a0 > 1: counter blocks per sum (the bit length of r)


def _tile(cost: ReduceCost, ub: int) -> int:
    """The most elements of a tile buffer in `ub` bytes: a multiple of SUM_WIDTH (may be <= 0)."""
    fixed = SCALAR_FLOATS * 4 + cost.buffers * BLOCK_BYTES + cost.float_buffers * REPEAT_FLOATS * 4 + cost.row_slack
    bits = cost.element_bits
    return (ub - fixed) * 8 * SUM_WIDTH // (bits * SUM_WIDTH + 3 * 4 * 8 * cost.groups) // SUM_WIDTH * SUM_WIDTH


def _column_tile(cost: ReduceCost, ub: int, levels: int, pitch: int) -> int:
    """The tile left beside the column buffers (one more InitBuffer) and the masks of rows `pitch` elements long."""
    column_bytes = (cost.columns + cost.sums * levels) * (pitch + REPEAT_FLOATS) * 4
    column_bytes += cost.row_masks * ((pitch + REPEAT_FLOATS) // 8)
    return _tile(cost, ub - BLOCK_BYTES - column_bytes)


def plan_reduce(key: int, cost: ReduceCost, rows: int, r: int, a0: int, core_num: int, ub: int) -> ReducePlan | None:
    if rows <= 0 or r <= 0 or a0 <= 0 or core_num == 0:
        return None
    if a0 > 1:
        if cost.row_queues:  # a per-row output is computed on the rows path only
            return None
        return _plan_columns(key, cost.columns_path(), rows, r, a0, core_num, ub)
    tile = _tile(cost, ub)
    if tile <= 0:
        return None
    padded = _align_up(r, BLOCK_BYTES // cost.item_size)
    rows_per_tile = 0
    if padded <= tile:
        rows_per_tile = min(tile // padded, MAX_BLOCK_COUNT, rows)
        tile = _align_up(rows_per_tile * padded, SUM_WIDTH)
    block_dim = min(core_num, rows, max(1, _ceil_div(rows * r * cost.item_size, MIN_BYTES_PER_CORE)))
    return ReducePlan(key, block_dim, rows_per_tile, tile)


def _plan_columns(key: int, cost: ReduceCost, rows: int, r: int, a0: int, core_num: int, ub: int) -> ReducePlan | None:
    block = BLOCK_BYTES // cost.item_size
    levels = r.bit_length()
    # columns fit: the widest pitch (whole blocks, at most a0's) whose r rows fit in a tile, from an estimate (the
    # tile without column buffers shared by r rows and the column buffers) down by a block at a time
    pitch = 0
    if r <= MAX_BLOCK_COUNT:
        bits = cost.element_bits + 2 * cost.groups  # + the group sums' 3 floats per SUM_WIDTH elements, rounded up
        column_bits = (cost.columns + cost.sums * levels) * 32 + cost.row_masks
        estimate = max(0, _column_tile(cost, ub, levels, 0)) * bits // (r * bits + column_bits)
        pitch = min(_align_up(a0, block), estimate // block * block)
        while pitch > 0 and _column_tile(cost, ub, levels, pitch) < r * pitch:
            pitch -= block
    wanted = max(1, _ceil_div(rows * r * a0 * cost.item_size, MIN_BYTES_PER_CORE))
    if pitch > 0:
        # no wider than gives each core it is meant to use a unit: a0 in at least the column tiles the cores need
        # (the widest pitch p of whole blocks with ceil(a0 / p) >= tiles, a block at least)
        tiles = _ceil_div(min(core_num, wanted), rows)
        if tiles > 1:
            pitch = min(pitch, max(block, (_ceil_div(a0, tiles - 1) - 1) // block * block))
        a0_tile = min(a0, pitch)
        rows_per_chunk = r
    else:  # column chunks
        a0_tile = min(a0, COLUMN_CHUNK)
        pitch = _align_up(a0_tile, block)
        rows_per_chunk = min(r, MAX_BLOCK_COUNT, max(0, _column_tile(cost, ub, levels, pitch)) // pitch)
        if rows_per_chunk <= 0:
            return None
    pitch = _align_up(a0_tile, block)
    tile = _align_up(rows_per_chunk * pitch, SUM_WIDTH)
    units = rows * _ceil_div(a0, a0_tile)
    return ReducePlan(key, min(core_num, units, wanted), 0, tile, a0_tile, rows_per_chunk, levels)
