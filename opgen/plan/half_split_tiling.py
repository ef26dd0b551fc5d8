"""Python model of the half-split tiling (`op_host/<op>_tiling.cpp` of a half-split operator, `Plan<OpType>Tiling`).

The split tensor is viewed as (x, 2, ny) (`opgen.spec.half_split.rows_and_half`); every UB stream (each half, each
half-size tensor) holds rows of ny elements. The UB budget per element is the elementwise kernel's (one
double-buffered queue per stream, temporaries and masks), giving `tile` elements per stream buffer. Then:
- a padded row (ny rounded up to whole 32-byte blocks, as DataCopyPad lays each block in UB) fits the tile: several
  whole rows per tile, each stream moved by one strided DataCopyPad (blockCount = rows, at most 4095, the GM gap
  between rows as srcStride/dstStride, at most MAX_STRIDE_BYTES, else one row per tile);
- else each row is cut in chunks of `tile` elements (one row per tile);
- except where ny = 1 and the kernel gathers the halves (`gathers`: no output is written per half): the split
  tensor's rows are then its element pairs, moved by one contiguous DataCopyPad of 2 * rows elements into a joined
  buffer (2 * tile elements, one buffer) and separated by GatherMask's built-in patterns 1 (even elements: the first
  half) and 2 (odd: the second), as ops-nn's glu_single_shape does; half-size tensors are contiguous then. The
  joined buffer costs 2 * item size more UB bytes per element, and a tile holds up to `tile` rows (one copy each,
  no blockCount limit). An output written per half (`interleaves`) keeps both halves in one buffer and is
  interleaved back by Gather into a joined output buffer (2 * tile elements, one buffer), taking its elements at
  byte offsets held in UB (2 * tile uint32, built once per kernel): 2 * item size + 8 more UB bytes per element.
Work units (whole rows, or row chunks) are split evenly over the cores, at least MIN_BYTES_PER_CORE of input each.
It follows the C++ step by step, in the same integer arithmetic, so the generated tiling tests state exact plans.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.plan.kernel import BLOCK_BYTES, KernelVariant
from opgen.plan.tiling import MIN_BYTES_PER_CORE, _align_up, _ceil_div, _trunc_div
from opgen.spec.socs import Soc

MAX_BLOCK_COUNT = 4095  # DataCopy(Pad)'s blockCount: at most 4095 blocks per instruction
MAX_STRIDE_BYTES = 65535  # the strides kept within DataCopy's 16-bit range; wider rows are moved one per copy


@dataclass(frozen=True)
class HalfSplitPlan:
    tiling_key: int
    block_dim: int
    rows_per_tile: int  # whole rows a tile holds (1 in chunk mode)
    chunk: int  # elements of a row a tile holds: ny, or the chunk length when a row is cut
    chunks_per_row: int
    tile_length: int  # elements of one stream buffer
    gather: bool = False  # ny = 1, the halves gathered from one contiguous copy (rows_per_tile rows each)


OFFSET_BYTES = 4  # one uint32 byte offset of Gather's srcOffset per element of a joined output tile


def plan_half_split(
    x: int, ny: int, variant: KernelVariant, soc: Soc, gathers: bool, interleaves: bool = False
) -> HalfSplitPlan | None:
    """The plan the C++ tiling computes for a split tensor viewed as (x, 2, ny) on `soc`; None where it fails."""
    return plan_half_split_on(x, ny, variant, soc.vector_cores, soc.ub_usable_bytes, gathers, interleaves)


def joined_bytes_per_element(item_size: int, interleaves: bool) -> int:
    """UB bytes per tile element a gathering kernel (ny = 1) adds to its streams: the joined input buffer (both
    halves), and where an output is written per half, the joined output buffer and Gather's offsets."""
    return 2 * item_size + (2 * item_size + 2 * OFFSET_BYTES if interleaves else 0)


def plan_half_split_on(
    x: int, ny: int, variant: KernelVariant, core_num: int, ub_size: int, gathers: bool, interleaves: bool = False
) -> HalfSplitPlan | None:
    if x <= 0 or ny <= 0 or core_num == 0:
        return None
    item_size = variant.storage.itemsize
    budget = ub_size - len(variant.program.masks) * BLOCK_BYTES
    align = variant.align_elements
    gather = gathers and ny == 1
    # the joined buffers (both halves of a tile) and Gather's offsets, not double-buffered
    joined_bits = joined_bytes_per_element(item_size, interleaves) * 8 if gather else 0
    tile = _trunc_div(_trunc_div(budget * 8, variant.bits_per_element + joined_bits), align) * align
    if tile <= 0:
        return None
    block_elements = BLOCK_BYTES // item_size
    padded_row = _align_up(ny, block_elements)
    if gather:
        rows_per_tile = min(tile, x)
        chunk, chunks_per_row, units = 1, 1, x
        tile = _align_up(rows_per_tile, align)
    elif padded_row <= tile:
        rows_per_tile = min(tile // padded_row, MAX_BLOCK_COUNT)
        if ny * item_size > MAX_STRIDE_BYTES:
            rows_per_tile = 1  # the gap between a half's rows is ny elements: no stride, one row per copy
        chunk, chunks_per_row = ny, 1
        rows_per_tile = min(rows_per_tile, x)
        units = x
        tile = _align_up(rows_per_tile * padded_row, align)
    else:
        rows_per_tile, chunk = 1, tile
        chunks_per_row = _ceil_div(ny, chunk)
        units = x * chunks_per_row
    input_bytes = x * 2 * ny * item_size
    block_dim = min(core_num, units, max(1, _ceil_div(input_bytes, MIN_BYTES_PER_CORE)))
    return HalfSplitPlan(variant.key, block_dim, rows_per_tile, chunk, chunks_per_row, tile, gather)
