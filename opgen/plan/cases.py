"""Concrete calls derived from a spec: one valid call per dtype, and one call per error-table row that
trips exactly that row (every earlier row passes). Used by the generated C++ op_api tests and the
generated Python golden tests, so both exercise the error table the docs show.

What makes a row fail, and how to make it fail, belongs to its check kind (`opgen.spec.checks`); this
module only supplies the spec's output rules and picks, per row, the first mutation that trips it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from opgen.spec.checks import Arg, Args, NoCaseError
from opgen.spec.dtypes import DType, promote_types
from opgen.spec.half_split import half_shape, split_axis
from opgen.spec.model import Direction, OpSpec, Param, ParamKind
from opgen.spec.socs import get_soc

BASE_SHAPE = (2, 3)

__all__ = ["Arg", "Call", "NoCaseError", "SpecCallModel", "negative_calls", "valid_call", "valid_calls"]


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


def _scalar_default(spec: OpSpec, param: Param) -> Arg:
    value = spec.example.scalars[param.name]
    if value is None:  # an optional scalar or string left out: the API takes its null_default
        return Arg("null")
    if param.kind is ParamKind.BOOL:
        return Arg("bool", value=bool(value))
    if param.kind in (ParamKind.INT64, ParamKind.DOUBLE, ParamKind.STRING):
        return Arg(param.kind.value, value=value)
    dtype = spec.example.scalar_dtypes.get(param.name, DType.FLOAT)
    return Arg("scalar", dtype=dtype, value=float(value))


def output_shape(spec: OpSpec, output: Param, args: Args) -> tuple[int, ...]:
    if spec.split is not None:  # a half of the split tensor's shape, or its whole shape (an output per half)
        full = args[spec.split.tensor].shape
        dim = spec.split_dim({n: a.value for n, a in args.items()})
        return full if spec.full_size(output.name) or split_axis(len(full), dim) is None else half_shape(full, dim)
    sources = spec.shape_sources(output)
    try:
        shape = tuple(np.broadcast_shapes(*(args[s].shape for s in sources)))
    except ValueError:
        shape = args[sources[0]].shape
    if output.shape.rows_of and spec.reduce_dim is not None:  # one value per row: without the reduced dim
        values = {n: a.value for n, a in args.items()}
        dim = spec.split_dim(values)
        if -max(len(shape), 1) <= dim < max(len(shape), 1):  # a dim out of range: for the API to refuse
            shape = spec.row_shape(shape, values)
    return shape


def output_dtype(spec: OpSpec, output: Param, args: Args) -> DType:
    sources = spec.dtype_sources(output)
    dtype = args[sources[0]].dtype
    assert dtype is not None
    if output.dtype.same_as:
        return dtype
    dtype = spec.result_dtype(dtype)
    for name in sources[1:]:
        other = args[name].dtype
        dtype = (promote_types(dtype, spec.result_dtype(other)) if other is not None else None) or dtype
    return dtype


@dataclass(frozen=True)
class SpecCallModel:
    """The spec's output rules over concrete arguments (the `CallModel` check kinds mutate through)."""

    spec: OpSpec

    def with_outputs(self, args: Args) -> Args:
        result = dict(args)
        for out in self.spec.outputs:
            result[out.name] = Arg("tensor", output_shape(self.spec, out, args), output_dtype(self.spec, out, args))
        for out in self.spec.unwritten_outputs:
            result[out.name] = unwritten_output(self.spec, args)
        return result

    def output_dtype(self, args: Args) -> DType:
        return output_dtype(self.spec, self.spec.outputs[0], args)


def unwritten_output(spec: OpSpec, args: Args) -> Arg:
    """An output the API leaves unwritten is passed as torch_npu passes it: empty, in the first input's dtype."""
    return Arg("tensor", (0,), args[spec.tensor_inputs[0].name].dtype)


def allocated_by_binding(spec: OpSpec, args: Args) -> bool:
    """Whether the call's outputs are the ones a binding without out= allocates itself (each: its first shape
    source's shape, its first dtype source's dtype): only such a call can be made through it."""
    for output in spec.outputs:
        out = args[output.name]
        like_shape, like_dtype = args[spec.shape_sources(output)[0]], args[spec.dtype_sources(output)[0]]
        shape = output_shape(spec, output, args) if output.shape.rows_of else like_shape.shape
        if out.shape != shape or out.dtype != like_dtype.dtype:
            return False
    return True


def valid_call(spec: OpSpec, dtype: DType, shape: tuple[int, ...] = BASE_SHAPE) -> Call:
    args: Args = {}
    for param in spec.params:
        if param.kind is not ParamKind.TENSOR:
            args[param.name] = _scalar_default(spec, param)
    # with a half split, `shape` is a half's: the full-size tensors double it along the split dim
    dim = spec.split_dim({n: a.value for n, a in args.items()}) if spec.split is not None else None
    for param in spec.params:
        if param.kind is ParamKind.TENSOR and param.direction is Direction.INPUT:
            args[param.name] = Arg("tensor", spec.input_shape(param.name, shape, dim=dim), dtype)
        elif param.kind is not ParamKind.TENSOR:
            args[param.name] = _scalar_default(spec, param)
            given = args[param.name].value
            if dtype.is_integral and param.kind is ParamKind.SCALAR and isinstance(given, float):
                # with integer tensors, an integer scalar: as torch wants it (an integer self refuses a floating
                # alpha), and what ops-nn converts every scalar to anyway
                args[param.name] = Arg("scalar", dtype=DType.INT64, value=float(np.trunc(given)))
    args = SpecCallModel(spec).with_outputs(args)
    return Call(f"valid_{dtype.value.lower()}", {p.name: args[p.name] for p in spec.params})


