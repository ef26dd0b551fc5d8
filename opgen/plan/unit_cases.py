"""What the generated C++ unit tests run, decided with the rest of the plan: the op_api tests' success calls
(one per dtype of the first input, an unwritten output passed null, one per further kernel mode) and the tiling
tests' expected plans (per kernel SoC, variant and size), so the test emitter renders them without re-planning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from opgen.plan.cases import Arg, Call, valid_call
from opgen.plan.half_split_tiling import HalfSplitPlan, plan_half_split
from opgen.plan.kernel import KernelPlan
from opgen.plan.reduce_dim_tiling import ReducePlan, plan_reduce, reduce_cost
from opgen.plan.tiling import TilingPlan, plan_tiling
from opgen.spec.model import OpSpec
from opgen.spec.socs import Soc, get_soc

SUCCESS_SHAPE = (2, 5)  # room for the spec's special values next to ordinary ones
TILING_SIZES = (1, 33, 4099, 1_000_003)
# A half split's (rows, ny): ny = 1, a half-row not a whole number of 32-byte blocks, more rows than one copy moves,
# a half-row longer than the UB tile (chunks), many rows of a long half-row on every core.
SPLIT_TILING_SHAPES = ((1, 1), (7, 13), (9000, 1), (3, 70_000), (1001, 40), (4096, 4096))
LARGE_TILING_SIZE = TILING_SIZES[-1]
# whether the error table rejects these scalar and flag values (OperatorPlan.rejects)
Rejects = Callable[[dict[str, float | bool | int | str | None]], bool]


@dataclass(frozen=True)
class TilingSoc:
    name: str
    vector_cores: int
    ub_usable_bytes: int


@dataclass(frozen=True)
class TilingCase:
    """The plans the C++ tiling must compute for one SoC (index into the socs) and kernel variant."""

    soc: int
    variant: int
    plans: tuple[tuple[int, TilingPlan], ...]  # (total elements, the plan)
    # a half split's plans instead: ((rows, ny) of the split tensor, the plan)
    split_plans: tuple[tuple[tuple[int, int], HalfSplitPlan], ...] = ()
    # a reduction along dim's plans instead: ((rows, r, a0) of the reduced tensor, the plan)
    reduce_plans: tuple[tuple[tuple[int, int, int], ReducePlan], ...] = ()


@dataclass(frozen=True)
class TilingCases:
    socs: tuple[TilingSoc, ...]
    cases: tuple[TilingCase, ...]


# (rows, r, a0) of a reduction's tiling tests: a row of one element, short and odd rows, a row just past a tile, a long
# one; a reduced dim that is not the last (a0 > 1): columns that fit (a few, many), r rows of a block of columns too
# many for a tile, more rows than one copy moves
REDUCE_TILING_SHAPES = (
    (1, 1, 1),
    (7, 13, 1),
    (5000, 3, 1),
    (3, 2000, 1),
    (2, 20000, 1),
    (1, 100000, 1),
    (4, 5, 6),
    (7, 13, 4099),
    (3, 1000, 100),
    (2, 20000, 3),
    (1, 5000, 70000),
)


def tiling_cases(
    spec: OpSpec, kernel: KernelPlan, kernel_socs: tuple[str, ...], gathers: bool, interleaves: bool = False
) -> TilingCases:
    """`gathers`: a half split whose kernel takes ny = 1 through GatherMask (HalfSplit.gathers); `interleaves`: and
    interleaves an output written per half by Gather then (HalfSplit.interleaves)."""
    socs: list[Soc] = [get_soc(soc) for soc in kernel_socs]
    cases = []
    for soc_index, soc in enumerate(socs):
        for variant_index, variant in enumerate(kernel.variants):
            if spec.reduce_dim is not None:
                cost = reduce_cost(variant, len(kernel.program_inputs), len(kernel.outputs))
                reduce_plans = []
                for rows, r, a0 in REDUCE_TILING_SHAPES:
                    if a0 > 1 and cost.row_queues:  # a per-row output: the rows path only (the tiling refuses a0 > 1)
                        continue
                    planned = plan_reduce(variant.key, cost, rows, r, a0, soc.vector_cores, soc.ub_usable_bytes)
                    if planned is None:
                        raise ValueError(f"{spec.operator.type}: no tiling for ({rows}, {r}, {a0}) of {variant.name}")
                    reduce_plans.append(((rows, r, a0), planned))
                cases.append(TilingCase(soc_index, variant_index, (), (), tuple(reduce_plans)))
                continue
            if spec.split is not None:
                split_plans = []
                for x, ny in SPLIT_TILING_SHAPES:
                    found = plan_half_split(x, ny, variant, soc, gathers, interleaves)
                    if found is None:
                        raise ValueError(f"{spec.operator.type}: no tiling for ({x}, 2, {ny}) of {variant.name}")
                    split_plans.append(((x, ny), found))
                cases.append(TilingCase(soc_index, variant_index, (), tuple(split_plans)))
                continue
            plans = []
            for total in TILING_SIZES:
                result = plan_tiling(total, variant, soc)
                if result is None:
                    raise ValueError(f"{spec.operator.type}: no tiling for {total} elements of {variant.name}")
                plans.append((total, result))
            cases.append(TilingCase(soc_index, variant_index, tuple(plans)))
    return TilingCases(tuple(TilingSoc(s.name, s.vector_cores, s.ub_usable_bytes) for s in socs), tuple(cases))


def _mode_calls(spec: OpSpec, kernel: KernelPlan, rejects: Rejects) -> list[Call]:
    """Success calls in the first dtype for every combination of the kernel's mode flags (the example's
    combination is already covered), skipping combinations the error table rejects."""
    base = valid_call(spec, spec.tensor_inputs[0].dtypes[0], SUCCESS_SHAPE)
    calls = []
    axes = {axis.name: axis for axis in kernel.axes}
    for mode in kernel.modes():
        if all(base.args[flag].value == value for flag, value in mode.items()):
            continue
        args = {**base.args, **{flag: replace(base.args[flag], value=value) for flag, value in mode.items()}}
        if rejects({n: a.value for n, a in args.items()}):
            continue
        suffix = "_".join(axes[flag].label(value) for flag, value in mode.items())
        calls.append(replace(base, name=f"{base.name}_{suffix}", args=args))
    return calls


def success_calls(
    spec: OpSpec, kernel: KernelPlan, valid_calls: tuple[Call, ...], rejects: Rejects
) -> tuple[Call, ...]:
    """One success call per dtype of the first input, then one per extra kernel mode."""
    first = spec.tensor_inputs[0].name
    dtypes = [call.args[first].dtype for call in valid_calls]
    calls = [valid_call(spec, dtype, SUCCESS_SHAPE) for dtype in dtypes if dtype is not None]
    if spec.unwritten_outputs:  # never read either: a null pointer passes (ops-nn checks nothing of buffer)
        base = calls[0]
        nulls = {p.name: Arg("null") for p in spec.unwritten_outputs}
        names = "_".join(p.name for p in spec.unwritten_outputs)
        calls.append(replace(base, name=f"{base.name}_null_{names}", args={**base.args, **nulls}))
    return tuple(calls + _mode_calls(spec, kernel, rejects))
