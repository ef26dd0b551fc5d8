"""One reduce_dim operator (the softmax family) on one row-length class, through the generated aclnn API on the twin
with the launch trace on: the path the tiling model (`opgen.plan.reduce_dim_tiling`) plans for it, and what the
launch did: GM bytes read per input element, written per output element, cores, UB high-water. The classes are found
with the tiling model for each operator and dtype, not written down: rows of one element, short rows, the longest row
that fits in a tile and one element more, a row of 100,000; along a non-last dim (a0 > 1) columns that fit (a few
rows, the most rows of 5 columns that fit, many columns), one row more than fits and more rows than one DataCopyPad
moves (column chunks), those only for an operator whose reduced dim may be other than the last (`classes`). The
bounds (`problems`): each input read once where rows or columns fit; in chunks each input loaded by the passes whose
programs read it (`passes`: each level's, then the outputs'), at most levels + 1 times; each output written once; the
launch's cores are the model's. benchmarks/reduce_traffic_bench.py prints every run, tests/e2e/test_reduce_traffic.py
checks a selection."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from opgen.plan.kernel import KernelVariant, kernel_plan
from opgen.plan.reduce_dim_tiling import MAX_BLOCK_COUNT, ReducePlan, plan_reduce, reduce_cost
from opgen.plan.schedules import schedule_for
from opgen.plan.schedules.reduce_dim import ReduceDim
from opgen.spec.dtypes import DType
from opgen.spec.model import Direction, OpSpec, ParamKind
from opgen.spec.socs import DEFAULT_SOC, get_soc

ROWS_FIT, ROW_CHUNKS, COLUMNS_FIT, COLUMN_CHUNKS = "rows fit", "row chunks", "columns fit", "column chunks"
FITTING_PATHS = (ROWS_FIT, COLUMNS_FIT)
COLUMN_A0 = 5  # columns of the non-last dim's boundary classes: less than one 32-byte block in any dtype

# class -> the path it is meant to take (the finders below make it so; `problems` checks the model agrees)
CLASSES = {
    "rows_of_one": ROWS_FIT,
    "short_rows": ROWS_FIT,
    "longest_fitting_row": ROWS_FIT,
    "one_element_more": ROW_CHUNKS,
    "row_of_100000": ROW_CHUNKS,
    "columns_fit": COLUMNS_FIT,
    "many_columns_fit": COLUMNS_FIT,
    "most_fitting_column_rows": COLUMNS_FIT,
    "one_column_row_more": COLUMN_CHUNKS,
    "more_rows_than_one_copy": COLUMN_CHUNKS,
}


def classes(spec: OpSpec) -> list[str]:
    """The classes operator `spec` can take: every one, but only the rows paths' where its reduced dim is always the
    last (a literal -1: softmax cross entropy, whose per-row loss has no columns path)."""
    assert spec.reduce_dim is not None
    if spec.reduce_dim.dim == -1:
        return [case for case, path in CLASSES.items() if path in (ROWS_FIT, ROW_CHUNKS)]
    return list(CLASSES)


def reduce_operators() -> dict[str, OpSpec]:
    """{file stem: spec} of every shipped operator on the reduce_dim schedule with a kernel of its own."""
    from spec_list import kernel_operators

    return {stem: spec for stem, spec in kernel_operators().items() if schedule_for(spec).name == ReduceDim.name}


def soc_name() -> str:
    """The SoC the twin runs (OPGEN_SOC, read by the twin when it starts)."""
    return os.environ.get("OPGEN_SOC", DEFAULT_SOC)


def _variant(spec: OpSpec, dtype: DType) -> tuple[int, int, KernelVariant]:
    plan = kernel_plan(spec)
    variant = next(v for v in plan.variants if v.storage is dtype and v.mode_index == 0)
    return len(plan.program_inputs), len(plan.outputs), variant


def dtypes(spec: OpSpec) -> list[DType]:
    """FLOAT and FLOAT16, those of them the operator's kernel takes."""
    stored = {v.storage for v in kernel_plan(spec).variants}
    return [d for d in (DType.FLOAT, DType.FLOAT16) if d in stored]


def levels(spec: OpSpec, dtype: DType) -> int:
    """The row's reduction levels (softmax: the max, then the sum): a chunked path reads each input levels + 1 times."""
    return len(_variant(spec, dtype)[2].stages)


