"""opgen.plan.tiling.plan_tiling_on agrees with the generated C++ Plan<OpType>Tiling on many sizes, core
counts and UB sizes (including figures where the tiling must refuse), for every kernel variant of every spec.
The generated tiling tests take their expected plans from this model, so it must mirror the C++ exactly."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from spec_list import GENERATED, kernel_operators

from opgen.plan.half_split_tiling import OFFSET_BYTES, plan_half_split_on
from opgen.plan.kernel import kernel_plan
from opgen.plan.reduce_dim_tiling import plan_reduce, reduce_cost
from opgen.plan.schedules import schedule_for
from opgen.plan.schedules.reduce_dim import ReduceDim
from opgen.plan.tiling import plan_tiling_on, ub_bytes
from opgen.spec.socs import SOCS

DRIVER = """
#include <cstdio>
#include "{op}_tiling.h"

// Reads "variant total coreNum ubSize" lines; prints the plan or "fail".
int main() {{
  const ge::DataType dtypes[] = {{{dtypes}}};
  const uint32_t modes[] = {{{modes}}};
  long long variant = 0;
  long long total = 0;
  unsigned cores = 0;
  unsigned long long ub = 0;
  while (std::scanf("%lld %lld %u %llu", &variant, &total, &cores, &ub) == 4) {{
    optiling::{op_type}TilingPlan plan{{}};
    if (!optiling::Plan{op_type}Tiling(total, cores, ub, dtypes[variant], modes[variant], plan)) {{
      std::printf("fail\\n");
      continue;
    }}
    std::printf("%llu %u %lld %lld\\n", static_cast<unsigned long long>(plan.tilingKey), plan.blockDim,
                static_cast<long long>(plan.perCoreLength), static_cast<long long>(plan.tileLength));
  }}
  return 0;
}}
"""


def _queries(variant_count: int) -> list[tuple[int, int, int, int]]:
    rng = np.random.default_rng(7)
    totals = list(range(-1, 260)) + [4095, 4096, 4097, 4099, 65_536, 98_304, 1_000_003, 2**31 + 5]
    totals += [int(t) for t in np.exp(rng.uniform(0, np.log(5e9), 300))]
    platforms = sorted({(soc.vector_cores, soc.ub_usable_bytes) for soc in SOCS})
    platforms += [(0, 196_608), (1, 196_608), (7, 65_536), (40, 16_384), (64, 1_024), (3, 64), (8, 0)]
    queries = []
    for variant in range(variant_count):
        for cores, ub in platforms:
            picks = rng.choice(len(totals), size=120, replace=False)
            queries += [(variant, totals[i], cores, ub) for i in picks]
    return queries


SPLIT_DRIVER = """
#include <cstdio>
#include "{op}_tiling.h"

// Reads "variant rows ny coreNum ubSize" lines; prints the plan or "fail".
int main() {{
  const ge::DataType dtypes[] = {{{dtypes}}};
  const uint32_t modes[] = {{{modes}}};
  long long variant = 0;
  long long rows = 0;
  long long ny = 0;
  unsigned cores = 0;
  unsigned long long ub = 0;
  while (std::scanf("%lld %lld %lld %u %llu", &variant, &rows, &ny, &cores, &ub) == 5) {{
    optiling::{op_type}TilingPlan plan{{}};
    if (!optiling::Plan{op_type}Tiling(rows, ny, cores, ub, dtypes[variant], modes[variant], plan)) {{
      std::printf("fail\\n");
      continue;
    }}
    std::printf("%llu %u %lld %lld %lld %lld %lld\\n", static_cast<unsigned long long>(plan.tilingKey), plan.blockDim,
                static_cast<long long>(plan.rowsPerTile), static_cast<long long>(plan.chunk),
                static_cast<long long>(plan.chunksPerRow), static_cast<long long>(plan.tileLength),
                static_cast<long long>(plan.gather));
  }}
  return 0;
}}
"""


def _split_queries(variant_count: int) -> list[tuple[int, int, int, int, int]]:
    rng = np.random.default_rng(11)
    sizes = [-1, 0, 1, 2, 7, 8, 13, 31, 33, 4095, 4096, 4097, 9000, 16_383, 16_384, 70_000]
    sizes += [int(t) for t in np.exp(rng.uniform(0, np.log(2e6), 60))]
    platforms = sorted({(soc.vector_cores, soc.ub_usable_bytes) for soc in SOCS})
    platforms += [(0, 196_608), (1, 196_608), (7, 65_536), (40, 16_384), (3, 64)]
    queries = []
    for variant in range(variant_count):
        for cores, ub in platforms:
            for _ in range(60):
                queries.append((variant, int(rng.choice(sizes)), int(rng.choice(sizes)), cores, ub))
    return queries


SPLIT_OPERATORS = [op for op, spec in kernel_operators().items() if spec.split is not None]
REDUCE_OPERATORS = [op for op, spec in kernel_operators().items() if isinstance(schedule_for(spec), ReduceDim)]

REDUCE_DRIVER = """
#include <cstdio>
#include "{op}_tiling.h"

