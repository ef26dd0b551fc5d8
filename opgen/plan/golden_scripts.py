"""What the package's CANN-style golden scripts (tests/golden/gen_data.py, compare_data.py) are generated from: the
spec's golden settings and the command-line options of gen_data.py, as plain data, so the test emitter prints
them without reading the spec."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import DType
from opgen.plan.op_api_expectations import Tolerance, tolerances
from opgen.spec.model import OpSpec
from opgen.types import Direction, ParamKind


@dataclass(frozen=True)
class ScriptOption:
    """A gen_data.py option: a host parameter's (default: the example's value), or a one-element tensor's (`held`:
    the value it holds, default its first golden value)."""

    name: str
    python: str
    kind: ParamKind
    values: tuple[int | str, ...] | None  # the parameter's fixed set of values (a kernel mode), else None
    default: bool | int | float | str | None  # None: an optional scalar left out
    held: bool = False


@dataclass(frozen=True)
class GoldenScripts:
    aten: str | None  # api.aten: the golden is torch's where torch is importable
    value_range: tuple[float, float]
    special_values: tuple[float, ...]
    shapes: tuple[tuple[int, ...], ...]  # golden.shapes (the first output's)
    tolerance: dict[DType, Tolerance]  # golden.tolerance, in the spec's order
    options: tuple[ScriptOption, ...]  # the host parameters' in order, then the one-element tensors'


def golden_scripts(spec: OpSpec) -> GoldenScripts:
    inputs = [p for p in spec.params if p.direction is Direction.INPUT]
    options = [
        ScriptOption(
            p.name,
            p.python,
            p.kind,
            tuple(p.values) if p.values is not None else None,
            spec.example.scalars[p.name],
        )
        for p in inputs
        if p.kind is not ParamKind.TENSOR
    ]
    held = [p for p in inputs if p.shape.one_element]
    golden_values = spec.golden_scalar_values() if held else {}
    options += [ScriptOption(p.name, p.python, p.kind, None, float(golden_values[p.name][0]), held=True) for p in held]
    return GoldenScripts(
        aten=spec.api.aten,
        value_range=(float(spec.golden.value_range[0]), float(spec.golden.value_range[1])),
        special_values=tuple(float(v) for v in spec.golden.special_values),
        shapes=tuple(tuple(shape) for shape in spec.golden.shapes),
        tolerance=tolerances(spec),
        options=tuple(options),
    )
