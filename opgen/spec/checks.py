"""The check kinds of an error table, each one class that owns everything about its rule.

In the spirit of MLIR's constraint records, a check kind states in one place:
- its YAML shape (the Pydantic fields) and what its names must resolve to (`resolve_names`);
- its C++ failure condition in the generated op_api (`cpp`);
- its evaluation on a concrete call, in Python (`fails`), which decides which error row a call trips;
- the argument mutations that make it fail (`mutations`), from which negative test cases are derived;
- the facts the docs need: the parameters it names (`names`) and whether it relates parameters to each
  other (`relational`: an in-place API, whose one tensor stands for several, cannot fail it).

Adding a check kind means adding one class here and listing it in `CHECK_KINDS`.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Protocol

import numpy as np
from pydantic import Field

from opgen import formula as F
from opgen.lang import cpp as cpp_lang
from opgen.lang import python as python_lang
from opgen.spec.base import Direction, Identifier, ParamKind, Strict
from opgen.spec.channel_broadcast import accepts as channel_accepts
from opgen.spec.channel_broadcast import channel_count
from opgen.spec.diagnostics import FieldPath
from opgen.spec.dtypes import DType, can_cast, promote_types
from opgen.spec.formula_binding import formula_symbols, parse_condition
from opgen.spec.half_split import half_shape, split_axis

if TYPE_CHECKING:
    from opgen.spec.model import OpSpec, Param

# Phase-one out-parameters every aclnn API has; null checks may name them.
IMPLICIT_POINTERS = ("workspaceSize", "executor")
TENSORS = (ParamKind.TENSOR,)


# ---------------------------------------------------------------------------------------------- concrete calls


@dataclass(frozen=True)
class Arg:
    """One API argument: a tensor (shape, dtype), a scalar (value, dtype), a bool, or a null pointer."""

    kind: str  # tensor / scalar / bool / int64 / double / string / null
    shape: tuple[int, ...] = ()
    dtype: DType | None = None
    value: float | bool | int | str | None = None


Args = dict[str, Arg]
Mutation = tuple[Args, tuple[str, ...]]  # arguments, and the phase-one outputs passed as nullptr


class NoCaseError(ValueError):
    """No call can trip this row while passing every earlier one (the row is unreachable)."""

    def __init__(self, message: str, row: int | None = None):
        super().__init__(message)
        self.row = row


# Dtypes tried, in order, when a check needs one a parameter does not accept.
CANDIDATE_DTYPES = (
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


def unsupported_dtype(supported: list[DType], *, castable_from: DType | None = None) -> DType:
    for dtype in CANDIDATE_DTYPES:
        if dtype not in supported and (castable_from is None or not can_cast(castable_from, dtype)):
            return dtype
    raise NoCaseError("every candidate dtype is supported")


# ---------------------------------------------------------------------------------------------- contexts


class Resolver(Protocol):
    """What validation offers a check: name resolution with diagnostics at exact YAML paths."""

    spec: OpSpec

    def resolve(
        self, name: str, path: FieldPath, *, kinds: tuple[ParamKind, ...] | None = None, what: str = ""
    ) -> Param | None: ...

    def resolve_all(
        self, names: list[str], path: FieldPath, *, kinds: tuple[ParamKind, ...] | None = None, what: str = ""
    ) -> list[Param]: ...

    def report(self, path: FieldPath, message: str, kind: str) -> None: ...

    def parse(self, text: str, path: FieldPath, symbols: dict[str, F.Symbol], what: str) -> F.Expr | None: ...


class CallModel(Protocol):
    """What negative-case derivation offers a check: the spec's output rules over concrete arguments."""

    @property
    def spec(self) -> OpSpec: ...

    def with_outputs(self, args: Args) -> Args:
        """`args` with every output recomputed from the inputs, so only the mutated input is wrong."""
        ...

    def output_dtype(self, args: Args) -> DType: ...


@dataclass(frozen=True)
class CppCheck:
    condition: str  # C++ expression, true when the check fails
    setup: tuple[str, ...] = ()  # statements computing what the condition reads


def cpp_dtype(dtype: DType) -> str:
    return f"op::DataType::{dtype.ge_enum.split('::')[1]}"


@dataclass(frozen=True)
class CppAccess:
    """How a check's C++ reads a tensor's shape. The op_api reads the API's aclTensors; the host tiling, where the
    rows reported as ACLNN_ERR_INNER_TILING_ERROR are checked, reads each launched operand's shape from its context
    into a local `<name>Shape` (plan/tiling_checks.py declares them; host values keep their API names). One predicate
    per check kind serves both."""

    shape: str  # a tensor's shape, `{}` its name
    shape_type: str  # the C++ type a shape is copied into


OP_API_ACCESS = CppAccess("{}->GetViewShape()", "op::Shape")
TILING_ACCESS = CppAccess("{}Shape", "gert::Shape")


def cpp_shape(name: str, access: CppAccess = OP_API_ACCESS) -> str:
    return access.shape.format(name)


def cpp_promote(names: list[str]) -> str:
    expr = f"{names[0]}->GetDataType()"
    for name in names[1:]:
        expr = f"PromoteType({expr}, {name}->GetDataType())"
    return expr


def cpp_result_dtype(spec: OpSpec, names: list[str]) -> str:
    """The promoted dtype of `names` with each taken as `OpSpec.result_dtype`, in the generated C++."""
    integers_as = spec.kernel.integers_as
    if integers_as is None:
        return cpp_promote(names)

    def each(name: str) -> str:
        return f"(IsIntegralType({name}->GetDataType(), true) ? {cpp_dtype(integers_as)} : {name}->GetDataType())"

    expr = each(names[0])
    for name in names[1:]:
        expr = f"PromoteType({expr}, {each(name)})"
    return expr


def cpp_scalar_value(name: str) -> str:
    """How the generated C++ reads a float scalar (checks and kernel attributes): as ops-nn does, with
    aclScalar::ToFloat(), so a DOUBLE scalar is rounded to float before it is compared or used."""
    return f"{name}->ToFloat()"


def py_scalar_value(name: str) -> str:
    """`cpp_scalar_value` in the generated Python: the value rounded to float32."""
    return f"np.float32({name})"


