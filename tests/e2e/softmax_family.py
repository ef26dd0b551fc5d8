"""What the softmax family's error tests share (specs/softmax_v2.yaml, log_softmax_v2.yaml, softmin.yaml): calls
with an empty self that each trip one error row, as the op_api code orders them around its empty return
(aclnnLogSoftmax checks every row before returning on an empty self, aclnnSoftmax, and opgen's aclnnSoftmin after
it, returns right after the null check), and a call on another SoC (its dtype list)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

EMPTY = (0, 5)
DEEP_EMPTY = (1,) * 8 + (0,)  # rank 9

# the check kind of the row a non-empty self would trip, and the call
ARGS = ("kind", "self_shape", "out_shape", "out_dtype", "dim")
CASES = [
    ("dtype_supported", EMPTY, EMPTY, np.int32, -1),
    ("dim_range", EMPTY, EMPTY, np.float32, 2),
    ("max_rank", DEEP_EMPTY, DEEP_EMPTY, np.float32, -1),
    ("same_shape", EMPTY, (3,), np.float32, -1),
]
IDS = [c[0] for c in CASES]


def arrays(self_shape, out_shape, out_dtype):
    return np.zeros(self_shape, np.float32), np.full(out_shape, 7, out_dtype)


_ON_SOC = """
import sys
import numpy as np
import opgen_ops
from opgen.spec.dtypes import DType
x = np.ones((2, 3), DType[sys.argv[2]].numpy)
try:
    getattr(opgen_ops, sys.argv[1])(x, -1)
    print("ok")
except opgen_ops.AclnnError as e:
    print(e.status, " ".join(e.message.splitlines()))
"""


def call_on_soc(soc: str, binding: str, dtype: str) -> str:
    """`binding(x, -1)` of a [2, 3] x in `dtype` on the twin's `soc` (OPGEN_SOC, read once per process): "ok", or
    the status and message it raised."""
    env = {**os.environ, "OPGEN_SOC": soc}
    run = subprocess.run(
        [sys.executable, "-c", _ON_SOC, binding, dtype], env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip().splitlines()[-1]
