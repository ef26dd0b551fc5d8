"""Channel broadcast (`shape: {channel_of: self}`): an input holding one value per channel of another tensor.

PyTorch's prelu and ops-nn's aclnnPrelu take a weight whose element count is 1 or the channel count of self,
its dim 1 (1 when self has fewer than two dims); weight's values run along that dim, whatever weight's own shape.
Laid along dim 1 (ones elsewhere), such a tensor broadcasts against self by numpy's rules, which is how the
references treat it (`channel_view`, whose source the generated Python carries). The aclnn API reshapes it so (as
ops-nn's op_api does); the AI Core kernel fills each tile of a run of elements sharing one value with that value
(read from GM), and where runs are short (opgen.plan.tiling.MIN_CHANNEL_RUN) the API expands it to the output's
shape instead and the kernel reads it like any input.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Mapping, Sequence

import numpy as np


def channel_count(shape):
    """Channels of a tensor of `shape`: dim 1, or 1 below rank 2 (untyped: generated Python carries it)."""
    return int(shape[1]) if len(shape) >= 2 else 1


def channel_shape(numel, of_shape):
    """The shape a channel tensor of `numel` elements takes to broadcast against a tensor of `of_shape`: its
    values along dim 1, ones elsewhere (rank 0 or 1: all ones, one value)."""
    return tuple(numel if axis == 1 else 1 for axis in range(len(of_shape)))


def accepts(numel: int, of_shape: Sequence[int]) -> bool:
    """Whether a channel tensor of `numel` elements fits a tensor of `of_shape`: one value, or one per channel."""
    return numel in (1, channel_count(of_shape))


def channel_view(values, of):
    """`values` (one, or one per channel of `of`) laid along dim 1 of `of`, to broadcast against it."""
    values = np.asarray(values)
    return values.reshape(channel_shape(values.size, np.shape(of)))


def channel_values(values, of, one_value, stride=1):
    """A channel input of a test case, drawn from `values` (an input made like the others, led by special
    values): one value per channel of `of`, the values `stride` apart (cycling), or one value."""
    flat = np.ravel(values)
    if one_value or channel_count(np.shape(of)) == 1:
        return flat[(stride * np.ndim(of)) % flat.size :][:1]
    return flat[(np.arange(channel_count(np.shape(of))) * stride) % flat.size]


def pointwise(arrays: Mapping[str, np.ndarray], channel_inputs: Collection[str]) -> dict[str, np.ndarray]:
    """Equal-length 1-d point arrays, one per input, shaped to meet point by point: when some are channel
    inputs, the others become (1, N), so that each of their points is a channel."""
    if not channel_inputs:
        return dict(arrays)
    return {name: values if name in channel_inputs else values.reshape(1, -1) for name, values in arrays.items()}


def channel_sum(values, of, like):
    """The per-channel sum (formula.reduce) of `values`, elementwise over `of`, shaped like `like`: over every axis
    but dim 1 when `like` holds one value per channel of `of`, over every element when it holds one value."""
    values = np.broadcast_to(np.asarray(values), np.shape(of))
    if np.size(like) == 1 or np.ndim(of) < 2:
        total = np.sum(values)
    else:
        total = np.sum(values, axis=tuple(axis for axis in range(np.ndim(of)) if axis != 1))
    return np.reshape(total, np.shape(like))


# The functions generated Python calls for channel inputs, as source (the same functions: the rule is written once).
CHANNEL_SOURCE = "\n\n".join(inspect.getsource(f) for f in (channel_count, channel_shape, channel_view, channel_values))
REDUCE_SOURCE = inspect.getsource(channel_sum)  # for an operator with a reduced output (formula.reduce)
