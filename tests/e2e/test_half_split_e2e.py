"""Half-split operators (`split:`, ops-nn's gated activations) through the generated aclnn API on the twin: for each
shape class of the (x, 2, ny) view (ny = 1, small ny, a half-row not a whole number of 32-byte blocks, odd row
counts, rows past the UB tile, more rows than one DataCopyPad moves, a non-last and a negative dim) the result
equals the spec's float64 reference rounded once, and the twin's trace shows the ideal GM traffic: every input
element read once and every output element written once (GM bytes / ideal = 1.00). An operator splitting along a
literal dim (GeluMul's last one) runs the classes along that dim; each class takes the next value of each other
parameter's golden.scalar_values (so every value runs). The classes and the runs: tests/support/half_split_runs.py
(benchmarks/gated_traffic_bench.py prints the same runs)."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import binding, every_operator
from support.half_split_runs import ITEM_SIZE, SHAPE_CLASSES, run_class, runs_on

from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.half_split import full_shape, rows_and_half, split_half

opgen_ops = pytest.importorskip("opgen_ops")

SPLIT_OPS = [op for op, spec in every_operator().items() if spec.split is not None]

CASES = [
    pytest.param(op, case, index, id=f"{case}-{op}")
    for op in SPLIT_OPS
    for index, case in enumerate(SHAPE_CLASSES)
    if runs_on(every_operator()[op], case)
]


@pytest.mark.parametrize(("op", "case", "index"), CASES)
def test_each_element_moves_once_and_matches_the_reference(op, case, index, tmp_path):
    spec = every_operator()[op]
    run = run_class(spec, getattr(opgen_ops, binding(spec)), case, index, tmp_path / "trace.jsonl")
    scalars, dim = run.scalars, run.dim
    env = {**run.values, **scalars}
    # within a few float32 roundings, or the spec's FLOAT standard where its formula cancels (GluBackward's a - a * s)
    standard = spec.golden.tolerance[DType.FLOAT]
    rtol, atol = max(2e-6, standard.rtol), max(1e-6, standard.atol)
    for output, result in zip(spec.outputs, run.results, strict=True):
        want = evaluate_reference(spec, env, np.dtype(np.float32), output.name)
        np.testing.assert_allclose(result, want, rtol=rtol, atol=atol, err_msg=f"{output.name} {scalars}")
        # an output written per half (a backward's full-size gradient): each half is its own expression's
        for index, name in enumerate(spec.formula.per_half.get(output.name, ())):
            mine = evaluate_reference(spec, env, np.dtype(np.float32), name)
            swapped = bool(spec.split.swap_when and scalars.get(spec.split.swap_when))  # the halves trade places
            np.testing.assert_allclose(
                split_half(result, dim, index ^ swapped),
                mine,
                rtol=rtol,
                atol=atol,
                err_msg=f"{output.name}: {name}",
            )
    half, _ = SHAPE_CLASSES[case]
    x, ny = rows_and_half(full_shape(half, dim), dim)
    assert x * ny == int(np.prod(half))
    traffic = run.traffic
    assert (traffic.read, traffic.written) == (traffic.ideal_read, traffic.ideal_written)
    schedule = schedule_for(spec)
    assert schedule.interleaves == bool(spec.formula.per_half)
    if ny == 1:
        # every split operator: one contiguous copy of the pairs and GatherMask (two per tile), not a 32-byte UB row
        # per element; an output written per half interleaved back by Gather (one per tile) and written by one
        # contiguous copy: every copied element takes its own bytes (and the last block's padding) instead of 8x,
        # inputs and outputs alike
        assert schedule.gathers
        assert traffic.gather_masks > 0 and traffic.gather_masks % 2 == 0
        assert (traffic.gathers > 0) == bool(spec.formula.per_half)
        assert traffic.ub_bytes_per_element < 1.1 * ITEM_SIZE
    else:
        assert traffic.gather_masks == traffic.gathers == 0
