"""Concrete calls derived from a spec: one valid call per dtype, and one call per error-table row that
trips exactly that row (every earlier row passes). Used by the generated C++ op_api tests and the
generated Python golden tests, so both exercise the error table the docs show.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import numpy as np

from opgen import formula as F
from opgen.dtypes import DType, can_cast, promote_types
from opgen.formula_binding import formula_symbols
from opgen.model import (
    CheckBroadcast,
    CheckCastable,
    CheckDtypeSupported,
    CheckMaxRank,
    CheckNotNull,
    CheckPromotable,
    CheckRejectIf,
    CheckSameDtype,
    CheckSameShape,
    CheckScalarsCastable,
    Direction,
    ErrorRow,
    OpSpec,
    ParamKind,
)

BASE_SHAPE = (2, 3)
_CANDIDATE_DTYPES = (
    DType.INT32,
    DType.INT8,
    DType.UINT16,
    DType.INT64,
    DType.COMPLEX64,
    DType.BOOL,
    DType.DOUBLE,
    DType.FLOAT16,
    DType.FLOAT,
)


@dataclass(frozen=True)
class Arg:
    """One API argument: a tensor (shape, dtype), a scalar (value, dtype), a bool, or a null pointer."""

    kind: str  # tensor / scalar / bool / null
    shape: tuple[int, ...] = ()
    dtype: DType | None = None
    value: float | bool | None = None


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Arg]  # by main-API parameter name, in signature order
    null_outputs: tuple[str, ...] = ()  # workspaceSize / executor passed as nullptr (C++ only)
    status: int = 0
    status_name: str = "ACLNN_SUCCESS"
    message: str = ""  # the row's log message, for negative calls
    row: int | None = None
    notes: list[str] = field(default_factory=list)


class NoCaseError(ValueError):
    """No call can trip this row while passing every earlier one (the row is unreachable)."""

    def __init__(self, message: str, row: int | None = None):
        super().__init__(message)
        self.row = row


def _scalar_default(spec: OpSpec, name: str) -> Arg:
    param = spec.param(name)
    value = spec.example.scalars[name]
    if param.kind is ParamKind.BOOL:
        return Arg("bool", value=bool(value))
    dtype = spec.example.scalar_dtypes.get(name, DType.FLOAT)
    return Arg("scalar", dtype=dtype, value=float(value))


def output_shape(spec: OpSpec, args: dict[str, Arg]) -> tuple[int, ...]:
    out = spec.outputs[0]
    sources = out.shape.broadcast_result_of or [out.shape.same_as or spec.tensor_inputs[0].name]
    try:
        return tuple(np.broadcast_shapes(*(args[s].shape for s in sources)))
    except ValueError:
        return args[sources[0]].shape


def output_dtype(spec: OpSpec, args: dict[str, Arg]) -> DType:
    out = spec.outputs[0]
    sources = out.dtype.castable_from or [spec.tensor_inputs[0].name]
    dtype = args[sources[0]].dtype
    for name in sources[1:]:
        dtype = promote_types(dtype, args[name].dtype) or dtype
    return dtype


def valid_call(spec: OpSpec, dtype: DType, shape: tuple[int, ...] = BASE_SHAPE) -> Call:
    args: dict[str, Arg] = {}
    for param in spec.params:
        if param.kind is ParamKind.TENSOR and param.direction is Direction.INPUT:
            args[param.name] = Arg("tensor", shape, dtype)
        elif param.kind is not ParamKind.TENSOR:
            args[param.name] = _scalar_default(spec, param.name)
    out = spec.outputs[0]
    args[out.name] = Arg("tensor", output_shape(spec, args), output_dtype(spec, args))
    ordered = {p.name: args[p.name] for p in spec.params}
    return Call(f"valid_{dtype.value.lower()}", ordered)


def valid_calls(spec: OpSpec) -> list[Call]:
    return [valid_call(spec, d) for d in spec.tensor_inputs[0].dtypes]


def _with_output(spec: OpSpec, args: dict[str, Arg], *, keep_output: bool = False) -> dict[str, Arg]:
    """Recompute the output so that only the mutated input is wrong (unless the output is the point)."""
    if keep_output:
        return args
    out = spec.outputs[0].name
    return {**args, out: Arg("tensor", output_shape(spec, args), output_dtype(spec, args))}


def _unsupported_dtype(supported: list[DType], *, castable_from: DType | None = None) -> DType:
    for dtype in _CANDIDATE_DTYPES:
        if dtype not in supported and (castable_from is None or not can_cast(castable_from, dtype)):
            return dtype
    raise NoCaseError("every candidate dtype is supported")


def _mutations(spec: OpSpec, row: ErrorRow, base: dict[str, Arg]) -> list[tuple[dict[str, Arg], tuple[str, ...]]]:
    """Candidate argument sets for a row; the first that passes all earlier rows is used."""
    check = row.check
    tensors = {p.name for p in spec.params if p.kind is ParamKind.TENSOR}
    out = spec.outputs[0].name
    if isinstance(check, CheckNotNull):
        candidates = []
        for name in check.not_null:
            if name in ("workspaceSize", "executor"):
                candidates.append((base, (name,)))
            else:
                candidates.append(({**base, name: Arg("null")}, ()))
        return candidates
    if isinstance(check, CheckDtypeSupported):
        candidates = []
        for name in check.dtype_supported:
            supported = spec.param(name).dtypes
            bad = _unsupported_dtype(supported)
            arg = base[name]
            if name in tensors:
                mutated = {n: (replace(a, dtype=bad) if n == name else a) for n, a in base.items()}
                candidates.append((_with_output(spec, mutated), ()))
                # also with every tensor in the bad dtype, for ops that require equal dtypes first
                same = {n: (replace(a, dtype=bad) if n in tensors and n != out else a) for n, a in base.items()}
                candidates.append((_with_output(spec, same), ()))
            else:
                value = 1 if bad not in (DType.BOOL,) else True
                candidates.append(({**base, name: replace(arg, dtype=bad, value=value)}, ()))
        return candidates
    if isinstance(check, CheckSameDtype):
        first, second = check.same_dtype[0], check.same_dtype[1]
        supported = spec.param(second).dtypes
        other = next(d for d in supported if d is not base[first].dtype)
        return [(_with_output(spec, {**base, second: replace(base[second], dtype=other)}), ())]
    if isinstance(check, CheckCastable):
        target = check.castable.target
        if isinstance(target, DType):
            raise NoCaseError("casts to a fixed dtype are covered by the dtype rows")
        source_dtype = output_dtype(spec, base)
        bad = _unsupported_dtype([], castable_from=source_dtype)
        return [({**base, target: replace(base[target], dtype=bad)}, ())]
    if isinstance(check, CheckScalarsCastable):
        candidates = []
        for name in check.scalars_castable:
            goal = spec.param(name).dtype.castable_to
            bad = next(d for d in (DType.COMPLEX64, DType.COMPLEX128) if not can_cast(d, goal))
            candidates.append(({**base, name: replace(base[name], dtype=bad, value=1.0)}, ()))
        return candidates
    if isinstance(check, CheckMaxRank):
        candidates = []
        for name in check.max_rank:
            high = spec.param(name).rank[1]
            deep = (1,) * (high + 1)
            if name == out:
                candidates.append(({**base, out: replace(base[out], shape=deep)}, ()))
                continue
            mutated = {**base, name: replace(base[name], shape=deep)}
            candidates.append((_with_output(spec, mutated), ()))
            every = {n: (replace(a, shape=deep) if n in tensors else a) for n, a in base.items()}
            candidates.append((every, ()))
        return candidates
    if isinstance(check, CheckBroadcast):
        inputs = [n for n in check.broadcast if spec.param(n).direction is Direction.INPUT]
        outputs = [n for n in check.broadcast if n not in inputs]
        candidates = []
        if len(inputs) > 1:
            mutated = {**base, inputs[1]: replace(base[inputs[1]], shape=(4, 5))}
            candidates.append((mutated, ()))
        for name in outputs:
            candidates.append(({**base, name: replace(base[name], shape=(7,))}, ()))
        return candidates
    if isinstance(check, CheckSameShape):
        first, *rest = check.same_shape
        return [({**base, name: replace(base[name], shape=(5,))}, ()) for name in rest]
    if isinstance(check, CheckPromotable):
        raise NoCaseError("no promotable row in the current specs")
    if isinstance(check, CheckRejectIf):
        return [(args, ()) for args in _reject_if_assignments(spec, check.reject_if, base)]
    raise AssertionError(f"unhandled check {check!r}")


def _reject_if_assignments(spec: OpSpec, condition: str, base: dict[str, Arg]) -> list[dict[str, Arg]]:
    expr = F.parse(condition, formula_symbols(spec, tensors=False))
    names = list(F.free_names(expr))
    options = []
    for name in names:
        if spec.param(name).kind is ParamKind.BOOL:
            options.append([True, False])
        else:
            options.append([-1.5, 0.5, 0.0, 2.0])
    found = []
    for combo in itertools.product(*options):
        env = dict(zip(names, combo))
        if bool(F.evaluate(expr, env)):
            args = dict(base)
            for name, value in env.items():
                args[name] = replace(base[name], value=value)
            found.append(args)
    return found


def _trips(spec: OpSpec, args: dict[str, Arg], null_outputs: tuple[str, ...], row: int) -> bool:
    """True when the rows before `row` pass and `row` itself fails, by evaluating the checks in Python."""
    for index, error in enumerate(spec.errors):
        failed = _fails(spec, error, args, null_outputs)
        if index == row:
            return failed
        if failed:
            return False
    return False


def _fails(spec: OpSpec, row: ErrorRow, args: dict[str, Arg], null_outputs: tuple[str, ...]) -> bool:
    check = row.check
    if isinstance(check, CheckNotNull):
        return any(n in null_outputs or (n in args and args[n].kind == "null") for n in check.not_null)
    if any(a.kind == "null" for a in args.values()):
        return False  # unreachable: a null row comes first in every spec
    soc = spec.supported_socs[0].soc  # the tests run on a supported SoC
    if isinstance(check, CheckDtypeSupported):
        return any(args[n].dtype not in spec.dtypes_on(spec.param(n), soc) for n in check.dtype_supported)
    if isinstance(check, CheckSameDtype):
        first = args[check.same_dtype[0]].dtype
        return any(args[n].dtype is not first for n in check.same_dtype[1:])
    if isinstance(check, CheckCastable):
        source = args[check.castable.source[0]].dtype
        for name in check.castable.source[1:]:
            source = promote_types(source, args[name].dtype)
        target = check.castable.target
        target = target if isinstance(target, DType) else args[target].dtype
        return source is None or not can_cast(source, target)
    if isinstance(check, CheckScalarsCastable):
        return any(not can_cast(args[n].dtype, spec.param(n).dtype.castable_to) for n in check.scalars_castable)
    if isinstance(check, CheckMaxRank):
        return any(not spec.param(n).rank[0] <= len(args[n].shape) <= spec.param(n).rank[1] for n in check.max_rank)
    if isinstance(check, CheckBroadcast):
        inputs = [n for n in check.broadcast if spec.param(n).direction is Direction.INPUT]
        outputs = [n for n in check.broadcast if n not in inputs]
        try:
            shape = np.broadcast_shapes(*(args[n].shape for n in inputs))
        except ValueError:
            return True
        return any(args[n].shape != tuple(shape) for n in outputs)
    if isinstance(check, CheckSameShape):
        first = args[check.same_shape[0]].shape
        return any(args[n].shape != first for n in check.same_shape[1:])
    if isinstance(check, CheckRejectIf):
        expr = F.parse(check.reject_if, formula_symbols(spec, tensors=False))
        env = {n: args[n].value for n in F.free_names(expr)}
        return bool(F.evaluate(expr, env))
    if isinstance(check, CheckPromotable):
        dtype = args[check.promotable[0]].dtype
        for name in check.promotable[1:]:
            dtype = promote_types(dtype, args[name].dtype) if dtype else None
        return dtype is None
    raise AssertionError(f"unhandled check {check!r}")


def negative_calls(spec: OpSpec) -> list[Call]:
    """One call per error row, each tripping exactly its row; NoCaseError if a row is unreachable."""
    base = valid_call(spec, spec.tensor_inputs[0].dtypes[0]).args
    calls = []
    for index, row in enumerate(spec.errors):
        try:
            mutations = _mutations(spec, row, base)
        except NoCaseError as exc:
            raise NoCaseError(str(exc), index) from None
        for args, null_outputs in mutations:
            if _trips(spec, args, null_outputs, index):
                ordered = {p.name: args[p.name] for p in spec.params}
                calls.append(
                    Call(
                        f"row{index}_{type(row.check).__name__.removeprefix('Check').lower()}",
                        ordered,
                        null_outputs,
                        row.code,
                        row.status.value,
                        row.message,
                        index,
                    )
                )
                break
        else:
            raise NoCaseError(f"no call trips error row {index} ({row.doc})", index)
    return calls
