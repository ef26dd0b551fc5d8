"""What the softmax family's e2e tests share (specs/softmax_v2.yaml, log_softmax_v2.yaml, softmin.yaml,
softmax_grad.yaml, log_softmax_grad.yaml, softmax_cross_entropy_with_logits.yaml): the tiling model's plan and the UB
boundaries it puts rows and columns at, the row-length cases around them, a binding's call with the GM bytes its
launches move (the twin's trace); and for the error tests, calls with an empty self that each trip one error row, as
the op_api code orders them around its empty return (aclnnLogSoftmax checks every row before returning on an empty
self, aclnnSoftmax, and opgen's aclnnSoftmin after it, returns right after the null check), and a call on another SoC
(its dtype list)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from support import reduce_runs

from opgen.plan.kernel import kernel_plan
from opgen.plan.reduce_dim_tiling import MAX_BLOCK_COUNT
from opgen.plan.reduce_model import SUM_WIDTH
from opgen.spec.dtypes import DType
from opgen.spec.socs import DEFAULT_SOC

# (case, dtype) rows of the last-dim tests: one element, short rows, the longest row that fits in UB and one element
# more (a row in chunks), and a row of 100,000 elements (in chunks); `row_case_shape` gives each its (rows, r)
ROW_CASES = [
    ("rows_of_one", DType.FLOAT),
    ("rows_of_one", DType.FLOAT16),
    ("short_rows", DType.FLOAT),
    ("short_rows", DType.FLOAT16),
    ("short_rows", DType.BFLOAT16),
    ("just_under_ub", DType.FLOAT),
    ("just_over_ub", DType.FLOAT),
    ("just_under_ub", DType.FLOAT16),
    ("just_over_ub", DType.FLOAT16),
    ("row_of_100000", DType.FLOAT),
    ("row_of_100000", DType.FLOAT16),
]
CHUNKED_ROW_CASES = ("just_over_ub", "row_of_100000")  # the cases whose rows do not fit in one tile


def variant_of(spec, dtype: DType):
    """The operator's kernel plan and its variant storing `dtype`."""
    plan = kernel_plan(spec)
    return plan, next(v for v in plan.variants if v.storage is dtype)


def float_and_float16_variants(spec) -> list:
    """(dtype, variant) for the FLOAT and FLOAT16 variants of the operator's kernel plan: the kernel-harness runs'."""
    return [(dtype, variant_of(spec, dtype)[1]) for dtype in (DType.FLOAT, DType.FLOAT16)]


def tiling_plan(spec, rows: int, r: int, dtype: DType = DType.FLOAT, a0: int = 1):
    """The tiling model's plan for (rows, r, a0) on the SoC the binding runs on (the traffic benchmark's)."""
    return reduce_runs.model_plan(spec, dtype, rows, r, a0)


def longest_fitting_row(spec, dtype: DType = DType.FLOAT) -> int:
    """The largest r whose (32-byte padded) row fits in one tile (a multiple of SUM_WIDTH)."""
    return reduce_runs.longest_fitting_row(spec, dtype)


def longest_fitting_columns(spec, a0: int, dtype: DType = DType.FLOAT) -> int:
    """The largest r whose r rows of (a block of) a0 columns fit in one tile: one more row needs column chunks."""
    return reduce_runs.most_fitting_column_rows(spec, dtype, a0)


def assert_ub_boundary_is_the_models(spec) -> None:
    """Three rows of the longest fitting row fit in UB (a multiple of SUM_WIDTH, over 1000 elements); one element
    more and they go in chunks."""
    under = longest_fitting_row(spec)
    assert under % SUM_WIDTH == 0 and under > 1000
    assert tiling_plan(spec, 3, under).rows_per_tile > 0
    assert tiling_plan(spec, 3, under + 1).rows_per_tile == 0


def row_case_shape(spec, case: str, dtype: DType) -> tuple[int, int]:
    """(rows, r) of a ROW_CASES case; the UB cases at the longest row that fits in `dtype`, or one element more."""
    under = longest_fitting_row(spec, dtype)
    r = {
        "rows_of_one": 1,
        "short_rows": 77,
        "just_under_ub": under,
        "just_over_ub": under + 1,
        "row_of_100000": 100_000,
    }[case]
    rows = {"rows_of_one": 1001, "short_rows": 130, "row_of_100000": 2}.get(case, 3)
    return rows, r


# (case, dtype) rows of the columns-path tests (a reduced dim that is not the last): columns whose r rows fit in UB,
# narrow or wide, the most rows that fit and one more (column chunks), and more rows than one DataCopyPad moves
COLUMN_CASES = [
    ("columns_fit", DType.FLOAT),
    ("columns_fit", DType.FLOAT16),
    ("wide_columns_fit", DType.FLOAT),
    ("just_under_a_tile", DType.FLOAT),
    ("just_over_a_tile", DType.FLOAT),
    ("just_under_a_tile", DType.FLOAT16),
    ("just_over_a_tile", DType.FLOAT16),
    ("more_rows_than_one_copy", DType.FLOAT),
]
FITTING_COLUMN_CASES = ("columns_fit", "wide_columns_fit", "just_under_a_tile")  # the others go in column chunks


