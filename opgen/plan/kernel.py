"""What the AI Core kernel of an operator consists of: one lowered vector program per (dtype, mode).

A "mode" is one combination of the formula's flags (e.g. isResult); dtype x mode picks the tiling key.
The plan is SoC-independent: a dtype is computed in float when the spec asks for it, when any supported SoC
lacks vector arithmetic for it (bf16 on A2/A3), or when a math function of the formula is not precise enough
computed in it (the function table's measured error), so one kernel source serves every supported SoC.
Integer dtypes follow the A2/A3 type lists too: computed in the integer where every API takes it, otherwise
through a floating type with the result truncated (`integer_compute_dtype`).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from opgen import formula as F
from opgen.lang import Code, ident
from opgen.plan.lowering import LoweringError, VectorProgram, is_uniform, lower_outputs
from opgen.plan.opdef import opdef_plan
from opgen.plan.schedules import schedule_for
from opgen.spec.dtypes import AICORE_DTYPES, DType
from opgen.spec.formula_binding import kernel_formulas
from opgen.spec.model import OpSpec, Param, ParamKind
from opgen.spec.socs import get_soc

BUFFER_NUM = 2  # double-buffered queues
REPEAT_BYTES = 256  # one repeat of a vector instruction
BLOCK_BYTES = 32  # DataCopy moves whole 32-byte blocks
# The dtype digit of the tiling key: every storage dtype an AI Core kernel takes, in their order.
_DTYPE_CODE = {dtype: code for code, dtype in enumerate(AICORE_DTYPES, start=1)}
# Integer dtypes the vector unit computes in directly, with the APIs that take them on A2/A3 (the Ascend C API
# reference's type lists; Ascend 950 takes a superset): integer arithmetic, exact where it does not overflow.
_INTEGER_VECTOR_APIS = {
    DType.INT32: frozenset({"Add", "Sub", "Mul", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "Relu", "Duplicate"}),
    DType.INT16: frozenset({"Add", "Sub", "Mul", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "Duplicate"}),
}


ModeValue = bool | int | str


@dataclass(frozen=True)
class ModeAxis:
    """A parameter that selects the kernel program: a bool flag, or an int64/string parameter with `values`."""

    name: str
    values: tuple[ModeValue, ...]  # in mode-index order: (False, True) for a flag

    @property
    def is_flag(self) -> bool:
        return self.values == (False, True)

    def label(self, value: ModeValue) -> str:
        """How variant names spell this axis' value: isResult1, approximate_tanh."""
        if isinstance(value, bool):
            return f"{self.name}{int(value)}"
        text = str(value).replace("-", "m").replace(".", "_").replace("+", "p")
        return f"{self.name}_{text}"


