"""Python model of the generated elementwise tiling (`op_host/<op>_tiling.cpp`, `Plan<OpType>Tiling`).

It follows templates/op/op_host/tiling.cpp.j2 step by step, in the same integer arithmetic, so the
generated tiling tests can state the exact plan for each SoC x variant x size, and a test can check
that the C++ and this model agree on many sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.plan.kernel import BLOCK_BYTES, KernelVariant
from opgen.spec.socs import Soc

MIN_BYTES_PER_CORE = 4096  # below this, splitting over more cores costs more than it gains
# A channel input whose value runs (elements sharing one value) are shorter than this reaches the kernel expanded to
# the output's shape by the aclnn API; longer runs, the kernel fills each tile with its run's value.
MIN_CHANNEL_RUN = 1024


@dataclass(frozen=True)
class TilingPlan:
    tiling_key: int
    block_dim: int
    per_core_length: int
    tile_length: int


def _ceil_div(a: int, b: int) -> int:
    return (a + b - 1) // b


def _align_up(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


def plan_tiling(total: int, variant: KernelVariant, soc: Soc) -> TilingPlan | None:
    """The plan the C++ tiling computes for `total` output elements on `soc`; None where it fails."""
    return plan_tiling_on(total, variant, soc.vector_cores, soc.ub_usable_bytes)


def plan_tiling_on(total: int, variant: KernelVariant, core_num: int, ub_size: int) -> TilingPlan | None:
    """Same as `plan_tiling` with explicit platform figures (core count, usable UB bytes)."""
    if total <= 0 or core_num == 0:
        return None
    item_size = variant.storage.itemsize
    per_core = _align_up(_ceil_div(total, core_num), BLOCK_BYTES // item_size)
    per_core = max(per_core, MIN_BYTES_PER_CORE // item_size)
    budget = ub_size - len(variant.program.masks) * BLOCK_BYTES
    # C++ integer division truncates toward zero; the operands are positive unless the UB is tiny.
    tile = _trunc_div(_trunc_div(budget * 8, variant.bits_per_element), variant.align_elements) * variant.align_elements
    tile = min(tile, _align_up(per_core, variant.align_elements))
    if tile <= 0:
        return None
    return TilingPlan(variant.key, _ceil_div(total, per_core), per_core, tile)


def ub_bytes(tile: int, variant: KernelVariant) -> int:
    """UB bytes one tile occupies: its bits per element, plus one 32-byte block of slack per mask."""
    return _ceil_div(tile * variant.bits_per_element, 8) + len(variant.program.masks) * BLOCK_BYTES


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient
