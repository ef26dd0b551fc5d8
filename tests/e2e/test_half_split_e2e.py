"""Half-split operators (`split:`, ops-nn's gated activations) through the generated aclnn API on the twin: for each
shape class of the (x, 2, ny) view (ny = 1, small ny, a half-row not a whole number of 32-byte blocks, odd row
counts, rows past the UB tile, more rows than one DataCopyPad moves, a non-last and a negative dim) the result
equals the spec's float64 reference rounded once, and the twin's trace shows the ideal GM traffic: every input
element read once and every output element written once (GM bytes / ideal = 1.00). An operator splitting along a
literal dim (GeluMul's last one) runs the classes along that dim; each class takes the next value of each other
parameter's golden.scalar_values (so every value runs)."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import binding, specs

from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.half_split import full_shape, rows_and_half
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
        if p.shape.one_element:  # its value comes from golden.scalar_values (_scalars)
            continue
        shape = full_shape(half, dim) if spec.full_size(p.name) else half
        values[p.name] = rng.uniform(-6, 6, shape).astype(dtype)
    return values


def _runs(op: str, half: tuple[int, ...], dim: int) -> bool:
    """A class runs on an operator with a literal split dim only along that dim."""
    literal = specs()[op].split.dim
    return not isinstance(literal, int) or literal % len(half) == dim % len(half)


def _scalars(spec, index: int) -> dict[str, object]:
    """The index-th value (cycling) of each host parameter's golden.scalar_values, by spec name."""
    listed = spec.golden.scalar_values
    return {name: values[index % len(values)] for name, values in listed.items() if name != spec.split.dim}


CASES = [
    pytest.param(op, case, index, id=f"{case}-{op}")
    for op in SPLIT_OPS
    for index, case in enumerate(SHAPE_CLASSES)
    if _runs(op, *SHAPE_CLASSES[case])
]


@pytest.mark.parametrize(("op", "case", "index"), CASES)
def test_each_element_moves_once_and_matches_the_reference(op, case, index, tmp_path, monkeypatch):
    from opgen.twin.trace import read_trace

    spec = specs()[op]
    half, dim = SHAPE_CLASSES[case]
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("OPGEN_TWIN_TRACE", str(trace))
    values = _inputs(spec, half, dim, np.float32)
    dim_param = spec.split.dim if isinstance(spec.split.dim, str) else None
    scalars = _scalars(spec, index)
    for p in spec.tensor_inputs:
        if p.shape.one_element:  # one element holding the value: read once by the scalar unit, not a stream
            values[p.name] = np.full((1,), scalars.pop(p.name, 0.5), np.float32)
    args, kwargs = [], {}
    for p in spec.params:
        if p.direction is Direction.INPUT and p.kind is ParamKind.TENSOR:
            args.append(values[p.name])
        elif p.name == dim_param:
            kwargs[p.python] = dim
        elif p.name in scalars:
            kwargs[p.python] = scalars[p.name]
    got = getattr(opgen_ops, binding(spec))(*args, **kwargs)
    if dim_param:
        scalars[dim_param] = dim
    want = evaluate_reference(spec, {**values, **scalars}, np.dtype(np.float32))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    (launch,) = [t for t in read_trace(trace) if t.kernel == spec.operator.file_stem]
    totals = launch.totals()
    x, ny = rows_and_half(full_shape(half, dim), dim)
    assert x * ny == int(np.prod(half))
    ideal_in = sum(v.nbytes for name, v in values.items() if not spec.param(name).shape.one_element)
    ideal_out = sum(int(np.prod(full_shape(half, dim) if spec.full_size(p.name) else half)) * 4 for p in spec.outputs)
    assert (totals.gm_to_ub_bytes, totals.ub_to_gm_bytes) == (ideal_in, ideal_out)
