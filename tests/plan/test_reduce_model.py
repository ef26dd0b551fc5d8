"""The reduce_dim kernel's sum order in its numpy model (opgen.plan.reduce_model), against the order stated
independently: aligned power-of-two blocks summed as balanced trees, the blocks then added from the last to the
first; each group of SUM_WIDTH lanes a balanced tree with missing lanes +0. (tests/e2e/test_kernel_twin.py holds
the model to the generated kernel bit for bit.)"""

from __future__ import annotations

import numpy as np
import pytest

from opgen.plan.reduce_model import SUM_WIDTH, lane_tree_sums, pairwise_total, row_max


def _tree(values: list[np.float32]) -> np.float32:
    if len(values) == 1:
        return values[0]
    half = len(values) // 2
    return np.float32(_tree(values[:half]) + _tree(values[half:]))


def _blocks_last_to_first(values: list[np.float32]) -> np.float32:
    blocks, start = [], 0
    for bit in reversed(range(len(values).bit_length())):
        if len(values) >> bit & 1:
            blocks.append(_tree(values[start : start + (1 << bit)]))
            start += 1 << bit
    total = blocks[-1]
    for block in reversed(blocks[:-1]):
        total = np.float32(block + total)
    return total


@pytest.mark.parametrize("count", [1, 2, 3, 5, 7, 8, 13, 31, 64, 100])
def test_the_group_sums_add_as_aligned_blocks_from_the_last(count):
    rng = np.random.default_rng(count)
    sums = (rng.uniform(-1, 1, (3, count)) * 10.0 ** rng.integers(-6, 6, (3, count))).astype(np.float32)
    want = [_blocks_last_to_first(list(row)) for row in sums]
    np.testing.assert_array_equal(pairwise_total(sums), np.array(want, np.float32))


@pytest.mark.parametrize("r", [1, 13, 64, 65, 200])
def test_each_group_is_a_lane_tree_with_missing_lanes_zero(r):
    rows = np.random.default_rng(r).uniform(-1e4, 1e4, (2, r)).astype(np.float32)
    groups = -(-r // SUM_WIDTH)
    padded = np.zeros((2, groups * SUM_WIDTH), np.float32)
    padded[:, :r] = rows
    want = [[_tree(list(g)) for g in row.reshape(groups, SUM_WIDTH)] for row in padded]
    np.testing.assert_array_equal(lane_tree_sums(rows), np.array(want, np.float32))


def test_the_max_of_a_row_with_nan_is_nan():
    rows = np.array([[1.0, np.nan, 3.0], [-np.inf, -np.inf, -np.inf], [1.0, 5.0, 2.0]], np.float32)
    got = row_max(rows)
    assert np.isnan(got[0]) and got[1] == -np.inf and got[2] == 5.0


def test_a_per_row_output_is_its_expression_over_the_rows_values_in_float32():
    """softmax cross entropy's loss: one float per row, -(the row's last sum), computed after the last level; the
    full-size output beside it keeps the row's shape."""
    from opgen.plan.kernel import kernel_plan
    from opgen.plan.schedules import schedule_for
    from opgen.spec.dtypes import DType
    from opgen.spec.loader import load_spec
    from tests.conftest import ROOT

    spec = load_spec(ROOT / "specs" / "softmax_cross_entropy_with_logits.yaml").spec
    variant = next(v for v in kernel_plan(spec).variants if v.storage is DType.FLOAT)
    ((name, _),) = variant.stages[-1].row_outputs
    assert name == "loss" and not any(s.row_outputs for s in variant.stages[:-1])
    rng = np.random.default_rng(7)
    x = rng.uniform(-10, 10, (5, 9)).astype(np.float32)
    y = rng.uniform(0, 1, (5, 9)).astype(np.float32)
    outputs = schedule_for(spec).kernel_outputs(variant, {"features": x, "labels": y}, {}, {})
    assert list(outputs) == ["loss", "backprop"] and outputs["loss"].shape == (5,) and outputs["backprop"].size == 45
    # the last level's sum, negated on the scalar unit: the kernel's float32 sum order, then a sign flip
    m = x.max(axis=1, keepdims=True)
    s = pairwise_total(lane_tree_sums(np.exp(x - m).astype(np.float32)))[:, None]
    terms = (y * ((x - m) - np.log(s.astype(np.float64)).astype(np.float32))).astype(np.float32)
    want = -pairwise_total(lane_tree_sums(terms))
    np.testing.assert_allclose(outputs["loss"], want, rtol=1e-6)
