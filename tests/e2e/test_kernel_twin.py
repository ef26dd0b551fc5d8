"""Generated AI Core kernels on the CPU twin, bit-exact against the numpy model of their precision path.

For each op x AI Core dtype x mode on ascend910b, ascend910_93 and ascend950, over sizes that exercise a
single element, partial blocks, tails and multi-core splits (a half-split kernel: (rows, ny) views of its split
tensor, ny = 1, half-rows not a whole number of blocks, rows past the UB tile); the twin's checks (UB budget,
alignment, GM bounds, multi-core overlap, queue discipline, dtype legality per SoC) stay on.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_harness import KernelHarness
from spec_list import GENERATED, kernel_operators

from opgen.plan.aclnn_path import scalar_in_dtype
from opgen.plan.kernel import KernelPlan, KernelVariant, kernel_plan
from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import DType
from opgen.spec.socs import get_soc

SOCS = ["ascend910b", "ascend910_93", "ascend950"]
SIZES = [1, 31, 32, 33, 4096 + 3, 1_000_003]
# a half-split kernel's (rows, ny) views, the largest last: ny = 1, one element, odd rows and half-rows not a whole
# number of 32-byte blocks, rows past the UB tile, more rows than one DataCopyPad moves, every core busy
SPLIT_VIEWS = [(1, 1), (31, 1), (4099, 1), (3, 11), (5, 40), (2, 4099), (3, 20_000), (1000, 1003)]
# a reduce_dim kernel's (rows, r): rows of one element, odd rows, more rows than one DataCopyPad moves, rows past
# the UB tile (chunks), a long row, many rows on every core, the largest last
REDUCE_VIEWS = [(1, 1), (31, 1), (5, 13), (4099, 3), (3, 2000), (2, 20_000), (1, 100_000), (1000, 1003)]


@pytest.fixture(scope="module", params=list(kernel_operators()))
def harness(request, tmp_path_factory, twin_lib):
    """One harness program per kernel (every operator of a directory with its own), run on every SoC."""
    op = request.param
    return KernelHarness(kernel_operators()[op], twin_lib, tmp_path_factory.mktemp(op))


def _views(harness: KernelHarness) -> list[tuple[int, int]]:
    """(size, ny) of each case: flat sizes, or a half split's (rows, ny) views (a reduction's rows of ny elements)
    as rows * ny elements."""
    if harness.rows_of:
        return [(rows * ny, ny) for rows, ny in REDUCE_VIEWS]
    if harness.split is None:
        return [(size, 1) for size in SIZES]
    return [(rows * ny, ny) for rows, ny in SPLIT_VIEWS]


def _inputs(spec, names, dtype, size, rng):
    """One array per kernel program input (`names`)."""
    lo, hi = spec.golden.value_range
    if dtype.is_integral:  # the dtype's extremes, -1, 0, 1, then integers over the golden range
        info = np.iinfo(dtype.numpy)
        edges = np.array([info.min, info.max, -1 if info.min < 0 else 2, 0, 1], dtype=dtype.numpy)
        values = {}
        for i, name in enumerate(names):
            low, high = max(int(np.floor(lo)), int(info.min)), min(int(np.ceil(hi)), int(info.max))
            data = rng.integers(low, high, size, endpoint=True).astype(dtype.numpy)
            data[: min(size, len(edges))] = np.roll(edges, i)[: min(size, len(edges))]
            values[name] = data
        return values
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30], dtype=np.float64)
    values = {}
    for i, name in enumerate(names):
        data = rng.uniform(lo, hi, size)
        data[: min(size, len(special))] = np.roll(special, i)[: min(size, len(special))]
        values[name] = data.astype(dtype.numpy)
    return values


def _in(plan: KernelPlan, scalars: dict[str, float], variant: KernelVariant) -> dict[str, float]:
    """The scalars as the kernel meets them: one carried as a tensor holds its value in the storage dtype."""
    return scalars | {name: scalar_in_dtype(scalars[name], variant.storage) for name in plan.gm_scalars}


@pytest.mark.parametrize("soc_name", SOCS)
def test_kernels_are_bit_exact_with_the_model(harness, soc_name):
    spec = harness.spec
    plan = kernel_plan(spec)
    rng = np.random.default_rng(11)
    soc = get_soc(soc_name)
    schedule = schedule_for(spec)
    scalars = {
        name: float(spec.golden.scalar_values.get(name, [spec.example.scalars.get(name, 1.0)])[-1])
        for name in plan.scalars + plan.gm_scalars
    }
    cases = []
    names = harness.program_inputs
    for variant in plan.variants:
        views = _views(harness) if variant.storage is DType.FLOAT and variant.mode_index == 0 else _views(harness)[:-1]
        cases += [(variant, size, ny, _inputs(spec, names, variant.storage, size, rng)) for size, ny in views]
    # a split's swap_when alternates case by case: the kernel reads (and writes per half) both orders
    swap = harness.swap
    runs = harness.run(
        soc_name,
        [
            (v.storage, v.mode_index, inputs, _in(plan, scalars, v) | ({swap: i % 2 == 1} if swap else {}), ny)
            for i, (v, _, ny, inputs) in enumerate(cases)
        ],
    )
    for (variant, size, ny, inputs), run in zip(cases, runs, strict=True):
        # every computed output (one kernel may write several), each bit-exact except NaN payloads
        shaped = {n: v.reshape(-1, ny) for n, v in inputs.items()} if harness.rows_of else inputs
        models = schedule.kernel_outputs(variant, shaped, _in(plan, scalars, variant), harness.view_scalars)
        for (name, expected), got in zip(models.items(), run.outputs, strict=True):
            want = np.asarray(expected).astype(variant.storage.numpy)
            got_nan, want_nan = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
            uint = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[variant.storage.itemsize]
            same = (got.view(uint) == want.view(uint)) | (got_nan & want_nan)
            if not (same.all() and np.array_equal(got_nan, want_nan)):
                diff = np.nonzero(~same)[0]
                pytest.fail(
                    f"{variant.name} {name} n={size} ny={ny}: {len(diff)} mismatches, first at {diff[:5]}: "
                    f"got {got[diff[:5]]} want {expected[diff[:5]]}"
                )
        assert run.plan["tilingKey"] == variant.key
        if size >= 1_000_000:
            assert run.plan["blockDim"] == soc.vector_cores, "large inputs use every vector core"
    assert len(cases) >= len(plan.variants) * (len(_views(harness)) - 1)


def test_every_soc_the_opdef_registers_runs_the_kernel(harness):
    """The generated OpDef (AddConfig) and CMake COMPUTE_UNIT name only SoCs the kernel runs on. Before: they named
    every supported SoC, ascend910 and ascend310p included, whose vector unit lacks the DataCopyPad the kernel uses
    (the ops-nn build would compile it for them, and the twin refuses the call there)."""
    spec = harness.spec
    package = GENERATED / spec.operator.dir
    opdef = (package / "op_host" / f"{spec.operator.file_stem}_def.cpp").read_text(encoding="utf-8")
    registered = re.findall(r'AddConfig\("(\w+)"', opdef)
    cmake = (package / "CMakeLists.txt").read_text(encoding="utf-8")
    compute_units = re.search(r"set\(SUPPORT_COMPUTE_UNIT ([\w ]+)\)", cmake)
    assert registered and compute_units is not None
    assert set(registered) <= set(compute_units[1].split())
    plan = kernel_plan(spec)
    rng = np.random.default_rng(5)
    scalars = dict.fromkeys(plan.scalars + plan.gm_scalars, 1.0)
    for soc_name in registered:
        # every dtype the SoC's config registers, in its first mode
        dtypes = set(spec.dtypes_on(spec.tensor_inputs[0], soc_name))
        variants = [v for v in plan.variants if v.storage in dtypes and v.mode_index == 0 and not v.exact]
        assert variants, soc_name
        names = harness.program_inputs
        runs = harness.run(
            soc_name,
            [(v.storage, v.mode_index, _inputs(spec, names, v.storage, 33, rng), scalars, 1) for v in variants],
        )
        assert all(run.output.size == 33 for run in runs), soc_name