// Reads "variant rows r a0 coreNum ubSize" lines; prints the plan or "fail".
int main() {{
  const ge::DataType dtypes[] = {{{dtypes}}};
  const uint32_t modes[] = {{{modes}}};
  long long variant = 0;
  long long rows = 0;
  long long r = 0;
  long long a0 = 0;
  unsigned cores = 0;
  unsigned long long ub = 0;
  while (std::scanf("%lld %lld %lld %lld %u %llu", &variant, &rows, &r, &a0, &cores, &ub) == 6) {{
    optiling::{op_type}TilingPlan plan{{}};
    if (!optiling::Plan{op_type}Tiling(rows, r, a0, cores, ub, dtypes[variant], modes[variant], plan)) {{
      std::printf("fail\\n");
      continue;
    }}
    std::printf("%llu %u %lld %lld %lld %lld %lld\\n", static_cast<unsigned long long>(plan.tilingKey), plan.blockDim,
                static_cast<long long>(plan.rowsPerTile), static_cast<long long>(plan.tileLength),
                static_cast<long long>(plan.columnsPerTile), static_cast<long long>(plan.rowsPerChunk),
                static_cast<long long>(plan.levels));
  }}
  return 0;
}}
"""


@pytest.mark.parametrize("op", REDUCE_OPERATORS)
def test_reduce_dim_tiling_model_matches_the_generated_cpp(op, tmp_path, twin_lib):
    spec = kernel_operators()[op]
    plan = kernel_plan(spec)
    source = tmp_path / "driver.cpp"
    source.write_text(
        REDUCE_DRIVER.format(
            op=op,
            op_type=spec.operator.type,
            dtypes=", ".join(v.storage.ge_enum for v in plan.variants),
            modes=", ".join(str(v.mode_index) for v in plan.variants),
        )
    )
    program = twin_lib.program(f"reduce_tiling_driver_{op}", [source], ops_dirs=[GENERATED / spec.operator.dir])
    rng = np.random.default_rng(13)
    sizes = [-1, 0, 1, 2, 7, 8, 13, 63, 64, 65, 4095, 4096, 9000, 16_383, 70_000, 100_000]
    sizes += [int(t) for t in np.exp(rng.uniform(0, np.log(2e6), 40))]
    platforms = sorted({(soc.vector_cores, soc.ub_usable_bytes) for soc in SOCS})
    platforms += [(0, 196_608), (1, 196_608), (7, 65_536), (40, 16_384), (3, 64)]
    # a0 > 1: the columns path (a few columns, a block's, more than fit, 0 refused)
    a0s = [1, 1, 1, 0, 2, 3, 8, 17, 100, 5000, 70_000]
    if schedule_for(spec).row_outputs:  # a per-row output: the rows path only, a0 > 1 refused (some drawn still)
        a0s = [1] * 8 + [0, 2, 17]
    queries = [
        (variant, int(rng.choice(sizes)), int(rng.choice(sizes)), int(rng.choice(a0s)), cores, ub)
        for variant in range(len(plan.variants))
        for cores, ub in platforms
        for _ in range(60)
    ]
    stdin = "".join(" ".join(map(str, q)) + "\n" for q in queries)
    lines = subprocess.run([str(program)], input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
    refused = 0
    for (variant, rows, r, a0, cores, ub), line in zip(queries, lines, strict=False):
        kernel = plan.variants[variant]
        cost = reduce_cost(kernel, len(plan.program_inputs), len(plan.outputs))
        model = plan_reduce(kernel.key, cost, rows, r, a0, cores, ub)
        if model is None:
            refused += 1
            assert line == "fail", (variant, rows, r, a0, cores, ub, line)
            continue
        expected = f"{model.tiling_key} {model.block_dim} {model.rows_per_tile} {model.tile_length}"
        expected += f" {model.columns_per_tile} {model.rows_per_chunk} {model.levels}"
        assert line == expected, (variant, rows, r, a0, cores, ub)
    assert len(lines) == len(queries) + 1
    assert 0 < refused < len(queries) // 2  # both outcomes were exercised


@pytest.mark.parametrize("op", SPLIT_OPERATORS)
def test_half_split_tiling_model_matches_the_generated_cpp(op, tmp_path, twin_lib):
    spec = kernel_operators()[op]
    plan = kernel_plan(spec)
    source = tmp_path / "driver.cpp"
    source.write_text(
        SPLIT_DRIVER.format(
            op=op,
            op_type=spec.operator.type,
            dtypes=", ".join(v.storage.ge_enum for v in plan.variants),
            modes=", ".join(str(v.mode_index) for v in plan.variants),
        )
    )
    program = twin_lib.program(f"split_tiling_driver_{op}", [source], ops_dirs=[GENERATED / spec.operator.dir])
    gathers, interleaves = schedule_for(spec).gathers, schedule_for(spec).interleaves
    queries = _split_queries(len(plan.variants))
    stdin = "".join(f"{v} {x} {ny} {c} {u}\n" for v, x, ny, c, u in queries)
    lines = subprocess.run([str(program)], input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
    refused = gathered = 0
    for (variant, x, ny, cores, ub), line in zip(queries, lines, strict=False):
        model = plan_half_split_on(x, ny, plan.variants[variant], cores, ub, gathers, interleaves)
        if model is None:
            refused += 1
            assert line == "fail", (variant, x, ny, cores, ub, line)
            continue
        expected = (
            f"{model.tiling_key} {model.block_dim} {model.rows_per_tile} {model.chunk} {model.chunks_per_row} "
            f"{model.tile_length} {int(model.gather)}"
        )
        assert line == expected, (variant, x, ny, cores, ub)
        gathered += model.gather
        assert model.gather == (gathers and ny == 1)
        assert model.rows_per_tile <= (model.tile_length if model.gather else 4095)
        # the joined buffers (and Gather's offsets where an output is written per half): the kernel's InitBuffer sizes
        item = plan.variants[variant].storage.itemsize
        joined = 2 * model.tile_length * item if model.gather else 0
        if model.gather and interleaves:
            joined += 2 * model.tile_length * item + 2 * model.tile_length * OFFSET_BYTES
        assert ub_bytes(model.tile_length, plan.variants[variant]) + joined <= ub
    assert len(lines) == len(queries) + 1
    assert 0 < refused < len(queries) // 2  # both outcomes were exercised
    assert (gathered > 0) == gathers  # ny = 1 went through GatherMask where the kernel gathers


@pytest.mark.parametrize(
    "op", [op for op, spec in kernel_operators().items() if spec.split is None and op not in REDUCE_OPERATORS]
)
def test_python_tiling_model_matches_the_generated_cpp(op, tmp_path, twin_lib):
    spec = kernel_operators()[op]
    plan = kernel_plan(spec)
    source = tmp_path / "driver.cpp"
    source.write_text(
        DRIVER.format(
            op=op,
            op_type=spec.operator.type,
            dtypes=", ".join(v.storage.ge_enum for v in plan.variants),
            modes=", ".join(str(v.mode_index) for v in plan.variants),
        )
    )
    program = twin_lib.program(f"tiling_driver_{op}", [source], ops_dirs=[GENERATED / spec.operator.dir])
    queries = _queries(len(plan.variants))
    stdin = "".join(f"{v} {t} {c} {u}\n" for v, t, c, u in queries)
    lines = subprocess.run([str(program)], input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
    refused = 0
    for (variant, total, cores, ub), line in zip(queries, lines, strict=False):
        model = plan_tiling_on(total, plan.variants[variant], cores, ub)
        if model is None:
            refused += 1
            assert line == "fail", (variant, total, cores, ub, line)
            continue
        expected = f"{model.tiling_key} {model.block_dim} {model.per_core_length} {model.tile_length}"
        assert line == expected, (variant, total, cores, ub)
        assert ub_bytes(model.tile_length, plan.variants[variant]) <= ub
    assert len(lines) == len(queries) + 1
    assert 0 < refused < len(queries) // 2  # both outcomes were exercised