def scalar_value(value: float) -> float:
    """`cpp_scalar_value` of a host value: rounded to float32 (overflowing to inf, as the C++ cast does)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def dtype_list_function(spec: OpSpec, param: str) -> str:
    """The op_api function returning a parameter's dtypes on the current SoC: GetDtypeSupportList when every
    parameter a dtype row checks has the same lists (as ops-nn's op_api files share one), else one per parameter."""
    if shares_dtype_lists(spec):
        return "GetDtypeSupportList"
    return "Get" + param[0].upper() + param[1:] + "DtypeSupportList"


def shares_dtype_lists(spec: OpSpec) -> bool:
    """Whether every parameter a dtype_supported row checks accepts the same dtypes on every SoC."""
    checked = {n for row in spec.errors if isinstance(row.check, CheckDtypeSupported) for n in row.check.names()}
    lists = {
        (tuple(spec.param(n).dtypes), *(tuple(spec.dtypes_on(spec.param(n), s.soc)) for s in spec.socs))
        for n in checked
    }
    return len(lists) <= 1


def _any(names: list[str], fmt: str) -> str:
    return " || ".join(fmt.format(n) for n in names)


def _given(spec: OpSpec, name: str, condition: str) -> str:
    """`condition` about what `name` points to; an optional scalar or string that is null passes (it takes its
    default)."""
    if spec.param(name).nullable:
        return f"({name} != nullptr && {condition})"
    return condition


def _absent(spec: OpSpec, args: Args, name: str) -> bool:
    """An optional scalar or string passed as a null pointer: checks of its value do not apply."""
    return args[name].kind == "null" and spec.param(name).nullable


def _promoted(args: Args, names: list[str], as_dtype: Callable[[DType], DType] = lambda d: d) -> DType | None:
    """The promoted dtype of `names` (as PromoteType chains them), each taking part as `as_dtype` of its own (an
    integer input the op_api casts first: OpSpec.result_dtype); None when a pair does not promote."""
    first = args[names[0]].dtype
    promoted = as_dtype(first) if first is not None else None
    for name in names[1:]:
        other = args[name].dtype
        if promoted is None or other is None:
            return None
        promoted = promote_types(promoted, as_dtype(other))
    return promoted


# ---------------------------------------------------------------------------------------------- the kinds


class CheckKind(Strict):
    """Base of every check kind; a YAML check is a one-key mapping whose key is `kind`."""

    kind: ClassVar[str]
    relational: ClassVar[bool] = False
    # The op_api helper its rows are checked in, as ops-nn groups its checks (CheckNotNull, CheckDtypeValid,
    # CheckShape, CheckAttributeValue), and its own name for where another group's rows split that group's.
    cpp_helper: ClassVar[tuple[str, str]]
    # whether the host tiling can check it (`cpp` with TILING_ACCESS): it reads only shapes and host values
    tiling: ClassVar[bool] = False

    @property
    def case_name(self) -> str:
        """Suffix of the negative test case tripping this check."""
        return type(self).__name__.removeprefix("Check").lower()

    def names(self) -> list[str]:
        """The parameters the check names, in order (doc rows rename them for an in-place API)."""
        value = getattr(self, self.kind)
        return list(value) if isinstance(value, list) else []

    def inplace_doc(self, names: list[str]) -> str | None:
        """The doc text of this row for an in-place API when it cannot reuse the row's own; None: reuse."""
        return None

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        raise NotImplementedError

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        raise NotImplementedError

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        raise NotImplementedError

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        raise NotImplementedError


class CheckNotNull(CheckKind):
    kind: ClassVar[str] = "not_null"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckNotNull", "CheckNotNull")
    not_null: list[Identifier] = Field(description="pointer arguments that must not be null")

    def inplace_doc(self, names: list[str]) -> str | None:
        joined = names[0] if len(names) == 1 else "、".join(names[:-1]) + "或" + names[-1]
        return f"传入的{joined}是空指针。"

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        for j, name in enumerate(self.not_null):
            if name not in IMPLICIT_POINTERS:
                param = resolver.resolve(
                    name,
                    path + ("not_null", j),
                    kinds=(ParamKind.TENSOR, ParamKind.SCALAR, ParamKind.STRING),
                    what="a null check",
                )
                if param is not None and param.nullable:
                    message = f"'{name}' is optional (it has 'null_default'): a null pointer is not an error"
                    resolver.report(path + ("not_null", j), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(_any(self.not_null, "{} == nullptr"))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(n in null_outputs or (n in args and args[n].kind == "null") for n in self.not_null)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        return [
            (base, (name,)) if name in IMPLICIT_POINTERS else ({**base, name: Arg("null")}, ())
            for name in self.not_null
        ]


class CheckDtypeSupported(CheckKind):
    kind: ClassVar[str] = "dtype_supported"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckDtypeSupported")
    dtype_supported: list[Identifier] = Field(description="dtype must be in the param's per-SoC list")

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        for j, param in enumerate(resolver.resolve_all(self.dtype_supported, path + ("dtype_supported",))):
            if not param.dtypes:
                resolver.report(
                    path + ("dtype_supported", j), f"'{param.name}' declares no dtypes to check against", "invalid"
                )

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(
            " || ".join(
                _given(spec, n, f"!CheckType({n}->GetDataType(), {dtype_list_function(spec, n)}())")
                for n in self.dtype_supported
            )
        )

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(
            not _absent(spec, args, n) and args[n].dtype not in spec.dtypes_on(spec.param(n), soc)
            for n in self.dtype_supported
        )

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        tensors = {p.name for p in spec.params if p.kind is ParamKind.TENSOR}
        outputs = {p.name for p in spec.outputs}
        candidates: list[Mutation] = []
        for name in self.dtype_supported:
            bad = unsupported_dtype(spec.param(name).dtypes)
            if name in tensors:
                mutated = {n: (replace(a, dtype=bad) if n == name else a) for n, a in base.items()}
                candidates.append((model.with_outputs(mutated), ()))
                # also with every input tensor in the bad dtype, for ops that require equal dtypes first
                same = {n: (replace(a, dtype=bad) if n in tensors - outputs else a) for n, a in base.items()}
                candidates.append((model.with_outputs(same), ()))
            else:
                value = True if bad is DType.BOOL else 1
                candidates.append(({**base, name: replace(base[name], dtype=bad, value=value)}, ()))
        return candidates


class CheckSameDtype(CheckKind):
    kind: ClassVar[str] = "same_dtype"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckDtypeSame")
    relational: ClassVar[bool] = True
    same_dtype: list[Identifier] = Field(min_length=2)

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.resolve_all(self.same_dtype, path + ("same_dtype",), kinds=TENSORS, what="a dtype check")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        first, *rest = self.same_dtype
        return CppCheck(_any(rest, "{}->GetDataType() != " + f"{first}->GetDataType()"))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        first = args[self.same_dtype[0]].dtype
        return any(args[n].dtype is not first for n in self.same_dtype[1:])

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        first, second = self.same_dtype[0], self.same_dtype[1]
        others = [d for d in model.spec.param(second).dtypes if d is not base[first].dtype]
        if not others:
            raise NoCaseError(f"'{second}' accepts no dtype other than {base[first].dtype}")
        mutated = {**base, second: replace(base[second], dtype=others[0])}
        if model.spec.param(second).direction is Direction.OUTPUT:
            return [(mutated, ())]  # recomputing the outputs would undo the mutation
        return [(model.with_outputs(mutated), ())]


class CheckPromotable(CheckKind):
    kind: ClassVar[str] = "promotable"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckPromoteType")
    relational: ClassVar[bool] = True
    promotable: list[Identifier] = Field(
        min_length=2, description="these dtypes (tensors and scalars, e.g. aclnnThreshold's) must promote"
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.resolve_all(
            self.promotable,
            path + ("promotable",),
            kinds=(ParamKind.TENSOR, ParamKind.SCALAR),
            what="a promotion check",
        )

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(f"{cpp_promote(self.promotable)} == op::DataType::DT_UNDEFINED")

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return _promoted(args, self.promotable) is None

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        # A float tensor promotes with every dtype, so a failing pair may need another member changed too (an
        # integer self with a uint16 threshold): one member changed first, then two, each failing pair once.
        spec = model.spec

        def retyped(args: Args, name: str, dtype: DType) -> Args:
            arg = args[name]
            if arg.kind == "scalar":
                return {**args, name: replace(arg, dtype=dtype, value=True if dtype is DType.BOOL else 1)}
            return {**args, name: replace(arg, dtype=dtype)}

        options = {n: list(dict.fromkeys([*spec.param(n).dtypes, *CANDIDATE_DTYPES])) for n in self.promotable}
        candidates: list[Mutation] = []
        for name in self.promotable[1:]:
            for dtype in options[name]:
                args = retyped(base, name, dtype)
                if self.fails(spec, args, (), ""):
                    candidates.append((model.with_outputs(args), ()))
        for name, other in itertools.permutations(self.promotable, 2):
            for first, second in itertools.product(options[name], options[other]):
                args = retyped(retyped(base, name, first), other, second)
                if self.fails(spec, args, (), ""):
                    candidates.append((model.with_outputs(args), ()))
        if not candidates:
            raise NoCaseError(f"the dtypes {', '.join(self.promotable)} accept always promote")
        return candidates


class CastableSpec(Strict):
    source: list[Identifier] = Field(min_length=1, description="dtype (promoted when several) to cast from")
    target: Identifier | DType = Field(description="a parameter (its dtype) or a dtype")


class CheckCastable(CheckKind):
    kind: ClassVar[str] = "castable"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckDtypeCastable")
    relational: ClassVar[bool] = True
    castable: CastableSpec

    def names(self) -> list[str]:
        target = self.castable.target
        return list(self.castable.source) + ([] if isinstance(target, DType) else [target])

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.resolve_all(self.castable.source, path + ("castable", "source"), kinds=TENSORS, what="a cast check")
        if not isinstance(self.castable.target, DType):
            resolver.resolve(self.castable.target, path + ("castable", "target"), kinds=TENSORS, what="a cast check")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        target = self.castable.target
        to = cpp_dtype(target) if isinstance(target, DType) else f"{target}->GetDataType()"
        return CppCheck(f"!CanCast({cpp_result_dtype(spec, list(self.castable.source))}, {to})")

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        source = _promoted(args, self.castable.source, spec.result_dtype)
        target = self.castable.target
        goal = target if isinstance(target, DType) else args[target].dtype
        return source is None or goal is None or not can_cast(source, goal)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        target = self.castable.target
        if isinstance(target, DType):
            raise NoCaseError("casts to a fixed dtype are covered by the dtype rows")
        bad = unsupported_dtype([], castable_from=model.output_dtype(base))
        mutations: list[Mutation] = [({**base, target: replace(base[target], dtype=bad)}, ())]
        # Where the target accepts no dtype the first source's cannot cast to (a real out takes every real result),
        # a source dtype of a higher category meets a target dtype it cannot cast to (a complex self, a real out).
        spec = model.spec
        first = self.castable.source[0]
        for source in spec.param(first).dtypes:
            for goal in spec.param(target).dtypes:
                if not can_cast(spec.result_dtype(source), goal):
                    args = {**base, first: replace(base[first], dtype=source)}
                    mutations.append((model.with_outputs(args) | {target: replace(base[target], dtype=goal)}, ()))
        return mutations


class PromotedDtypeSpec(Strict):
    source: list[Identifier] = Field(min_length=2, description="tensors whose promoted dtype is compared")
    target: Identifier = Field(description="the tensor whose dtype must equal it")


class CheckPromotedDtype(CheckKind):
    """The promoted dtype of the sources must equal the target's dtype (aclnnGeluBackwardV2's gradInput): stricter
    than `castable`, for an op_api that computes in the promoted dtype and does not cast the result."""

    kind: ClassVar[str] = "promoted_dtype"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckPromotedDtype")
    relational: ClassVar[bool] = True
    promoted_dtype: PromotedDtypeSpec

    def names(self) -> list[str]:
        return [*self.promoted_dtype.source, self.promoted_dtype.target]

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        spec, where = self.promoted_dtype, path + ("promoted_dtype",)
        resolver.resolve_all(spec.source, where + ("source",), kinds=TENSORS, what="a dtype check")
        resolver.resolve(spec.target, where + ("target",), kinds=TENSORS, what="a dtype check")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(f"{cpp_promote(self.promoted_dtype.source)} != {self.promoted_dtype.target}->GetDataType()")

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        promoted = _promoted(args, self.promoted_dtype.source)
        return promoted is None or promoted is not args[self.promoted_dtype.target].dtype

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        target = self.promoted_dtype.target
        promoted = _promoted(base, self.promoted_dtype.source)
        others = [d for d in model.spec.param(target).dtypes if d is not promoted]
        if not others:
            raise NoCaseError(f"'{target}' accepts no dtype other than the promoted {promoted}")
        return [({**base, target: replace(base[target], dtype=others[0])}, ())]


class CheckScalarsCastable(CheckKind):
    kind: ClassVar[str] = "scalars_castable"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckDtypeValid", "CheckScalarDtype")
    scalars_castable: list[Identifier] = Field(description="scalars that must be castable to their castable_to")

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        found = resolver.resolve_all(
            self.scalars_castable, path + ("scalars_castable",), kinds=(ParamKind.SCALAR,), what="a scalar cast check"
        )
        for j, param in enumerate(found):
            if param.dtype.castable_to is None and not param.dtype.castable_to_promoted_of:
                resolver.report(
                    path + ("scalars_castable", j),
                    f"'{param.name}' has no 'dtype.castable_to' or 'dtype.castable_to_promoted_of'",
                    "invalid",
                )

    def _goal(self, spec: OpSpec, name: str, args: Args) -> DType | None:
        """The dtype the scalar must cast to: fixed, or the promoted dtype of tensors (None: they do not promote)."""
        relation = spec.param(name).dtype
        if relation.castable_to is not None:
            return relation.castable_to
        dtypes = [args[t].dtype for t in relation.castable_to_promoted_of]
        goal = dtypes[0]
        for dtype in dtypes[1:]:
            goal = None if goal is None or dtype is None else promote_types(goal, dtype)
        return goal

    def _cpp_goal(self, spec: OpSpec, name: str) -> str:
        relation = spec.param(name).dtype
        if relation.castable_to is not None:
            return cpp_dtype(relation.castable_to)
        return cpp_promote(relation.castable_to_promoted_of)

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(
            " || ".join(
                _given(spec, n, f"!CanCast({n}->GetDataType(), {self._cpp_goal(spec, n)})")
                for n in self.scalars_castable
            )
        )

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(
            not _absent(spec, args, n)
            and (
                (dtype := args[n].dtype) is None
                or (goal := self._goal(spec, n, args)) is None
                or not can_cast(dtype, goal)
            )
            for n in self.scalars_castable
        )

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        candidates: list[Mutation] = []
        for name in self.scalars_castable:
            goal = self._goal(model.spec, name, base)
            if goal is None:
                continue
            bad = next((d for d in (DType.COMPLEX64, DType.COMPLEX128) if not can_cast(d, goal)), None)
            if bad is not None:
                candidates.append(({**base, name: replace(base[name], dtype=bad, value=1.0)}, ()))
        return candidates


class CheckMaxRank(CheckKind):
    kind: ClassVar[str] = "max_rank"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckMaxDim")
    tiling: ClassVar[bool] = True
    max_rank: list[Identifier] = Field(description="tensors whose rank must be within their 'rank' range")

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.resolve_all(self.max_rank, path + ("max_rank",), kinds=TENSORS, what="a rank check")

    @staticmethod
    def _range(spec: OpSpec, name: str) -> tuple[int, int]:
        rank = spec.param(name).rank
        assert rank is not None  # a tensor parameter always has one
        return rank

    @staticmethod
    def _low(spec: OpSpec, name: str) -> int:
        """The lowest rank this row accepts: the range's, unless a min_rank row of the table checks that bound (ops-nn's
        GluBackward lists "dims > 8" and "self is 0-d" as two rows)."""
        if any(isinstance(row.check, CheckMinRank) and name in row.check.min_rank for row in spec.errors):
            return 0
        return CheckMaxRank._range(spec, name)[0]

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        parts = []
        for name in self.max_rank:
            low, high = self._low(spec, name), self._range(spec, name)[1]
            parts.append(f"{cpp_shape(name, access)}.GetDimNum() > {high}")
            if low > 0:
                parts.append(f"{cpp_shape(name, access)}.GetDimNum() < {low}")
        return CppCheck(" || ".join(parts))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(not self._low(spec, n) <= len(args[n].shape) <= self._range(spec, n)[1] for n in self.max_rank)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        tensors = {p.name for p in spec.params if p.kind is ParamKind.TENSOR}
        outputs = {p.name for p in spec.outputs}
        candidates: list[Mutation] = []
        for name in self.max_rank:
            deep = (1,) * (self._range(spec, name)[1] + 1)
            if name in outputs:
                candidates.append(({**base, name: replace(base[name], shape=deep)}, ()))
                continue
            candidates.append((model.with_outputs({**base, name: replace(base[name], shape=deep)}), ()))
            every = {n: (replace(a, shape=deep) if n in tensors else a) for n, a in base.items()}
            candidates.append((every, ()))
        return candidates


class CheckMinRank(CheckKind):
    """The lower bound of a tensor's rank as a row of its own (ops-nn's "self的维度等于0" after "维度大于8"); a
    max_rank row naming the same tensor then checks the upper bound only."""

    kind: ClassVar[str] = "min_rank"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckMinDim")
    tiling: ClassVar[bool] = True
    min_rank: list[Identifier] = Field(
        min_length=1, description="tensors whose rank must be at least the lower bound of their 'rank' range"
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        params = resolver.resolve_all(self.min_rank, path + ("min_rank",), kinds=TENSORS, what="a rank check")
        for j, param in enumerate(params):
            if param.rank is not None and param.rank[0] == 0:
                message = f"'{param.name}' accepts rank 0 (its rank range is {list(param.rank)}): nothing to check"
                resolver.report(path + ("min_rank", j), message, "invalid")

    @staticmethod
    def _low(spec: OpSpec, name: str) -> int:
        return CheckMaxRank._range(spec, name)[0]

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        low = self._low
        return CppCheck(" || ".join(f"{cpp_shape(n, access)}.GetDimNum() < {low(spec, n)}" for n in self.min_rank))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(len(args[n].shape) < self._low(spec, n) for n in self.min_rank)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        outputs = {p.name for p in model.spec.outputs}
        candidates: list[Mutation] = []
        for name in self.min_rank:
            shallow = (1,) * (self._low(model.spec, name) - 1)
            mutated = {**base, name: replace(base[name], shape=shallow)}
            if name not in outputs:  # the outputs as the shallower input makes them
                candidates.append((model.with_outputs(mutated), ()))
            candidates.append((mutated, ()))  # the others as they were
        return candidates


def broadcast_locals(spec: OpSpec, row: int) -> tuple[str, str]:
    """The C++ locals (broadcast shape, success flag) the broadcast check of error row `row` declares: plain
    `broadcastShape`/`broadcastOk`, numbered by the row only when the table has several broadcast rows."""
    rows = [i for i, r in enumerate(spec.errors) if isinstance(r.check, CheckBroadcast)]
    suffix = "" if len(rows) <= 1 else str(row)
    return f"broadcastShape{suffix}", f"broadcastOk{suffix}"


# Matches every name broadcast_locals gives, so a parameter cannot take one.
BROADCAST_LOCAL = re.compile(r"broadcast(Shape|Ok)[0-9]*")


class CheckBroadcast(CheckKind):
    kind: ClassVar[str] = "broadcast"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckBroadcastShape")
    relational: ClassVar[bool] = True
    broadcast: list[Identifier] = Field(
        description="inputs must broadcast; outputs listed must have the broadcast shape", min_length=2
    )

    def _split(self, spec: OpSpec) -> tuple[list[str], list[str]]:
        inputs = [n for n in self.broadcast if spec.param(n).direction is Direction.INPUT]
        return inputs, [n for n in self.broadcast if n not in inputs]

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        found = resolver.resolve_all(self.broadcast, path + ("broadcast",), kinds=TENSORS, what="a broadcast check")
        if found and not any(p.direction is Direction.INPUT for p in found):
            resolver.report(path + ("broadcast",), "a broadcast check needs at least one input", "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        inputs, outputs = self._split(spec)
        shape, ok = broadcast_locals(spec, row)
        setup = [f"op::Shape {shape} = {cpp_shape(inputs[0])};", f"bool {ok} = true;"]
        for name in inputs[1:]:
            setup += [
                "{",
                "  op::Shape merged;",
                f"  {ok} = {ok} && BroadcastInferShape({shape}, {cpp_shape(name)}, merged);",
                f"  {shape} = merged;",
                "}",
            ]
        condition = f"!{ok}" + "".join(f" || {cpp_shape(o)} != {shape}" for o in outputs)
        return CppCheck(condition, tuple(setup))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        inputs, outputs = self._split(spec)
        try:
            shape = np.broadcast_shapes(*(args[n].shape for n in inputs))
        except ValueError:
            return True
        return any(args[n].shape != tuple(shape) for n in outputs)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        inputs, outputs = self._split(model.spec)
        candidates: list[Mutation] = []
        if len(inputs) > 1:
            candidates.append(({**base, inputs[1]: replace(base[inputs[1]], shape=(4, 5))}, ()))
        candidates += [({**base, name: replace(base[name], shape=(7,))}, ()) for name in outputs]
        return candidates


class CheckSameShape(CheckKind):
    kind: ClassVar[str] = "same_shape"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckShapeSame")
    tiling: ClassVar[bool] = True
    relational: ClassVar[bool] = True
    same_shape: list[Identifier] = Field(min_length=2)

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.resolve_all(self.same_shape, path + ("same_shape",), kinds=TENSORS, what="a shape check")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        first, *rest = self.same_shape
        return CppCheck(_any(rest, cpp_shape("{}", access) + f" != {cpp_shape(first, access)}"))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        first = args[self.same_shape[0]].shape
        return any(args[n].shape != first for n in self.same_shape[1:])

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        return [({**base, name: replace(base[name], shape=(5,))}, ()) for name in self.same_shape[1:]]


class CheckChannelSize(CheckKind):
    kind: ClassVar[str] = "channel_size"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckChannelSize")
    relational: ClassVar[bool] = True
    channel_size: list[Identifier] = Field(
        min_length=1,
        description="channel inputs (shape.channel_of): the element count is 1 or the channel count of the "
        "tensor each follows (its dim 1; 1 below rank 2)",
    )

    @staticmethod
    def _of(spec: OpSpec, name: str) -> str:
        of = spec.param(name).shape.channel_of
        assert of is not None  # validated
        return of

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        for j, name in enumerate(self.channel_size):
            param = resolver.resolve(name, path + ("channel_size", j), kinds=TENSORS, what="a channel check")
            if param is not None and param.shape.channel_of is None:
                message = f"'{name}' has no 'shape.channel_of': there is no channel count to check it against"
                resolver.report(path + ("channel_size", j), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        parts = []
        for name in self.channel_size:
            of = cpp_shape(self._of(spec, name))
            size = f"{cpp_shape(name)}.GetShapeSize()"
            channels = f"({of}.GetDimNum() < 2 ? 1 : {of}.GetDim(1))"
            parts.append(f"({size} != 1 && {size} != {channels})")
        return CppCheck(" || ".join(parts))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(
            not channel_accepts(math.prod(args[n].shape), args[self._of(spec, n)].shape) for n in self.channel_size
        )

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        # one value more than there are channels: neither a single value nor one per channel
        return [
            ({**base, n: replace(base[n], shape=(channel_count(base[self._of(model.spec, n)].shape) + 1,))}, ())
            for n in self.channel_size
        ]


class CheckOneElement(CheckKind):
    kind: ClassVar[str] = "one_element"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckOneElement")
    tiling: ClassVar[bool] = True
    one_element: list[Identifier] = Field(
        min_length=1,
        description="one-element tensors (shape.one_element): exactly one element, whatever the shape ([], [1], "
        "[1, 1]); the kernel reads that one value (ops-nn's FatreluMul threshold)",
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        for j, name in enumerate(self.one_element):
            param = resolver.resolve(name, path + ("one_element", j), kinds=TENSORS, what="a one-element check")
            if param is not None and not param.shape.one_element:
                message = f"'{name}' has no 'shape.one_element': nothing says it holds one element"
                resolver.report(path + ("one_element", j), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        return CppCheck(_any(self.one_element, cpp_shape("{}", access) + ".GetShapeSize() != 1"))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(math.prod(args[n].shape) != 1 for n in self.one_element)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        # two elements (one value too many), and none (an empty tensor holds no value to read)
        return [({**base, n: replace(base[n], shape=shape)}, ()) for n in self.one_element for shape in ((2,), (0,))]


class CheckChannelSumShape(CheckKind):
    kind: ClassVar[str] = "channel_sum_shape"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckChannelSumShape")
    relational: ClassVar[bool] = True
    channel_sum_shape: list[Identifier] = Field(
        min_length=1,
        description="per-channel sums (formula.reduce): shape [C] (C: the channel count of the summed tensor) when "
        "the channel input they are shaped like holds C != 1 values, else that input's shape (aclnnPreluBackward's "
        "gradWeight)",
    )

    @staticmethod
    def _sum(spec: OpSpec, name: str) -> tuple[str, str]:
        """(the tensor whose channels the sum keeps, the channel input the output is shaped like)."""
        reduction = spec.formula.reduce[name]
        like = spec.param(name).shape.same_as
        assert like is not None  # validated
        return reduction.sum_over_channels_of, like

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        for j, name in enumerate(self.channel_sum_shape):
            param = resolver.resolve(name, path + ("channel_sum_shape", j), kinds=TENSORS, what="a sum's shape check")
            if param is not None and name not in resolver.spec.formula.reduce:
                message = f"'{name}' is not a per-channel sum (formula.reduce): it has no channel shape"
                resolver.report(path + ("channel_sum_shape", j), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        parts = []
        for name in self.channel_sum_shape:
            of, like = self._sum(spec, name)
            channels = f"({cpp_shape(of)}.GetDimNum() < 2 ? 1 : {cpp_shape(of)}.GetDim(1))"
            per_channel = f"({cpp_shape(name)}.GetDimNum() != 1 || {cpp_shape(name)}.GetDim(0) != {channels})"
            parts.append(
                f"({cpp_shape(like)}.GetShapeSize() != 1 ? {per_channel} : {cpp_shape(name)} != {cpp_shape(like)})"
            )
        return CppCheck(" || ".join(parts))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        for name in self.channel_sum_shape:
            of, like = self._sum(spec, name)
            if math.prod(args[like].shape) != 1:
                wanted: tuple[int, ...] = (channel_count(args[of].shape),)
            else:
                wanted = tuple(args[like].shape)
            if tuple(args[name].shape) != wanted:
                return True
        return False

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        # one value more than the channels: neither [C] nor a single value's shape
        mutations: list[Mutation] = []
        for name in self.channel_sum_shape:
            of, _ = self._sum(model.spec, name)
            mutations.append(({**base, name: replace(base[name], shape=(channel_count(base[of].shape) + 1,))}, ()))
        return mutations


def _condition_values(param: Param) -> list[float | bool | int | str]:
    """Values tried for a parameter of a reject_if condition when looking for a call that trips it."""
    if param.kind is ParamKind.BOOL:
        return [True, False]
    if param.values is not None:
        return list(param.values)
    if param.kind is ParamKind.INT64:
        return [-2, 0, 1, 3]
    return [-1.5, 0.5, 0.0, 2.0]


def _with_value(spec: OpSpec, arg: Arg, name: str, value: float | bool | int | str) -> Arg:
    """`arg` holding `value`; an optional string left out (null) becomes a string."""
    if arg.kind == "null" and spec.param(name).kind is ParamKind.STRING:
        return Arg("string", value=value)
    return replace(arg, value=value)


class CheckRejectIf(CheckKind):
    kind: ClassVar[str] = "reject_if"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckAttributeValue", "CheckAttributeValue")
    reject_if: str = Field(description="formula-language condition over scalars and bool params", max_length=4096)

    def condition(self, spec: OpSpec) -> F.Expr:
        return parse_condition(spec, self.reject_if)

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        resolver.parse(
            self.reject_if, path + ("reject_if",), formula_symbols(resolver.spec, tensors=False), "condition"
        )

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        names = {}
        for p in spec.params:
            if p.kind is ParamKind.SCALAR:
                read = cpp_scalar_value(p.name)
                if p.null_default is not None:  # an optional scalar: a null pointer stands for its default
                    read = f"({p.name} == nullptr ? {cpp_lang.float_literal(float(p.null_default))} : {read})"
                names[p.name] = read
            elif p.kind is ParamKind.STRING and p.null_default is not None:  # null stands for its default
                names[p.name] = f"({p.name} == nullptr ? {cpp_lang.string(str(p.null_default))} : {p.name})"
        return CppCheck(F.to_cpp(self.condition(spec), names))

    def python(self, spec: OpSpec) -> str:
        """The condition as generated Python over the parameters' Python names, scalars read as the C++ reads them."""
        names = {}
        for p in spec.params:
            if p.kind is ParamKind.SCALAR:
                given = p.python
                if p.null_default is not None:
                    given = f"({python_lang.literal(p.null_default)} if {p.python} is None else {p.python})"
                names[p.name] = py_scalar_value(given)
            elif p.kind is not ParamKind.TENSOR:
                names[p.name] = p.python
                if p.null_default is not None:  # an optional string: None stands for its default
                    names[p.name] = f"({python_lang.literal(p.null_default)} if {p.python} is None else {p.python})"
        return python_lang.without_outer_parentheses(F.to_numpy(self.condition(spec), names))

    def rejects(self, spec: OpSpec, values: Mapping[str, float | bool | int | str | None]) -> bool:
        """True when the condition holds for these scalar and flag values (scalars read as the C++ reads them)."""
        expr = self.condition(spec)
        # A name without a value (None) is left out of the environment: evaluate() raises ValueError for it.
        env: dict[str, float | bool | int | str] = {}
        for name in F.free_names(expr):
            value = values[name]
            if value is not None:
                if spec.param(name).kind is ParamKind.SCALAR and isinstance(value, (int, float)):
                    env[name] = value if isinstance(value, bool) else scalar_value(value)
                else:
                    env[name] = value
        return bool(F.evaluate(expr, env))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        values = {n: (spec.param(n).null_default if _absent(spec, args, n) else a.value) for n, a in args.items()}
        return self.rejects(spec, values)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        expr = self.condition(spec)
        names = list(F.free_names(expr))
        options = [_condition_values(spec.param(n)) for n in names]
        found: list[Mutation] = []
        for combo in itertools.product(*options):
            env = dict(zip(names, combo, strict=True))
            if bool(F.evaluate(expr, env)):
                found.append(({**base, **{n: _with_value(spec, base[n], n, v) for n, v in env.items()}}, ()))
        return found


class CheckOneOf(CheckKind):
    kind: ClassVar[str] = "one_of"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckAttributeValue", "CheckAttributeValue")
    tiling: ClassVar[bool] = True
    one_of: list[Identifier] = Field(min_length=1, description="int64/string parameters: the value is in 'values'")

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        kinds = (ParamKind.INT64, ParamKind.STRING)
        for j, param in enumerate(
            resolver.resolve_all(self.one_of, path + ("one_of",), kinds=kinds, what="a value check")
        ):
            if param.values is None:
                resolver.report(path + ("one_of", j), f"'{param.name}' has no 'values' to check against", "invalid")

    def _values(self, spec: OpSpec, name: str) -> list[int] | list[str]:
        values = spec.param(name).values
        assert values is not None  # validated
        return values

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        parts = []
        for name in self.one_of:
            values = self._values(spec, name)
            if spec.param(name).kind is ParamKind.STRING:
                tests = [f"std::strcmp({name}, {cpp_lang.string(str(v))}) != 0" for v in values]
            else:
                tests = [f"{name} != {int(v)}" for v in values]
            parts.append(_given(spec, name, "(" + " && ".join(tests) + ")"))
        return CppCheck(" || ".join(parts))

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        return any(not _absent(spec, args, n) and args[n].value not in self._values(spec, n) for n in self.one_of)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        candidates: list[Mutation] = []
        for name in self.one_of:
            values = self._values(model.spec, name)
            bad: int | str
            if model.spec.param(name).kind is ParamKind.STRING:
                bad = next(
                    f"{values[0]}{'x' * n}" for n in range(1, len(values) + 2) if f"{values[0]}{'x' * n}" not in values
                )
            else:
                bad = max(int(v) for v in values) + 1
            # a value, even where the base call leaves an optional string out (a null pointer)
            candidates.append(({**base, name: Arg(model.spec.param(name).kind.value, value=bad)}, ()))
        return candidates


# ---------------------------------------------------------------------------------------------- half split


def _split_of(spec: OpSpec) -> tuple[str, str]:
    """(the tensor, the C++ expression of the dim) of a half-split operator, or of one reducing along a dim."""
    section = spec.split or spec.reduce_dim
    assert section is not None  # validated: a dim check needs a `split` or `reduce_dim` section
    return section.tensor, str(section.dim)


def _zero_dim_as_one(spec: OpSpec) -> bool:
    """Whether the checks count a 0-d tensor as 1-d (dim within [-1, 0]): split.zero_dim_as_one, and always for a
    reduction along dim (a 0-d tensor is one row of one element, as aclnnSoftmax takes it)."""
    return spec.split.zero_dim_as_one if spec.split is not None else spec.reduce_dim is not None


def _checked_rank_cpp(spec: OpSpec, access: CppAccess = OP_API_ACCESS) -> str:
    """The C++ rank the dim checks index the tensor with: its rank, or 1 for a 0-d tensor where the op_api counts
    it as 1-d (`_zero_dim_as_one`)."""
    tensor, _ = _split_of(spec)
    rank = f"static_cast<int64_t>({cpp_shape(tensor, access)}.GetDimNum())"
    return f"({rank} == 0 ? int64_t{{1}} : {rank})" if _zero_dim_as_one(spec) else rank


def _checked_rank(spec: OpSpec, shape: tuple[int, ...]) -> int:
    """The Python model of `_checked_rank_cpp`."""
    return max(len(shape), 1) if _zero_dim_as_one(spec) else len(shape)


def _split_axis_cpp(spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> tuple[str, tuple[str, ...]]:
    """The C++ local holding the split dim as a non-negative axis of the split tensor (row-numbered: several rows of
    one helper declare their own), and the statement declaring it."""
    _, dim = _split_of(spec)
    local = f"splitAxis{row}"
    return local, (f"const int64_t {local} = {dim} < 0 ? {dim} + {_checked_rank_cpp(spec, access)} : {dim};",)


def _resolve_split(resolver: Resolver, names: list[str], path: FieldPath, what: str) -> None:
    if resolver.spec.split is None:
        resolver.report(path, f"{what} needs a 'split' section (the tensor and dim it checks)", "invalid")
        return
    resolver.resolve_all(names, path, kinds=TENSORS, what=what)


class CheckDimRange(CheckKind):
    kind: ClassVar[str] = "dim_range"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckSplitDim")
    tiling: ClassVar[bool] = True
    dim_range: list[Identifier] = Field(
        min_length=1,
        max_length=1,
        description="the split tensor (split.tensor) or the reduced one (reduce_dim.tensor): the dim must be in "
        "[-rank, rank - 1] of it ([-1, 0] for a 0-d tensor where it counts as 1-d)",
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        section = resolver.spec.split or resolver.spec.reduce_dim
        if section is None:
            message = "a dim range check needs a 'split' or 'reduce_dim' section (the tensor and dim it checks)"
            resolver.report(path + ("dim_range",), message, "invalid")
            return
        resolver.resolve_all(self.dim_range, path + ("dim_range",), kinds=TENSORS, what="a dim range check")
        if self.dim_range[0] != section.tensor:
            message = f"'{self.dim_range[0]}' is not the tensor '{section.tensor}' the dim indexes"
            resolver.report(path + ("dim_range", 0), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        _, dim = _split_of(spec)
        rank = _checked_rank_cpp(spec, access)
        return CppCheck(f"{dim} < -{rank} || {dim} >= {rank}")

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        tensor, _ = _split_of(spec)
        return split_axis(_checked_rank(spec, args[tensor].shape), spec.split_dim(_values(args))) is None

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        split = spec.split or spec.reduce_dim
        assert split is not None
        rank = _checked_rank(spec, base[split.tensor].shape)
        if isinstance(split.dim, str):
            return [({**base, split.dim: replace(base[split.dim], value=value)}, ()) for value in (rank, -rank - 1)]
        return [({**base, split.tensor: replace(base[split.tensor], shape=())}, ())]  # a literal dim: a 0-d tensor


class CheckSplitEven(CheckKind):
    kind: ClassVar[str] = "split_even"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckSplitDim")
    tiling: ClassVar[bool] = True
    split_even: list[Identifier] = Field(
        min_length=1, max_length=1, description="the split tensor (split.tensor): its size along the split dim is even"
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        _resolve_split(resolver, self.split_even, path + ("split_even",), "an even-size check")
        split = resolver.spec.split
        if split is not None and self.split_even[0] != split.tensor:
            message = f"'{self.split_even[0]}' is not the split tensor '{split.tensor}'"
            resolver.report(path + ("split_even", 0), message, "invalid")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        tensor, _ = _split_of(spec)
        axis, setup = _split_axis_cpp(spec, row, access)
        return CppCheck(f"{cpp_shape(tensor, access)}.GetDim({axis}) % 2 != 0", setup)

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        tensor, _ = _split_of(spec)
        shape = args[tensor].shape
        axis = split_axis(_checked_rank(spec, shape), spec.split_dim(_values(args)))
        # a 0-d tensor counted as 1-d has no size along dim to be odd (ops-nn reads an invalid dim, which is even)
        return axis is None or (axis < len(shape) and shape[axis] % 2 != 0)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        tensor, _ = _split_of(spec)
        shape = list(base[tensor].shape)
        axis = split_axis(len(shape), spec.split_dim(_values(base)))
        if axis is None:
            return []
        shape[axis] = shape[axis] + 1 if shape[axis] % 2 == 0 else shape[axis]
        return [(model.with_outputs({**base, tensor: replace(base[tensor], shape=tuple(shape))}), ())]


class CheckSplitShape(CheckKind):
    kind: ClassVar[str] = "split_shape"
    cpp_helper: ClassVar[tuple[str, str]] = ("CheckShape", "CheckSplitShape")
    tiling: ClassVar[bool] = True
    relational: ClassVar[bool] = True
    split_shape: list[Identifier] = Field(
        min_length=1,
        description="tensors of a half-split operator whose shape must follow the split tensor's: a half's (its size "
        "along the split dim halved), or the split tensor's own for a full-size one (an output written per half)",
    )

    def resolve_names(self, resolver: Resolver, path: FieldPath) -> None:
        _resolve_split(resolver, self.split_shape, path + ("split_shape",), "a split shape check")

    def cpp(self, spec: OpSpec, row: int, access: CppAccess = OP_API_ACCESS) -> CppCheck:
        tensor, _ = _split_of(spec)
        axis, setup = _split_axis_cpp(spec, row, access)
        half = f"splitHalfShape{row}"
        setup += (
            f"{access.shape_type} {half} = {cpp_shape(tensor, access)};",
            f"{half}.SetDim({axis}, {half}.GetDim({axis}) / 2);",
        )
        whole = cpp_shape(tensor, access)
        parts = [f"{cpp_shape(n, access)} != {whole if spec.full_size(n) else half}" for n in self.split_shape]
        return CppCheck(" || ".join(parts), setup)

    def fails(self, spec: OpSpec, args: Args, null_outputs: tuple[str, ...], soc: str) -> bool:
        tensor, _ = _split_of(spec)
        shape = args[tensor].shape
        dim = spec.split_dim(_values(args))
        axis = split_axis(_checked_rank(spec, shape), dim)
        if axis is not None and axis >= len(shape):
            return True  # a 0-d tensor counted as 1-d: its half's size along dim is invalid, no shape has it
        half = half_shape(shape, dim)
        return any(args[n].shape != (shape if spec.full_size(n) else half) for n in self.split_shape)

    def mutations(self, model: CallModel, base: Args) -> list[Mutation]:
        spec = model.spec
        tensor, _ = _split_of(spec)
        shape = base[tensor].shape
        half = half_shape(shape, spec.split_dim(_values(base)))
        mutations: list[Mutation] = [
            ({**base, n: replace(base[n], shape=half if spec.full_size(n) else shape)}, ()) for n in self.split_shape
        ]
        # every half-size tensor full-size at once: an earlier row may tie their shapes (GeGluBackward's gelu to
        # gradOutput's), so that one alone fails that row first
        halves = [n for n, arg in base.items() if arg.kind == "tensor" and n != tensor and not spec.full_size(n)]
        if any(n in halves for n in self.split_shape) and len(halves) > 1:
            mutations.append(({**base, **{n: replace(base[n], shape=shape) for n in halves}}, ()))
        return mutations


def _values(args: Args) -> dict[str, object]:
    """The host values of a call's arguments (the split dim among them)."""
    return {name: arg.value for name, arg in args.items() if arg.kind != "tensor"}


CHECK_KINDS: tuple[type[CheckKind], ...] = (
    CheckNotNull,
    CheckDtypeSupported,
    CheckSameDtype,
    CheckPromotable,
    CheckCastable,
    CheckPromotedDtype,
    CheckScalarsCastable,
    CheckMaxRank,
    CheckMinRank,
    CheckBroadcast,
    CheckSameShape,
    CheckChannelSize,
    CheckChannelSumShape,
    CheckOneElement,
    CheckRejectIf,
    CheckOneOf,
    CheckDimRange,
    CheckSplitEven,
    CheckSplitShape,
)
CHECK_MODELS: dict[str, type[CheckKind]] = {kind.kind: kind for kind in CHECK_KINDS}
# The op_api's check functions (no parameter may take one of these names).
CHECK_FUNCTION_NAMES = frozenset(name for kind in CHECK_KINDS for name in kind.cpp_helper) | {
    "CheckParams",
    "CheckNonEmptyParams",
}
