"""Half-split operators (`split:`, ops-nn's gated activations) through the generated aclnn API on the twin: for each
shape class of the (x, 2, ny) view (ny = 1, small ny, a half-row not a whole number of 32-byte blocks, odd row
counts, rows past the UB tile, more rows than one DataCopyPad moves, a non-last and a negative dim) the result
equals the spec's float64 reference rounded once, and the twin's trace shows the ideal GM traffic: every input
element read once and every output element written once (GM bytes / ideal = 1.00)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from spec_list import binding, specs

from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.half_split import full_shape, join_halves, rows_and_half
from opgen.spec.model import Direction, ParamKind

opgen_ops = pytest.importorskip("opgen_ops")

SPLIT_OPS = [op for op, spec in specs().items() if spec.split is not None]

# (a half's shape, dim): the split tensor doubles the shape along dim
SHAPE_CLASSES = {
    "ny1": ((1001, 1), -1),
    "small_ny": ((9, 40), -1),
    "ny_13_floats": ((7, 13), 1),
    "odd_rows_non_last_dim": ((5, 3, 7), 1),
    "negative_dim_leading": ((3, 5, 8), -3),
    "row_past_the_tile": ((3, 20_000), -1),
    "more_rows_than_one_copy": ((9000, 2), -1),
}


def _inputs(spec, half: tuple[int, ...], dim: int, dtype) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(sum(half) + dim)
    values = {}
    for p in spec.tensor_inputs:
        shape = full_shape(half, dim) if spec.full_size(p.name) else half
        values[p.name] = rng.uniform(-6, 6, shape).astype(dtype)
    return values


def _mode_calls(spec) -> list[dict[str, object]]:
    """Every combination of the golden values of the host parameters other than the split dim (GeGlu's approximate,
    activateLeft): each selects another kernel program or stream order."""
    dim_param = spec.split.dim if isinstance(spec.split.dim, str) else None
    options = spec.golden_scalar_values(skip=(dim_param,) if dim_param else ())
    return [dict(zip(options, combo, strict=True)) for combo in itertools.product(*options.values())]


def _reference(spec, output, env) -> np.ndarray:
    """An output's float64 reference rounded to FLOAT: an output written per half joins its halves' references."""
    halves = spec.formula.per_half.get(output)
    if halves is None:
        return evaluate_reference(spec, env, np.dtype(np.float32), output)
    first, second = (evaluate_reference(spec, env, np.dtype(np.float32), half) for half in halves)
    return join_halves(first, second, env[spec.split.dim] if isinstance(spec.split.dim, str) else spec.split.dim)


@pytest.mark.parametrize("op", SPLIT_OPS)
@pytest.mark.parametrize("case", list(SHAPE_CLASSES))
def test_each_element_moves_once_and_matches_the_reference(op, case, tmp_path, monkeypatch):
    from opgen.twin.trace import read_trace

    spec = specs()[op]
    half, dim = SHAPE_CLASSES[case]
    values = _inputs(spec, half, dim, np.float32)
    dim_param = spec.split.dim if isinstance(spec.split.dim, str) else None
    for n, modes in enumerate(_mode_calls(spec)):
        trace = tmp_path / f"trace{n}.jsonl"
        monkeypatch.setenv("OPGEN_TWIN_TRACE", str(trace))
        scalars = {**modes, **({dim_param: dim} if dim_param else {})}
        args = []
        for p in spec.params:
            if p.direction is Direction.INPUT and p.kind is ParamKind.TENSOR:
                args.append(values[p.name])
            elif p.direction is Direction.INPUT and p.name in scalars:
                args.append(scalars[p.name])
        got = getattr(opgen_ops, binding(spec))(*args)
        results = got if isinstance(got, tuple) else (got,)
        for output, result in zip(spec.outputs, results, strict=True):
            want = _reference(spec, output.name, {**values, **scalars})
            np.testing.assert_allclose(result, want, rtol=2e-6, atol=1e-6, err_msg=f"{output.name} {modes}")
        (launch,) = [t for t in read_trace(trace) if t.kernel == spec.operator.file_stem]
        totals = launch.totals()
        x, ny = rows_and_half(full_shape(half, dim), dim)
        assert x * ny == int(np.prod(half))
        ideal_in = sum(v.nbytes for v in values.values())
        ideal_out = sum(
            int(np.prod(full_shape(half, dim) if spec.full_size(p.name) else half)) * 4 for p in spec.outputs
        )
        assert (totals.gm_to_ub_bytes, totals.ub_to_gm_bytes) == (ideal_in, ideal_out), modes
