"""Calls with an empty self that each trip one error row of the softmax family's tables (specs/softmax_v2.yaml,
log_softmax_v2.yaml, softmin.yaml), as the op_api code orders them around its empty return: aclnnLogSoftmax checks
every row before returning on an empty self, aclnnSoftmax (and opgen's aclnnSoftmin after it) returns right after the
null check."""

from __future__ import annotations

import numpy as np

EMPTY = (0, 5)
DEEP_EMPTY = (1,) * 8 + (0,)  # rank 9

# (the check kind of the row a non-empty self would trip, self's shape, out's shape, out's dtype, dim)
CASES = [
    ("dtype_supported", EMPTY, EMPTY, np.int32, -1),
    ("dim_range", EMPTY, EMPTY, np.float32, 2),
    ("max_rank", DEEP_EMPTY, DEEP_EMPTY, np.float32, -1),
    ("same_shape", EMPTY, (3,), np.float32, -1),
]
IDS = [c[0] for c in CASES]


def arrays(self_shape, out_shape, out_dtype):
    return np.zeros(self_shape, np.float32), np.full(out_shape, 7, out_dtype)
