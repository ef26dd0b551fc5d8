"""Channel broadcast through the generated aclnn API on the twin: every operator with a channel input (e.g.
aclnnPrelu's weight) agrees with an independent numpy computation per channel on every rank, with one value per
channel and one value, non-contiguous weights included, and refuses an element count that is neither (161002)."""

from __future__ import annotations

import numpy as np
import pytest
from spec_list import binding, specs

from opgen import formula as F
from opgen.plan.tiling import MIN_CHANNEL_RUN
from opgen.spec.formula_binding import kernel_formula
from opgen.spec.model import Direction, ParamKind

opgen_ops = pytest.importorskip("opgen_ops")

CHANNEL_OPS = [
    op
    for op, spec in specs().items()
    if any(p.shape.channel_of for p in spec.tensor_inputs) and len(spec.tensor_inputs) == 2
]


def _call(spec, values: dict[str, np.ndarray]) -> np.ndarray:
    args = [values[p.name] for p in spec.params if p.direction is Direction.INPUT and p.kind is ParamKind.TENSOR]
    return getattr(opgen_ops, binding(spec))(*args)


def _per_channel(spec, of: str, channel: str, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The spec's formula channel by channel, the channel input a plain number in each: no broadcasting rule
    (nor the code under test that aligns channel inputs) involved."""
    expr = kernel_formula(spec)
    flat = np.ravel(w)
    if x.ndim < 2 or flat.size == 1:
        return F.evaluate(expr, {of: x, channel: float(flat[0])}, np.float32)
    out = np.empty_like(x)
    for c in range(x.shape[1]):
        out[:, c] = F.evaluate(expr, {of: x[:, c], channel: float(flat[c])}, np.float32)
    return out


@pytest.mark.parametrize("op", CHANNEL_OPS)
# (2, 3, 1100) and (2, 5, 40, 40): channels of at least MIN_CHANNEL_RUN elements in a row, filled in the kernel
@pytest.mark.parametrize(
    "shape", [(), (5,), (3, 4), (2, 3, 5), (2, 4, 3, 3), (1, 70, 33), (2, 3, 1100), (2, 5, 40, 40)], ids=str
)
def test_each_channel_takes_its_own_value(op, shape):
    spec = specs()[op]
    channel = next(p for p in spec.tensor_inputs if p.shape.channel_of)
    of = channel.shape.channel_of
    rng = np.random.default_rng(sum(shape) + 1)
    x = rng.uniform(-4, 4, shape).astype(np.float32)
    channels = shape[1] if len(shape) >= 2 else 1
    specials = np.array([0.25, -1.5, 0.0, -0.0, np.inf, np.nan], np.float32)
    for w in (np.resize(specials, channels), rng.uniform(-2, 2, 1).astype(np.float32)):
        strided = np.repeat(w, 2)[::2]  # a non-contiguous view of the same values
        for weight in (w, strided):
            got = _call(spec, {of: x, channel.name: weight})
            np.testing.assert_array_equal(got, _per_channel(spec, of, channel.name, x, w))


@pytest.mark.parametrize("op", CHANNEL_OPS)
@pytest.mark.parametrize("shape,count", [((2, 3), 2), ((2, 3, 4), 4), ((5,), 5), ((), 2), ((2, 1), 3)])
def test_an_element_count_other_than_one_or_the_channels_is_refused(op, shape, count):
    spec = specs()[op]
    channel = next(p for p in spec.tensor_inputs if p.shape.channel_of)
    of = channel.shape.channel_of
    with pytest.raises(opgen_ops.AclnnError) as info:
        _call(spec, {of: np.ones(shape, np.float32), channel.name: np.ones(count, np.float32)})
    assert info.value.status == 161002
    assert "channel" in info.value.message


@pytest.mark.parametrize("op", CHANNEL_OPS)
def test_weight_of_any_shape_empty_tensors_and_promotion(op):
    spec = specs()[op]
    channel = next(p for p in spec.tensor_inputs if p.shape.channel_of)
    of = channel.shape.channel_of
    rng = np.random.default_rng(11)
    x = rng.uniform(-4, 4, (2, 6, 3)).astype(np.float32)
    # ops-nn counts the elements: a (2, 3) weight holds the 6 channels' values
    w = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    got = _call(spec, {of: x, channel.name: w})
    np.testing.assert_array_equal(got, _per_channel(spec, of, channel.name, x, w))
    # empty: no channel (one value or none), or no element in another dim
    for shape, count in (((2, 0, 3), 0), ((2, 0, 3), 1), ((0, 4), 4)):
        got = _call(spec, {of: np.ones(shape, np.float32), channel.name: np.ones(count, np.float32)})
        assert got.shape == shape
    # FLOAT16 self, FLOAT weight: computed and returned in the promoted FLOAT
    half = x.astype(np.float16)
    got = _call(spec, {of: half, channel.name: w.reshape(-1)})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, _per_channel(spec, of, channel.name, half.astype(np.float32), w))


@pytest.mark.parametrize("op", CHANNEL_OPS)
def test_long_channel_runs_are_filled_in_the_kernel(op, tmp_path, monkeypatch):
    from opgen.twin.trace import read_trace

    spec = specs()[op]
    channel = next(p for p in spec.tensor_inputs if p.shape.channel_of)
    of = channel.shape.channel_of
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("OPGEN_TWIN_TRACE", str(trace))
    for run, weights, filled in (
        (MIN_CHANNEL_RUN, 3, True),  # runs long enough: the kernel fills each tile with its run's value
        (MIN_CHANNEL_RUN - 1, 3, False),  # shorter: the API expands weight, the kernel reads it like self
        (MIN_CHANNEL_RUN // 4, 1, True),  # one value: a single run of all 6 * MIN_CHANNEL_RUN // 4 elements
    ):
        trace.unlink(missing_ok=True)
        x = np.linspace(-3, 3, 2 * 3 * run, dtype=np.float32).reshape(2, 3, run)
        w = np.array([0.5, -2.0, 0.25], np.float32)[:weights]
        got = _call(spec, {of: x, channel.name: w})
        np.testing.assert_array_equal(got, _per_channel(spec, of, channel.name, x, w))
        (launch,) = [t for t in read_trace(trace) if t.kernel == spec.operator.dir]
        totals = launch.totals()
        assert totals.gm_to_ub_bytes == x.nbytes * (1 if filled else 2), (run, weights)
        assert ("Duplicate" in totals.vector) == filled