def valid_calls(spec: OpSpec) -> list[Call]:
    return [valid_call(spec, d) for d in spec.tensor_inputs[0].dtypes]


def returns_empty(spec: OpSpec, args: Args) -> bool:
    """Whether a tensor of the spec's `empty_return` is empty in the call (the API then returns success once the
    rows before its `after_empty_return` rows pass)."""
    return any(args[n].kind == "tensor" and 0 in args[n].shape for n in spec.empty_return_tensors)


def first_failing_row(
    spec: OpSpec, args: Args, null_outputs: tuple[str, ...] = (), soc: str | None = None
) -> int | None:
    """The index of the error row a call trips on `soc` (the first that fails), or None when it passes them all.
    Without `soc`, on the first supported SoC for the dtype rows, and with the empty return's place on every SoC
    but those checking first (the default twin's)."""
    dtypes_soc = soc or spec.supported_socs[0].soc  # the tests run on a supported SoC
    empty_soc = soc or next(
        (s.soc for s in spec.supported_socs if s.soc not in spec.checks_before_empty_return_on), dtypes_soc
    )
    empty = returns_empty(spec, args)
    for index, row in enumerate(spec.errors):
        check = row.check
        if empty and spec.returns_empty_before(row, empty_soc):
            return None  # the API returned success before this row
        if check.kind != "not_null" and any(a.kind == "null" and not spec.param(n).nullable for n, a in args.items()):
            continue  # other checks read what a pointer points to; only a null check looks at the pointer
        if check.fails(spec, args, null_outputs, dtypes_soc):
            return index
    return None


def negative_calls(spec: OpSpec) -> list[Call]:
    """One call per error row, each tripping exactly its row; NoCaseError if a row is unreachable."""
    model = SpecCallModel(spec)
    base = valid_call(spec, spec.tensor_inputs[0].dtypes[0]).args
    calls = []
    for index, row in enumerate(spec.errors):
        check = row.check
        try:
            mutations = check.mutations(model, base)
        except NoCaseError as exc:
            raise NoCaseError(str(exc), index) from None
        for args, null_outputs in mutations:
            if first_failing_row(spec, args, null_outputs) == index:
                ordered = {p.name: args[p.name] for p in spec.params}
                name = f"row{index}_{check.case_name}"
                calls.append(Call(name, ordered, null_outputs, row.code, row.status.value, row.message, index))
                break
        else:
            raise NoCaseError(f"no call trips error row {index} ({row.doc})", index)
    return calls


@dataclass(frozen=True)
class SocCall:
    """A call made on a given SoC (the test switches the twin to it first)."""

    soc: str
    call: Call

    @property
    def soc_version(self) -> str:
        """The op::SocVersion enumerator a test switches the platform to."""
        return get_soc(self.soc).soc_version


def _emptied(spec: OpSpec, args: Args) -> Args:
    """`args` with the empty return's first tensor made empty (its first dim 0), and every tensor of its shape
    with it, so that only the row the call was made to trip still fails."""
    name = spec.empty_return_tensors[0]
    shape = args[name].shape
    empty = (0, *shape[1:]) if shape else (0,)
    return {n: replace(a, shape=empty) if a.kind == "tensor" and a.shape == shape else a for n, a in args.items()}


def empty_return_soc_calls(spec: OpSpec) -> list[SocCall]:
    """Where the empty-tensor return's place differs per SoC (`empty_return.after_checks_on`): one call with an
    empty tensor tripping a row checked after the return, made on a SoC that returns first (success) and on each
    that checks first (the row's status). Empty when the place is the same everywhere."""
    first = spec.checks_before_empty_return_on
    if not first:
        return []
    others = [s.soc for s in spec.supported_socs if s.soc not in first]
    for call in negative_calls(spec):
        assert call.row is not None
        row = spec.errors[call.row]
        if call.null_outputs or not row.after_empty_return or row.in_tiling:
            continue
        args = _emptied(spec, call.args)
        if not returns_empty(spec, args) or any(first_failing_row(spec, args, (), s) is not None for s in others):
            continue
        if any(first_failing_row(spec, args, (), s) != call.row for s in first):
            continue
        name = f"empty_row{call.row}_{call.name.split('_', 1)[1]}"
        calls = [SocCall(others[0], Call(f"{name}_returns_first", args))] if others else []
        calls += [SocCall(s, replace(call, name=f"{name}_checked_on_{s}", args=args)) for s in first]
        return calls
    raise NoCaseError("no call with an empty tensor trips a row marked after_empty_return")