def passes(spec: OpSpec, dtype: DType) -> float:
    """Loads per input element on a chunked path: each input is loaded by the passes whose programs read it (each
    level's, then the outputs'), so at most levels + 1 times (softmax cross entropy: features 4 times, labels twice,
    only its last level and the outputs read them), averaged over the inputs (all of the reduced tensor's size)."""
    plan = kernel_plan(spec)
    variant = _variant(spec, dtype)[2]
    programs = [*(s.program for s in variant.stages), variant.program]

    def reads(program, name: str) -> bool:
        return any(b.kind == "input" and b.name == name for i in program.instrs for b in i.srcs)

    counts = [sum(reads(p, name) for p in programs) for name in plan.inputs]
    return sum(counts) / len(counts)


def model_plan(spec: OpSpec, dtype: DType, a1: int, r: int, a0: int) -> ReducePlan:
    """The tiling model's plan for the (a1, r, a0) view on the SoC the twin runs."""
    inputs, outputs, variant = _variant(spec, dtype)
    soc = get_soc(soc_name())
    planned = plan_reduce(
        variant.key, reduce_cost(variant, inputs, outputs), a1, r, a0, soc.vector_cores, soc.ub_usable_bytes
    )
    assert planned is not None, f"{spec.operator.file_stem}: no plan for {(a1, r, a0)}"
    return planned


def path_of(planned: ReducePlan, r: int, a0: int) -> str:
    if a0 == 1:
        return ROWS_FIT if planned.rows_per_tile > 0 else ROW_CHUNKS
    return COLUMNS_FIT if planned.rows_per_chunk == r else COLUMN_CHUNKS


def longest_fitting_row(spec: OpSpec, dtype: DType) -> int:
    """The largest r whose (32-byte padded) row fits in one tile: the tile of a row too long to fit."""
    chunked = model_plan(spec, dtype, 1, 10**7, 1)
    assert chunked.rows_per_tile == 0
    return chunked.tile_length  # a multiple of SUM_WIDTH, so of every dtype's block


