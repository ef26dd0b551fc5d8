"""Bit-exact numpy model of a reduce_dim kernel (templates/op/op_kernel/reduce_dim_kernel.cpp.j2) on rows.

Every row is computed as the kernel computes it: each input cast to float once (exact from FLOAT16/BFLOAT16), each
level's program over the row (`opgen.plan.kernel_model`) reduced to one float per row, the outputs' program over
the row with those per-row scalars, the result cast back to the storage dtype (CAST_RINT: nearest-even).
Reductions, as the twin's Ascend C APIs compute them (opgen/twin/include/opgen_twin/reduce.h):
- max (ReduceMax): NaN when the row holds one, else the largest;
- sum: groups of SUM_WIDTH elements from the row's first, each summed by WholeReduceSum's lane tree (lanes 2i and
  2i + 1 added, then pairwise again; the last group's missing lanes +0), the group sums added in the kernel's
  binary counter (`pairwise_total`). The order does not depend on the tile, the path or the core count: the columns
  path (a reduced dim that is not the last, `opgen.plan.reduce_columns`) sums each column in a counter over the rows,
  the same tree, and computes every program step as the same IEEE operation, so one model serves both.
A level's per-row functions (ln of a sum) are the API's float64 model of the float scalar, rounded to float; a per-row
output (`rows_of`, the loss of softmax cross entropy) is its expression over the per-row scalars in float32 step by
step (the kernel's scalar unit), one value per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from opgen import formula as F
from opgen.plan.kernel_model import run_program_outputs, slot_value
from opgen.plan.lowering import VectorProgram
from opgen.spec.dtypes import DType

if TYPE_CHECKING:
    from opgen.plan.schedules.reduce_dim import ReductionStage

SUM_WIDTH = 64  # elements per group sum: one 256-byte repeat of float (the kernel's and the tiling's constant)


def lane_tree_sums(rows: np.ndarray) -> np.ndarray:
    """WholeReduceSum of each SUM_WIDTH-element group of each row (rows: (n, r) float32): (n, groups) float32."""
    n, r = rows.shape
    groups = -(-r // SUM_WIDTH)
    lanes = np.zeros((n, groups * SUM_WIDTH), np.float32)
    lanes[:, :r] = rows
    lanes = lanes.reshape(n, groups, SUM_WIDTH)
    with np.errstate(all="ignore"):
        while lanes.shape[-1] > 1:
            lanes = (lanes[..., 0::2] + lanes[..., 1::2]).astype(np.float32)
    return lanes[..., 0]


def pairwise_total(sums: np.ndarray) -> np.ndarray:
    """The kernel's PairwiseSum over the columns of `sums` ((n, k) float32, pushed in column order): s_k joins the
    block before it while bit j of k is set; the blocks left are added from the last (highest bit) to the first."""
    blocks: dict[int, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for k in range(sums.shape[1]):
            value, level, bits = sums[:, k], 0, k
            while bits & 1:
                value = (blocks[level] + value).astype(np.float32)
                bits >>= 1
                level += 1
            blocks[level] = value
        total: np.ndarray | None = None
        for level in sorted(blocks):
            if (sums.shape[1] >> level) & 1:
                total = blocks[level] if total is None else (blocks[level] + total).astype(np.float32)
    assert total is not None, "a row has at least one element"
    return total


def row_max(rows: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(rows).any(axis=1), np.float32(np.nan), np.max(rows, axis=1)).astype(np.float32)


def run_reduce_outputs(
    program: VectorProgram,
    stages: Sequence[ReductionStage],
    rows: Mapping[str, np.ndarray],
    scalars: Mapping[str, float],
    storage: DType,
) -> dict[str, np.ndarray]:
    """Every output of the kernel by name, for inputs `rows` ((n, r) arrays, any float dtype: cast to float32
    exactly), in the storage dtype."""
    floats = {name: np.asarray(values).astype(np.float32) for name, values in rows.items()}
    known: dict[str, float | np.ndarray] = dict(scalars)
    for stage in stages:
        accs = run_program_outputs(stage.program, floats, known)
        for i, reduction in enumerate(stage.reductions):
            acc = np.asarray(accs[stage.acc_names[i]], np.float32)
            value = row_max(acc) if reduction.op == "max" else pairwise_total(lane_tree_sums(acc))
            known[reduction.name] = value[:, None]
        for function in stage.functions:  # the kernel's one-element vector call: the API's model rounded to float
            api = F.VECTOR_APIS[function.api]
            with np.errstate(all="ignore"):
                known[function.name] = api.model(np.asarray(known[function.arg], np.float64)).astype(np.float32)
        for name, expr in stage.row_outputs:  # one value per row, float32 step by step as the scalar unit
            known[name] = np.broadcast_to(slot_value(expr, known), (len(next(iter(floats.values()))), 1))
    outputs = run_program_outputs(program, floats, known) if program.outputs else {}
    outputs |= {name: np.asarray(known[name])[:, 0] for stage in stages for name, _ in stage.row_outputs}
    with np.errstate(over="ignore"):
        return {name: np.asarray(values, np.float32).astype(storage.numpy) for name, values in outputs.items()}
