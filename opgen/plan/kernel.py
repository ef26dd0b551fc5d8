"""What the AI Core kernel of an operator consists of: one lowered vector program per (dtype, mode).

A "mode" is one combination of the formula's flags (e.g. isResult); dtype x mode picks the tiling key.
The plan is SoC-independent: a dtype is computed in float when the spec asks for it, when any supported SoC
lacks vector arithmetic for it (bf16 on A2/A3), or when a math function of the formula is not precise enough
computed in it (the function table's measured error), so one kernel source serves every supported SoC.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from opgen import formula as F
from opgen.lang import Code, cpp, ident
from opgen.plan.lowering import LoweringError, VectorProgram, lower
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import kernel_formula
from opgen.spec.model import OpSpec, ParamKind
from opgen.spec.socs import get_soc

BUFFER_NUM = 2  # double-buffered queues
_DTYPE_CODE = {DType.FLOAT: 1, DType.FLOAT16: 2, DType.BFLOAT16: 3}


@dataclass(frozen=True)
class KernelVariant:
    key: int
    storage: DType
    mode: tuple[tuple[str, bool], ...]  # flag values
    mode_index: int
    program: VectorProgram
    exact: bool = False  # lowered for non-finite scalars (see KernelPlan.guards)

    @property
    def compute(self) -> DType:
        return self.program.compute

    @property
    def align_elements(self) -> int:
        """Tile lengths are whole 256-byte repeats of the compute type and whole 32-byte blocks of storage."""
        return max(256 // self.compute.itemsize, 32 // self.storage.itemsize)

    @property
    def bits_per_element(self) -> int:
        return int(self.program.ub_bytes_per_element(BUFFER_NUM) * 8)

    @property
    def name(self) -> str:
        flags = "_".join(f"{k}{int(v)}" for k, v in self.mode) + ("_nonfinite" if self.exact else "")
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

    @property
    def mode_bits(self) -> int:
        return len(self.flags) + (1 if self.guards else 0)

    def variant(self, storage: DType, mode: dict[str, bool], scalars: dict[str, float] | None = None) -> KernelVariant:
        """The variant the tiling picks for these flag values and (for guarded plans) scalar values."""
        wanted = tuple(sorted(mode.items()))
        exact = any(not math.isfinite((scalars or {}).get(name, 0.0)) for name in self.guards)
        return next(v for v in self.variants if v.storage is storage and v.mode == wanted and v.exact == exact)


def aicore_dtypes(spec: OpSpec) -> list[DType]:
    first = spec.tensor_inputs[0]
    return [d for d in first.dtypes if d not in spec.routing.aicpu and d in _DTYPE_CODE]


def compute_dtype(spec: OpSpec, storage: DType, expr: F.Expr) -> DType:
    if storage in spec.kernel.compute_in_float:
        return DType.FLOAT
    if storage is DType.BFLOAT16 and not all(get_soc(s.soc).bf16_vector_arith for s in spec.supported_socs):
        return DType.FLOAT
    # a function whose lowering is not precise enough in this dtype (the function table's measured error), or
    # has no API for it, makes the whole kernel compute in float
    functions = {node.func for node in F.walk(expr) if isinstance(node, F.Call)}
    if not all(F.FUNCTIONS[f].precise_in(storage.numpy.name) for f in functions):
        return DType.FLOAT
    return storage


def mode_index(flags: tuple[str, ...], mode: dict[str, bool], exact: bool = False) -> int:
    return sum(1 << i for i, flag in enumerate(flags) if mode[flag]) + (int(exact) << len(flags))


def tiling_key(storage: DType, index: int) -> int:
    if index >= 10:
        raise LoweringError(f"{index + 1} kernel modes do not fit the tiling key (dtype * 10 + mode)")
    return _DTYPE_CODE[storage] * 10 + index


def kernel_plan(spec: OpSpec) -> KernelPlan:
    expr = kernel_formula(spec)
    flags = tuple(sorted(F.flags_used(expr)))
    inputs = tuple(p.name for p in spec.tensor_inputs)
    used = set(F.free_names(expr))
    scalars = tuple(p.name for p in spec.params if p.kind is ParamKind.SCALAR and p.name in used)
    fast: dict[tuple[DType, tuple[bool, ...]], VectorProgram] = {}
    for storage in aicore_dtypes(spec):
        for values in itertools.product((False, True), repeat=len(flags)):
            mode = dict(zip(flags, values, strict=True))
            compute = compute_dtype(spec, storage, expr)
            specialised = F.specialize(expr, mode)
            fast[storage, values] = lower(specialised, inputs=list(inputs), storage=storage, compute=compute)
    guards = tuple(sorted({name for program in fast.values() for name in program.assumes_finite}))
    variants = []
    for (storage, values), program in fast.items():
        mode = dict(zip(flags, values, strict=True))
        for exact in (False, True) if guards else (False,):
            if exact:
                compute = compute_dtype(spec, storage, expr)
                specialised = F.specialize(expr, mode)
                program = lower(specialised, inputs=list(inputs), storage=storage, compute=compute, exact=True)
            index = mode_index(flags, mode, exact)
            key = tiling_key(storage, index)
            variants.append(KernelVariant(key, storage, tuple(sorted(mode.items())), index, program, exact))
    return KernelPlan(flags, scalars, inputs, tuple(variants), guards)


@dataclass(frozen=True)
class OpDefAttr:
    name: Code  # the OpDef attribute name
    param: Code  # the API parameter
    kind: Code  # "Float" or "Bool"
    default: Code  # C++ literal
    index: int


def opdef_attrs(spec: OpSpec) -> list[OpDefAttr]:
    """Scalars and flags the kernel needs, in spec order; their position is the runtime attr index."""
    used = set(F.free_names(kernel_formula(spec)))
    attrs: list[OpDefAttr] = []
    for param in spec.params:
        if param.kind is ParamKind.TENSOR or param.name not in used:
            continue
        if param.kind is ParamKind.SCALAR:
            default = cpp.float_literal(float(param.default if param.default is not None else 0.0))
            attrs.append(OpDefAttr(ident(param.opdef), ident(param.name), Code("Float"), default, len(attrs)))
        else:
            value = Code("true" if param.default else "false")
            attrs.append(OpDefAttr(ident(param.opdef), ident(param.name), Code("Bool"), value, len(attrs)))
    return attrs


def tiling_struct(spec: OpSpec) -> Code:
    return ident(f"{spec.operator.type}TilingData")


def kernel_entry(spec: OpSpec) -> str:
    """The kernel's entry function and the OpDef's opFile.value: the operator directory, as in ops-nn, where the
    directory need not be snake_case(OpType) (softshrink/ holds OpType SoftShrink); the runtime finds the kernel
    through opFile.value. A directory's later operators (a spec file of several) use their own stem."""
    return spec.operator.file_stem
