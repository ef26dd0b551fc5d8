"""Python model of the reduce_dim tiling (`op_host/<op>_tiling.cpp` of an operator reducing along dim,
`Plan<OpType>Tiling`), step by step in the C++'s integer arithmetic, so the generated tiling tests state exact plans.

Every tensor is viewed as (a1, r, a0); a0 == 1 (TODO(reduce-dim): a0 > 1 is refused). UB per element of a tile:
each input and output queue in the stored dtype (one buffer each), a float copy of each input and output when the
stored dtype is not FLOAT, the acc buffers of the widest level, the temporaries and masks of the largest program;
each float buffer holds REPEAT_FLOATS more (a Compare's whole repeats from a row's start); per SUM_WIDTH elements
3 floats of group sums and ReduceMax's work area. The tile is a multiple of SUM_WIDTH (a chunk holds whole groups of
the fixed sum order). A padded row (r rounded up to whole 32-byte blocks) within the tile: as many whole rows as fit
(at most MAX_BLOCK_COUNT, one DataCopyPad); else the row in chunks of the tile (rowsPerTile 0). Rows are split evenly
over the cores, at least MIN_BYTES_PER_CORE of input each.

A per-row output (one value per row, `row_outputs`) has a queue and, when the stored dtype is not FLOAT, a float copy
of one element per 32-byte block of the tile (a tile holds at most that many rows): `ReduceCost.row_bits` per element
and `row_slack` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.plan.kernel import BLOCK_BYTES, KernelVariant
from opgen.plan.reduce_model import SUM_WIDTH
from opgen.plan.tiling import MIN_BYTES_PER_CORE, _align_up, _ceil_div

REPEAT_FLOATS = 64  # slack past each float buffer
SCALAR_FLOATS = 16  # the scalar exchange buffer (ReduceMax's dst)
MAX_BLOCK_COUNT = 4095


@dataclass(frozen=True)
class ReduceCost:
    """A kernel variant's UB figures, as the kernel allocates."""

    item_size: int
    queues: int  # inputs + full-size outputs
    float_buffers: int  # float copies (not FLOAT), accs and temporaries
    masks: int
    # per-row outputs (one value per row): a queue of one element per BLOCK_BYTES of a tile's stored elements (a
    # row's padded length is at least a block), and its float copy (not FLOAT)
    row_queues: int = 0
    row_copies: int = 0

    @property
    def buffers(self) -> int:
        """InitBuffer calls: each may round up by one 32-byte block (+ groups, ReduceMax's area, scalars)."""
        return self.queues + self.float_buffers + self.masks + 3 + self.row_queues + self.row_copies

    @property
    def row_bits(self) -> int:
        """A tile element's share of the per-row buffers, in bits: item_size / BLOCK_BYTES of an element each."""
        return (self.row_queues * self.item_size + self.row_copies * 4) * 8 * self.item_size // BLOCK_BYTES

    @property
    def row_slack(self) -> int:
        """Bytes the per-row buffers round up by: one block of elements each (tile / block rounded up)."""
        block = BLOCK_BYTES // self.item_size
        return block * (self.row_queues * self.item_size + self.row_copies * 4)


def reduce_cost(variant: KernelVariant, inputs: int, outputs: int) -> ReduceCost:
    programs = [variant.program, *(s.program for s in variant.stages)]
    temps = max(len(p.temps) for p in programs)
    masks = max(len(p.masks) for p in programs)
    accs = max((len(s.reductions) for s in variant.stages), default=0)
    per_row = len(variant.stages[-1].row_outputs) if variant.stages else 0
    full = inputs + outputs - per_row
    floating = variant.storage.itemsize == 4 and variant.storage.is_floating
    copies = 0 if floating else full
    row_copies = 0 if floating else per_row
    return ReduceCost(variant.storage.itemsize, full, copies + accs + temps, masks, per_row, row_copies)


@dataclass(frozen=True)
class ReducePlan:
    tiling_key: int
    block_dim: int
    rows_per_tile: int  # 0: a row in chunks of tile_length
    tile_length: int


def plan_reduce(key: int, cost: ReduceCost, rows: int, r: int, a0: int, core_num: int, ub: int) -> ReducePlan | None:
    if rows <= 0 or r <= 0 or a0 != 1 or core_num == 0:
        return None
    fixed = SCALAR_FLOATS * 4 + cost.buffers * BLOCK_BYTES + cost.float_buffers * REPEAT_FLOATS * 4 + cost.row_slack
    bits = (cost.queues * cost.item_size + cost.float_buffers * 4) * 8 + cost.masks + cost.row_bits
    tile = (ub - fixed) * 8 * SUM_WIDTH // (bits * SUM_WIDTH + 3 * 4 * 8) // SUM_WIDTH * SUM_WIDTH
    if tile <= 0:
        return None
    padded = _align_up(r, BLOCK_BYTES // cost.item_size)
    rows_per_tile = 0
    if padded <= tile:
        rows_per_tile = min(tile // padded, MAX_BLOCK_COUNT, rows)
        tile = _align_up(rows_per_tile * padded, SUM_WIDTH)
    block_dim = min(core_num, rows, max(1, _ceil_div(rows * r * cost.item_size, MIN_BYTES_PER_CORE)))
    return ReducePlan(key, block_dim, rows_per_tile, tile)