def most_fitting_column_rows(spec: OpSpec, dtype: DType, a0: int) -> int:
    """The largest r whose r rows of (a block of) a0 columns fit in one tile: one more row needs column chunks."""
    low, high = 1, MAX_BLOCK_COUNT + 1  # fits at low, not at high (one DataCopyPad moves at most MAX_BLOCK_COUNT)

    def fits(r: int) -> bool:
        return model_plan(spec, dtype, 1, r, a0).rows_per_chunk == r

    assert fits(low) and not fits(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


@cache
def shape_class(stem: str, dtype: DType, case: str) -> tuple[tuple[int, ...], int]:
    """(shape, dim) of class `case` for operator `stem` in `dtype`."""
    spec = reduce_operators()[stem]
    if case in ("longest_fitting_row", "one_element_more"):
        r = longest_fitting_row(spec, dtype) + (case == "one_element_more")
        return (3, r), -1
    if case in ("most_fitting_column_rows", "one_column_row_more"):
        r = most_fitting_column_rows(spec, dtype, COLUMN_A0) + (case == "one_column_row_more")
        return (2, r, COLUMN_A0), -2  # the negative spelling of dim 1
    return {
        "rows_of_one": ((1001, 1), -1),
        "short_rows": ((130, 77), 1),
        "row_of_100000": ((2, 100_000), -1),
        "columns_fit": ((3, 77, COLUMN_A0), 1),
        "many_columns_fit": ((2, 30, 3000), 1),  # more columns than one unit's tile: several units per a1 index
        "more_rows_than_one_copy": ((MAX_BLOCK_COUNT + 10, 3), 0),
    }[case]


def view(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """(a1, r, a0) of `shape` reduced along `dim`."""
    axis = dim % len(shape)
    return int(np.prod(shape[:axis])), shape[axis], int(np.prod(shape[axis + 1 :]))


@dataclass(frozen=True)
class ReduceRun:
    operator: str  # the aclnn API
    dtype: DType
    case: str
    shape: tuple[int, ...]
    dim: int
    path: str  # the tiling model's
    levels: int
    passes: float  # loads per input element on a chunked path (`passes`)
    model_cores: int  # the tiling model's blockDim
    cores: int  # the launch's blockDim
    read_per_element: float  # GM bytes read / the inputs' bytes
    written_per_element: float  # GM bytes written / the outputs' bytes
    ub_high_water: int  # bytes, the most any core allocated
    ub_bytes: int  # the SoC's usable UB

    @property
    def read_bound(self) -> float:
        """1 where rows or columns fit; in chunks the model's passes (at most levels + 1)."""
        return 1 if self.path in FITTING_PATHS else min(self.passes, self.levels + 1)


def problems(run: ReduceRun) -> list[str]:
    """What breaks the bounds, empty when none does."""
    found = []
    if run.path != CLASSES[run.case]:
        found.append(f"the tiling model plans {run.path}, the class is meant for {CLASSES[run.case]}")
    if run.path in FITTING_PATHS and run.read_per_element != 1:
        found.append(f"read {run.read_per_element:.2f} per element where the {run.path.split()[0]} fit (1)")
    if run.path not in FITTING_PATHS and not 1 <= run.read_per_element <= run.read_bound:
        found.append(f"read {run.read_per_element:.2f} per element in {run.path} (at most {run.read_bound})")
    if run.written_per_element != 1:
        found.append(f"written {run.written_per_element:.2f} per element (1)")
    if run.cores != run.model_cores:
        found.append(f"{run.cores} cores, the tiling model's {run.model_cores}")
    if not 0 < run.ub_high_water <= run.ub_bytes:
        found.append(f"UB high-water {run.ub_high_water} bytes of {run.ub_bytes}")
    return found


def _arguments(spec: OpSpec, values: dict[str, np.ndarray], dim: int) -> tuple[list, dict]:
    """The binding's arguments: the tensors in order, the dim, any other host parameter at its first golden value."""
    schedule = schedule_for(spec)
    assert isinstance(schedule, ReduceDim)
    args: list = []
    kwargs: dict = {}
    for p in spec.params:
        if p.direction is Direction.INPUT and p.kind is ParamKind.TENSOR:
            args.append(values[p.name])
        elif p.name == schedule.reduce_dim:
            kwargs[p.python] = dim
        elif p.name in spec.golden.scalar_values:
            kwargs[p.python] = spec.golden.scalar_values[p.name][0]
    return args, kwargs


def run_class(stem: str, function: Callable[..., object], dtype: DType, case: str, trace: Path) -> ReduceRun:
    """Calls `function` (the operator's opgen_ops binding) on class `case` in `dtype`, the twin's trace written to
    `trace` (a new file), and measures its kernel's launch."""
    from opgen.twin.trace import read_trace

    spec = reduce_operators()[stem]
    shape, dim = shape_class(stem, dtype, case)
    a1, r, a0 = view(shape, dim)
    planned = model_plan(spec, dtype, a1, r, a0)
    rng = np.random.default_rng(r + a0)
    low, high = spec.golden.value_range
    values = {p.name: rng.uniform(low, high, shape).astype(dtype.numpy) for p in spec.tensor_inputs}
    args, kwargs = _arguments(spec, values, dim)
    previous = os.environ.get("OPGEN_TWIN_TRACE")
    os.environ["OPGEN_TWIN_TRACE"] = str(trace)
    try:
        result = function(*args, **kwargs)
    finally:
        if previous is None:
            del os.environ["OPGEN_TWIN_TRACE"]
        else:
            os.environ["OPGEN_TWIN_TRACE"] = previous
    (launch,) = [t for t in read_trace(trace) if t.kernel == spec.operator.file_stem]
    assert launch.ok, f"{stem} {case}: {launch.status}"
    totals = launch.totals()
    # every output's bytes (a per-row output, softmax cross entropy's loss, holds one value per row)
    written = sum(np.asarray(o).nbytes for o in (result if isinstance(result, tuple) else (result,)))
    return ReduceRun(
        operator=spec.api.name,
        dtype=dtype,
        case=case,
        shape=shape,
        dim=dim,
        path=path_of(planned, r, a0),
        levels=levels(spec, dtype),
        passes=passes(spec, dtype),
        model_cores=planned.block_dim,
        cores=launch.block_dim,
        read_per_element=totals.gm_to_ub_bytes / sum(v.nbytes for v in values.values()),
        written_per_element=totals.ub_to_gm_bytes / written,
        ub_high_water=totals.ub_high_water,
        ub_bytes=get_soc(soc_name()).ub_usable_bytes,
    )
