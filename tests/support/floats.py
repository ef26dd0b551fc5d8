"""Floating-point values compared by their bits and by units in the last place."""

from __future__ import annotations

import numpy as np

from opgen.spec.dtypes import DType

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(values: np.ndarray) -> np.ndarray:
    """The bit patterns of `values` as unsigned integers of the same width (float16/bfloat16 -> uint16, ...)."""
    return np.ascontiguousarray(values).view(_UNSIGNED[values.dtype.itemsize])


def ulps_between(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """How many steps between representable values of `actual`'s type separate `expected` (converted to that
    type) from `actual`, element by element."""

    def ordered(array: np.ndarray) -> np.ndarray:  # sign-magnitude bits -> integers in the floats' order
        pattern = bits(array).astype(np.int64)
        sign = 1 << (8 * array.itemsize - 1)
        return np.where(pattern & sign, sign - pattern, pattern)

    return np.abs(ordered(actual) - ordered(np.asarray(expected, dtype=actual.dtype)))


_EPSILON = {DType.FLOAT: 2.0**-23, DType.FLOAT16: 2.0**-10, DType.BFLOAT16: 2.0**-7, DType.DOUBLE: 2.0**-52}
_SMALLEST = {DType.FLOAT: 2.0**-149, DType.FLOAT16: 2.0**-24, DType.BFLOAT16: 2.0**-133, DType.DOUBLE: 2.0**-1074}


def ulp_error(a: np.ndarray, b: np.ndarray, dtype: DType) -> np.ndarray:
    """|a - b| in units in the last place of `dtype` at the larger magnitude (fractional: a or b may be exact
    float64 values between two `dtype` values); 0 where they are equal."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.maximum(np.abs(a64), np.abs(b64)) * _EPSILON[dtype], _SMALLEST[dtype])
        return np.where(a64 == b64, 0.0, np.abs(a64 - b64) / scale)
