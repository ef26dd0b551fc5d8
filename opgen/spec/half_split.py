"""Half split (`split: {tensor: self, dim: dim, halves: [a, b]}`): a full-size input cut in two halves along `dim`.

ops-nn's gated activations (GLU, SwiGlu, GeGlu...) read `self` as (x, 2, ny): x the product of the dims before
`dim`, ny = size(dim) / 2 times the product of the dims after it; the first half of row r starts at r * 2ny, the
second at r * 2ny + ny. Every other tensor of such an operator is half-size (self's shape with size(dim) halved),
except an output written per half (`{halves: [first, second]}` in `formula.outputs`), which is full-size.

The functions below are the one statement of these rules: the plan and the checks call them, and the generated
Python carries their source (`SPLIT_SOURCE`), as it does the channel helpers."""

from __future__ import annotations

import inspect

import numpy as np


def split_axis(rank, dim):
    """`dim` as an axis of a tensor of `rank` dims (a negative dim counts from the end); None when out of range
    (a 0-d tensor has none)."""
    axis = dim + rank if dim < 0 else dim
    return axis if 0 <= axis < rank else None


def half_shape(shape, dim):
    """The shape of a half of a tensor of `shape` split along `dim` (size(dim) halved)."""
    axis = split_axis(len(shape), dim)
    return tuple(size // 2 if i == axis else size for i, size in enumerate(shape))


def full_shape(shape, dim):
    """The shape of the tensor whose halves along `dim` have `shape` (size(dim) doubled)."""
    axis = split_axis(len(shape), dim)
    return tuple(size * 2 if i == axis else size for i, size in enumerate(shape))


def split_half(values, dim, index):
    """Half `index` (0: the first, 1: the second) of `values` along `dim`."""
    values = np.asarray(values)
    axis = split_axis(values.ndim, dim)
    size = values.shape[axis] // 2
    return np.take(values, np.arange(index * size, (index + 1) * size), axis=axis)


def join_halves(first, second, dim, swap=False):
    """The full-size tensor whose halves along `dim` are `first` and `second` (broadcast to one shape); with `swap`
    (a split's swap_when holding), `first` is its second half and `second` its first, as the kernel writes an output
    per half: each half where the split tensor's half of that name lies."""
    first, second = np.broadcast_arrays(np.asarray(first), np.asarray(second))
    return np.concatenate([second, first] if swap else [first, second], axis=split_axis(np.ndim(first), dim))


def rows_and_half(shape, dim):
    """(x, ny): the kernel's view of a tensor of `shape` split along `dim` as (x, 2, ny)."""
    axis = split_axis(len(shape), dim)
    x = int(np.prod(shape[:axis], dtype=np.int64))
    ny = int(shape[axis]) // 2 * int(np.prod(shape[axis + 1 :], dtype=np.int64))
    return x, ny


# The functions generated Python calls for a half-split operator, as source (the same functions: written once).
SPLIT_SOURCE = "\n\n".join(inspect.getsource(f) for f in (split_axis, half_shape, full_shape, split_half, join_halves))
