"""One half-split operator (`split:`) on one shape class of its (x, 2, ny) view, through the generated aclnn API on the
twin with the launch trace on: the inputs, the results and the GM traffic the trace shows next to the ideal (each
input element read once, each output element written once). tests/e2e/test_half_split_e2e.py checks these runs and
benchmarks/gated_traffic_bench.py prints them; both take the shape classes from here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opgen.spec.half_split import full_shape
from opgen.spec.model import Direction, OpSpec, ParamKind

# (a half's shape, dim): the split tensor doubles the shape along dim
SHAPE_CLASSES = {
    "ny1": ((1001, 1), -1),
    "small_ny": ((9, 40), -1),
    "ny_13_floats": ((7, 13), 1),
    "odd_rows_non_last_dim": ((5, 3, 7), 1),
    "negative_dim_leading": ((3, 5, 8), -3),
    "row_past_the_tile": ((3, 20_000), -1),
    "more_rows_than_one_copy": ((9000, 2), -1),
}
ITEM_SIZE = 4  # the runs are float32


@dataclass(frozen=True)
class Traffic:
    """What one launch moved, from the twin's trace, and the ideal."""

    read: int  # GM -> UB bytes
    written: int  # UB -> GM bytes
    ideal_read: int
    ideal_written: int
    copies: int  # GM <-> UB copy instructions issued
    ub_copy_bytes: int  # UB bytes those copies occupied (each block padded to 32 bytes)
    gather_masks: int  # GatherMask instructions (ny = 1: each half of the split tensor out of its pairs)
    gathers: int  # Gather instructions (ny = 1: an output written per half, its halves interleaved)

    @property
    def read_ratio(self) -> float:
        return self.read / self.ideal_read

    @property
    def written_ratio(self) -> float:
        return self.written / self.ideal_written

    @property
    def ub_bytes_per_element(self) -> float:
        """UB bytes a moved element took: the element size where copies land contiguously, more where rows pad."""
        return self.ub_copy_bytes / ((self.read + self.written) / ITEM_SIZE)


@dataclass(frozen=True)
class Run:
    values: dict[str, np.ndarray]  # the tensor inputs by spec name
    scalars: dict[str, object]  # the host parameters by spec name (the dim included)
    results: tuple[np.ndarray, ...]  # one per spec output
    dim: int
    traffic: Traffic


def runs_on(spec: OpSpec, case: str) -> bool:
    """A class runs on an operator with a literal split dim only along that dim."""
    half, dim = SHAPE_CLASSES[case]
    assert spec.split is not None
    literal = spec.split.dim
    return not isinstance(literal, int) or literal % len(half) == dim % len(half)


def _inputs(spec: OpSpec, half: tuple[int, ...], dim: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(sum(half) + dim)
    values = {}
    for p in spec.tensor_inputs:
        if p.shape.one_element:  # its value comes from golden.scalar_values (_scalars)
            continue
        shape = full_shape(half, dim) if spec.full_size(p.name) else half
        values[p.name] = rng.uniform(-6, 6, shape).astype(np.float32)
    return values


def _scalars(spec: OpSpec, index: int) -> dict[str, object]:
    """The index-th value (cycling) of each host parameter's golden.scalar_values, by spec name."""
    assert spec.split is not None
    listed = spec.golden.scalar_values
    return {name: values[index % len(values)] for name, values in listed.items() if name != spec.split.dim}


def _kernel(spec: OpSpec) -> str:
    """The kernel an operator launches: its own, or (kernel.runs) that of its directory's first operator."""
    from spec_list import specs

    return (specs()[spec.operator.dir] if spec.kernel.runs is not None else spec).operator.file_stem


def run_class(spec: OpSpec, function, case: str, index: int, trace: Path) -> Run:  # type: ignore[no-untyped-def]
    """Calls `function` (the operator's opgen_ops binding) on shape class `case`, each other host parameter at the
    index-th value of its golden.scalar_values, with the twin's trace written to `trace` (a new file)."""
    from opgen.twin.trace import read_trace

    assert spec.split is not None
    half, dim = SHAPE_CLASSES[case]
    values = _inputs(spec, half, dim)
    dim_param = spec.split.dim if isinstance(spec.split.dim, str) else None
    scalars = _scalars(spec, index)
    for p in spec.tensor_inputs:
        if p.shape.one_element:  # one element holding the value: read once by the scalar unit, not a stream
            values[p.name] = np.full((1,), scalars.pop(p.name, 0.5), np.float32)
    args, kwargs = [], {}
    for p in spec.params:
        if p.direction is Direction.INPUT and p.kind is ParamKind.TENSOR:
            args.append(values[p.name])
        elif p.name == dim_param:
            kwargs[p.python] = dim
        elif p.name in scalars:
            kwargs[p.python] = scalars[p.name]
    previous = os.environ.get("OPGEN_TWIN_TRACE")
    os.environ["OPGEN_TWIN_TRACE"] = str(trace)
    try:
        got = function(*args, **kwargs)
    finally:
        if previous is None:
            del os.environ["OPGEN_TWIN_TRACE"]
        else:
            os.environ["OPGEN_TWIN_TRACE"] = previous
    if dim_param:
        scalars[dim_param] = dim
    (launch,) = [t for t in read_trace(trace) if t.kernel == _kernel(spec)]
    totals = launch.totals()
    ideal_in = sum(v.nbytes for name, v in values.items() if not spec.param(name).shape.one_element)
    ideal_out = sum(
        int(np.prod(full_shape(half, dim) if spec.full_size(p.name) else half)) * ITEM_SIZE for p in spec.outputs
    )
    traffic = Traffic(
        totals.gm_to_ub_bytes,
        totals.ub_to_gm_bytes,
        ideal_in,
        ideal_out,
        totals.copies,
        totals.ub_copy_bytes,
        totals.calls("GatherMask"),
        totals.calls("Gather"),
    )
    results = got if isinstance(got, tuple) else (got,)
    return Run(values, scalars, tuple(results), dim, traffic)