def column_case_shape(spec, case: str, dtype: DType, a0: int, copies_a0: int) -> tuple[int, int, int]:
    """(a1, r, a0) of a COLUMN_CASES case: `a0` columns (`copies_a0` for more rows than one copy), the tile cases at
    the most rows of them that fit in `dtype`, or one more."""
    fit = longest_fitting_columns(spec, a0, dtype)
    return {
        "columns_fit": (3, 77, a0),
        "wide_columns_fit": (2, 30, 3000),
        "just_under_a_tile": (2, fit, a0),
        "just_over_a_tile": (2, fit + 1, a0),
        "more_rows_than_one_copy": (1, MAX_BLOCK_COUNT + 10, copies_a0),
    }[case]


def assert_column_chunk_boundary_is_the_models(spec) -> None:
    """For blocks of 3 and 40 columns: the most rows that fit (over 100) make one chunk of at least one column per
    tile; one more row makes chunks of at most that many rows."""
    for a0 in (3, 40):
        fit = longest_fitting_columns(spec, a0)
        assert fit > 100
        planned = tiling_plan(spec, 2, fit, DType.FLOAT, a0)
        assert planned.rows_per_chunk == fit and planned.columns_per_tile >= 1
        over = tiling_plan(spec, 2, fit + 1, DType.FLOAT, a0)
        assert 1 <= over.rows_per_chunk <= fit


def same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    """Asserts that each output in `got` has the bits of the one in `want` (as many of them)."""
    for got_output, want_output in zip(got, want, strict=True):
        np.testing.assert_array_equal(got_output.view(np.uint8), want_output.view(np.uint8))


def run_on_cores(harness, runs: list, wants: list | None = None, cores: tuple[int, ...] = (1, 8, 48)) -> list:
    """The kernel harness's `runs` on the default SoC, the tiling planned for each core count of `cores`: asserts
    that every run on fewer cores uses at most that many and gives every output the bits of the run on the most
    cores, and, given `wants` (per run, one expected output or a list of them), that these are the wanted bits; the
    runs on the most cores."""

    results = {count: harness.run(DEFAULT_SOC, runs, cores=count) for count in cores}
    most = results[max(cores)]
    for index, run in enumerate(most):
        if wants is not None:
            want = wants[index]
            same_bits(run.outputs, want if isinstance(want, list) else [want])
        for count in cores:
            if count != max(cores):
                other = results[count][index]
                assert other.plan["blockDim"] <= count
                same_bits(other.outputs, run.outputs)
    return most


def run_traced(spec, binding, args: tuple, tmp_path, monkeypatch):
    """`binding(*args)` (the operator's binding) with the twin's trace on: its result, and each of the operator's
    kernel launches' GM bytes (read, written) from the trace; no launch, no pair."""
    from opgen.twin.trace import read_trace

    trace = tmp_path / "trace.jsonl"
    trace.unlink(missing_ok=True)
    monkeypatch.setenv("OPGEN_TWIN_TRACE", str(trace))
    got = binding(*args)
    stem = spec.operator.file_stem
    launches = [t for t in read_trace(trace) if t.kernel == stem] if trace.exists() else []
    return got, [(t.totals().gm_to_ub_bytes, t.totals().ub_to_gm_bytes) for t in launches]


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


def assert_empty_self_returns_out(spec, binding, kind: str, self_shape, out_shape, out_dtype, dim: int) -> None:
    """For an API that returns right after its null check on an empty self: the `kind` row is one it checks after
    that return, and `binding` (its Python binding) returns `out` untouched whatever else is wrong with the call."""
    assert any(r.check.kind == kind and r.after_empty for r in spec.errors)
    x, out = arrays(self_shape, out_shape, out_dtype)
    assert binding(x, dim, out=out) is out
    assert np.all(out == 7)


def assert_bfloat16_refused_on(spec, soc: str, binding: str) -> None:
    """On `soc` (one without BFLOAT16), `binding` refuses BFLOAT16 with the dtype row's code and message and lets
    FLOAT past that row; ascend910b takes BFLOAT16."""
    row = next(r for r in spec.errors if r.check.kind == "dtype_supported")
    refused = call_on_soc(soc, binding, "BFLOAT16")
    assert refused.startswith(f"{row.code} ") and row.message in refused
    assert row.message not in call_on_soc(soc, binding, "FLOAT")
    assert call_on_soc("ascend910b", binding, "BFLOAT16") == "ok"