@dataclass(frozen=True)
class KernelVariant:
    key: int
    storage: DType
    mode: tuple[tuple[str, ModeValue], ...]  # mode-parameter values, by name
    mode_index: int
    program: VectorProgram
    exact: bool = False  # lowered for non-finite scalars (see KernelPlan.guards)
    # an integer dtype computed through a floating type whose results need not be integers: truncated toward zero
    truncates: bool = False
    # the outcome of each of KernelPlan.conditions this variant's program was lowered for
    conditions: tuple[bool, ...] = ()
    # what the schedule runs before `program` (a reduction's levels: `Schedule.lower`)
    stages: tuple = ()

    @property
    def compute(self) -> DType:
        return self.program.compute

    @property
    def align_elements(self) -> int:
        """Tile lengths are whole 256-byte repeats of the compute type and whole 32-byte blocks of storage."""
        return max(REPEAT_BYTES // self.compute.itemsize, BLOCK_BYTES // self.storage.itemsize)

    @property
    def bits_per_element(self) -> int:
        return int(self.program.ub_bytes_per_element(BUFFER_NUM) * 8)

    @property
    def key_name(self) -> str:
        """The named constant of its tiling key, shared by the host tiling and the kernel: TILING_KEY_FLOAT16,
        TILING_KEY_FLOAT_IS_RESULT1."""
        return "TILING_KEY_" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", self.name).upper()

    @property
    def name(self) -> str:
        flags = (
            "_".join(f"{k}{int(v)}" if isinstance(v, bool) else ModeAxis(k, (v,)).label(v) for k, v in self.mode)
            + "".join(f"_when{i}{int(v)}" for i, v in enumerate(self.conditions))
            + ("_nonfinite" if self.exact else "")
        )
        return f"{self.storage.value.lower()}{'_' + flags.lstrip('_') if flags else ''}"


@dataclass(frozen=True)
class KernelPlan:
    flags: tuple[str, ...]
    scalars: tuple[str, ...]  # scalar parameters carried in the tiling data (float)
    inputs: tuple[str, ...]  # tensor input parameter names, kernel argument order
    variants: tuple[KernelVariant, ...]
    # Scalars some fast program assumes finite: when one is NaN or infinite, the tiling sets the mode bit
    # after the flags' bits and the kernel runs the exact program, so both follow IEEE arithmetic.
    guards: tuple[str, ...] = ()
    # int64/string parameters with `values` the formula uses: after the flags, each a mixed-radix digit of
    # the mode index (the position of its value in `values`).
    enums: tuple[ModeAxis, ...] = ()
    # the computed outputs, kernel argument order after the inputs: ("out",) for one (written to its one output
    # parameter), else the output parameters' names
    outputs: tuple[str, ...] = ("out",)
    # scalars carried as one-element tensor inputs (opdef.inputs): the kernel reads each value from GM once
    gm_scalars: tuple[str, ...] = ()
    # the buffers the lowered programs read, where they are not `inputs` (a half split reads each half of its
    # split tensor: `Schedule.kernel_inputs`)
    streams: tuple[str, ...] = ()
    # conditions of where() known on the host (over scalars, as SituGlu's linearBeta > 0): the tiling evaluates
    # each and sets its mode bit (after the flags and int64/string digits, before the guard), and each outcome
    # has its own program computing one branch only
    conditions: tuple[F.Expr, ...] = ()

    @property
    def program_inputs(self) -> tuple[str, ...]:
        """The buffers the lowered programs read, one UB queue each."""
        return self.streams or self.inputs

    def compute_of(self, storage: DType) -> DType | None:
        """The dtype the kernel computes `storage` in (None: no AI Core kernel takes it, e.g. a routed DOUBLE)."""
        return next((v.program.compute for v in self.variants if v.storage is storage), None)

    @property
    def axes(self) -> tuple[ModeAxis, ...]:
        return tuple(ModeAxis(f, (False, True)) for f in self.flags) + self.enums

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(axis.name for axis in self.axes)

    @property
    def mode_count(self) -> int:
        """How many mode indices there are (each condition and the guard double them); the first index no variant
        has."""
        return self.guard_stride * (2 if self.guards else 1)

    def strides(self) -> dict[str, int]:
        """What one step of each axis adds to the mode index; the guard's is `guard_stride`."""
        strides, stride = {}, 1
        for axis in self.axes:
            strides[axis.name] = stride
            stride *= len(axis.values)
        return strides

    @property
    def guard_stride(self) -> int:
        return self.condition_stride(len(self.conditions))

    def condition_stride(self, index: int) -> int:
        """What condition `index` holding adds to the mode index (past the axes' digits)."""
        stride = 1
        for axis in self.axes:
            stride *= len(axis.values)
        return stride * 2**index

    def outcomes(self, scalars: dict[str, float]) -> tuple[bool, ...]:
        """Each condition's outcome for these host values (as the tiling evaluates it, in float)."""
        return tuple(bool(F.evaluate(cond, scalars, None)) for cond in self.conditions)

    def modes(self) -> list[dict[str, ModeValue]]:
        """Every combination of the mode parameters' values, in mode-index order."""
        names = self.mode_names
        combos = itertools.product(*(axis.values for axis in self.axes))
        return sorted((dict(zip(names, combo, strict=True)) for combo in combos), key=self.index_of)

    def index_of(self, mode: dict[str, ModeValue]) -> int:
        return mode_index(self.axes, mode)

    def variant(
        self, storage: DType, mode: dict[str, ModeValue], scalars: dict[str, float] | None = None
    ) -> KernelVariant:
        """The variant the tiling picks for these mode values and (for guarded plans) scalar values."""
        wanted = tuple(sorted(mode.items()))
        exact = any(not math.isfinite((scalars or {}).get(name, 0.0)) for name in self.guards)
        outcomes = self.outcomes(scalars or {})
        return next(
            v
            for v in self.variants
            if v.storage is storage and v.mode == wanted and v.exact == exact and v.conditions == outcomes
        )


def aicore_dtypes(spec: OpSpec) -> list[DType]:
    first = spec.tensor_inputs[0]
    return [d for d in first.dtypes if d not in spec.routing.aicpu and d in _DTYPE_CODE and spec.result_dtype(d) is d]


def compute_dtype(spec: OpSpec, storage: DType, exprs: F.Expr | tuple[F.Expr, ...]) -> DType:
    """The dtype the kernel computes `storage` in, for the formula (or every output's formula: one program)."""
    exprs = exprs if isinstance(exprs, tuple) else (exprs,)
    if storage.is_integral:
        return integer_compute_dtype(spec, storage, exprs)
    if storage in spec.kernel.compute_in_float:
        return DType.FLOAT
    if storage is DType.BFLOAT16 and not all(get_soc(s.soc).bf16_vector_arith for s in spec.supported_socs):
        return DType.FLOAT
    # a function whose lowering is not precise enough in this dtype (the function table's measured error), or
    # has no API for it, makes the whole kernel compute in float
    functions = {node.func for expr in exprs for node in F.walk(expr) if isinstance(node, F.Call)}
    if not all(F.FUNCTIONS[f].precise_in(storage.numpy.name) for f in functions):
        return DType.FLOAT
    return storage


def integer_compute_dtype(spec: OpSpec, storage: DType, exprs: F.Expr | tuple[F.Expr, ...]) -> DType:
    """How the kernel computes an integer dtype, as ops-nn's kernels do: in the integer itself when every API of
    the program takes it and the formulas are integer arithmetic (INT32 Relu/Maxs); otherwise in a floating type
    the integer converts to exactly: INT8/UINT8 -> FLOAT16 (the only conversion the vector unit has for them) when
    the formulas only compare, select and clamp, else FLOAT through FLOAT16; INT16/INT32 -> FLOAT; the result is
    cast back with truncation (ops-nn's "result truncated to INT32")."""
    exprs = exprs if isinstance(exprs, tuple) else (exprs,)
    native = _INTEGER_VECTOR_APIS.get(storage)
    if native is not None and storage not in spec.kernel.compute_in_float and all(map(_integer_exact, exprs)):
        outputs = {f"out{i}": expr for i, expr in enumerate(exprs)}  # one program, as the kernel computes them
        try:
            program = lower_outputs(
                outputs, inputs=[p.name for p in spec.tensor_inputs], storage=storage, compute=storage
            )
        except LoweringError:
            program = None
        if program is not None and set(program.apis) <= native:
            return storage
    if storage in (DType.INT8, DType.UINT8) and all(map(_order_only, exprs)):
        return DType.FLOAT16  # exact: every result is an input value or a small integral constant
    return DType.FLOAT  # INT8/UINT8 through FLOAT16 (the only conversion the vector unit has for them)


def _integer_exact(expr: F.Expr) -> bool:
    """+, -, *, min, max of tensors and integral constants: what integer vector arithmetic computes exactly."""
    for node in F.walk(expr):
        if isinstance(node, F.Const) and not float(node.value).is_integer():
            return False
        if isinstance(node, (F.Call, F.Compare, F.Select, F.Logical)):
            return False
        if isinstance(node, F.Binary) and node.op not in ("add", "sub", "mul", "min", "max"):
            return False
    return True


def _order_only(expr: F.Expr) -> bool:
    """The formula only compares, selects and clamps (no arithmetic on tensors): every value it produces is an
    input or a constant, so FLOAT16 carries INT8 results exactly when the constants are small integers."""
    for node in F.walk(expr):
        if isinstance(node, F.Const) and not (float(node.value).is_integer() and abs(node.value) <= 2048):
            return False
        if isinstance(node, F.Binary) and node.op not in ("min", "max") and not is_uniform(node):
            return False
        if isinstance(node, (F.Call, F.Unary)) and not is_uniform(node):
            return False
    return True


def mode_index(
    axes: tuple[ModeAxis, ...], mode: dict[str, ModeValue], exact: bool = False, outcomes: tuple[bool, ...] = ()
) -> int:
    """Mixed radix: each axis' value position times the product of the earlier axes' sizes; then a bit per host
    condition; the guard last."""
    index, stride = 0, 1
    for axis in axes:
        index += axis.values.index(mode[axis.name]) * stride
        stride *= len(axis.values)
    for outcome in outcomes:
        index += int(outcome) * stride
        stride *= 2
    return index + int(exact) * stride


def mode_axes(spec: OpSpec, exprs: F.Expr | tuple[F.Expr, ...]) -> tuple[tuple[str, ...], tuple[ModeAxis, ...]]:
    """The formula's (or every output formula's) flags (sorted) and its int64/string mode parameters (spec
    order)."""
    exprs = exprs if isinstance(exprs, tuple) else (exprs,)
    flags = tuple(sorted({flag for expr in exprs for flag in F.flags_used(expr)}))
    used = {name for expr in exprs for name in F.free_names(expr)}
    enums = tuple(
        ModeAxis(p.name, tuple(p.values)) for p in spec.params if p.is_mode and p.values is not None and p.name in used
    )
    return flags, enums


def specialise(expr: F.Expr, mode: dict[str, ModeValue]) -> F.Expr:
    """The formula for one mode: flags, int64 and string values substituted, then folded."""
    return F.fold_constants(F.substitute(expr, dict(mode)))


def host_conditions(exprs: tuple[F.Expr, ...]) -> tuple[F.Expr, ...]:
    """The conditions of where() that read no tensor and remain once the modes are substituted (a comparison of
    scalars, as SituGlu's linearBeta > 0), in first-use order."""
    found: list[F.Expr] = []
    for expr in exprs:
        for node in F.walk(expr, unique=True):
            cond = node.cond if isinstance(node, F.Select) else None
            if cond is not None and is_uniform(cond) and not F.is_constant(cond) and cond not in found:
                found.append(cond)
    return tuple(found)


def decide(expr: F.Expr, conditions: tuple[F.Expr, ...], outcomes: tuple[bool, ...]) -> F.Expr:
    """`expr` with each host condition replaced by its outcome, folded: a where() on it becomes one branch."""
    if not conditions:
        return expr
    known = dict(zip(conditions, outcomes, strict=True))
    return F.fold_constants(F.rewrite(expr, lambda node: F.BoolConst(known[node]) if node in known else node))


def tiling_key(storage: DType, index: int) -> int:
    if index >= 10:
        raise LoweringError(f"{index + 1} kernel modes do not fit the tiling key (dtype * 10 + mode)")
    return _DTYPE_CODE[storage] * 10 + index


def kernel_plan(spec: OpSpec) -> KernelPlan:
    exprs = kernel_formulas(spec)
    outputs = tuple(exprs) if len(exprs) > 1 else ("out",)
    every = tuple(exprs.values())  # every output's formula counts for the modes, scalars and compute dtype
    flags, enums = mode_axes(spec, every)
    axes = KernelPlan(flags, (), (), (), (), enums).axes
    names = [axis.name for axis in axes]
    # the inputs the kernel reads, in the OpDef's order (an input the API passes null is not read)
    opdef = opdef_plan(spec)
    inputs = tuple(str(i.param) for i in opdef.read_inputs)
    read = schedule_for(spec).kernel_inputs(inputs)
    streams = read if read != inputs else ()
    gm_scalars = tuple(str(i.param) for i in opdef.scalar_inputs)
    used = {name for expr in every for name in F.free_names(expr)}
    scalars = tuple(p.name for p in spec.params if _carried(p) and p.name in used and p.name not in gm_scalars)

    modes = [dict(zip(names, values, strict=True)) for values in itertools.product(*(axis.values for axis in axes))]
    conditions = host_conditions(tuple(specialise(e, mode) for mode in modes for e in every))
    every_outcome = list(itertools.product((False, True), repeat=len(conditions)))

    schedule = schedule_for(spec)

    def program(
        storage: DType, mode: dict[str, ModeValue], outcomes: tuple[bool, ...], exact: bool = False
    ) -> tuple[VectorProgram, tuple]:
        compute = compute_dtype(spec, storage, every)
        specialised = {
            name: decide(specialise(e, mode), conditions, outcomes)
            for name, e in zip(outputs, exprs.values(), strict=True)
        }
        return schedule.lower(specialised, list(read), storage, compute, exact)

    fast: dict[tuple[DType, tuple[ModeValue, ...], tuple[bool, ...]], tuple[VectorProgram, tuple]] = {}
    for storage in aicore_dtypes(spec):
        for mode in modes:
            for outcomes in every_outcome:
                fast[storage, tuple(mode.values()), outcomes] = program(storage, mode, outcomes)
    guards = tuple(sorted({name for lowered, _ in fast.values() for name in lowered.assumes_finite}))
    variants = []
    for (storage, values, outcomes), lowered in fast.items():
        mode = dict(zip(names, values, strict=True))
        for exact in (False, True) if guards else (False,):
            chosen, stages = program(storage, mode, outcomes, exact=True) if exact else lowered
            index = mode_index(axes, mode, exact, outcomes)
            key = tiling_key(storage, index)
            truncates = (
                storage.is_integral
                and chosen.compute.is_floating
                and not all(_order_only(decide(specialise(e, mode), conditions, outcomes)) for e in exprs.values())
            )
            variant = KernelVariant(
                key, storage, tuple(sorted(mode.items())), index, chosen, exact, truncates, outcomes, stages
            )
            variants.append(variant)
    return KernelPlan(flags, scalars, inputs, tuple(variants), guards, enums, outputs, gm_scalars, streams, conditions)


def _carried(param: Param) -> bool:
    """A number the kernel reads from the tiling data (float): an aclScalar, a double, or an int64 that is not a
    mode."""
    return param.kind in (ParamKind.SCALAR, ParamKind.DOUBLE) or (param.kind is ParamKind.INT64 and not param.is_mode)


def tiling_struct(spec: OpSpec) -> Code:
    return ident(f"{spec.operator.type}TilingData")


def kernel_entry(spec: OpSpec) -> str:
    """The kernel's entry function and the OpDef's opFile.value: the operator directory, as in ops-nn, where the
    directory need not be snake_case(OpType) (softshrink/ holds OpType SoftShrink); the runtime finds the kernel
    through opFile.value. A directory's later operators (a spec file of several) use their own stem."""
    return spec.operator.file_stem
