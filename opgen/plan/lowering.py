"""Lowering a mode-specialised formula to an Ascend C vector program.

The program is a straight-line list of vector instructions over UB buffers (input/output queue tensors,
VECCALC temporaries, compare masks) plus host-uniform scalars. It is the single model behind the kernel's
`Compute` (opgen.emit.kernel), the UB budget of the tiling (how many tile-sized buffers are live), and the
bit-exact numpy model of the kernel's precision path (opgen.plan.kernel_model).

Rules (SoC-independent; the SoC decides `compute`):
- tensors whose storage dtype is not the compute dtype are Cast to it once (CAST_NONE, exact), and the
  result is Cast back with CAST_RINT, or CAST_TRUNC into an integer dtype (ops-nn's truncated integer results);
  INT8/UINT8 reach FLOAT through a FLOAT16 carrier, their only conversion;
- an operand known on the host (scalar parameter, constant, or arithmetic of those) uses the scalar form
  of an API (Adds, Muls, Maxs, Mins, CompareScalar (A2/A3 have no Compares), tensor-scalar Select) or is
  Duplicated once;
- `where(x > 0, x, x * s)` becomes one LeakyRelu (seed 004's API);
- a math function lowers as its record in the function table says (opgen.formula.functions): one Ascend C
  API (Exp, Ln, Tanh, Erf, Sigmoid, ...), or a composition rewritten into IR that lowers by these rules
  (log1p, expm1, softplus, erfinv); an advanced math API never writes into one of its sources;
- temporaries are reused as soon as their value is dead (linear scan), so the number of live tile-sized
  buffers is what the formula needs, no more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from opgen import formula as F
from opgen.spec.dtypes import DType


class LoweringError(ValueError):
    pass


@dataclass(frozen=True)
class Buffer:
    """A tile-sized UB region. `kind`: input/output (queue tensors), temp (VECCALC), mask (compare bits)."""

    kind: str
    index: int
    dtype: DType
    name: str = ""  # the parameter, for input/output

    @property
    def cpp(self) -> str:
        if self.kind == "input":
            return f"{self.name}Local"
        if self.kind == "output":  # the one output of a kernel is outLocal; each of several is named after itself
            return "outLocal" if self.name == "out" else f"{self.name}Local"
        if self.kind == "mask":
            return f"mask{self.index}"
        return f"tmp{self.index}"


@dataclass(frozen=True)
class Scalar:
    """A host-uniform operand: a constant or a named float computed once per kernel launch."""

    expr: F.Expr  # uniform IR: constants and scalar parameters only
    slot: str | None = None  # C++ variable holding it (None for a literal constant)

    @property
    def constant(self) -> float | None:
        return self.expr.value if isinstance(self.expr, F.Const) else None


@dataclass(frozen=True)
class Instr:
    api: str  # AscendC function name
    dst: Buffer
    srcs: tuple[Buffer, ...] = ()
    scalar: Scalar | None = None
    mode: str | None = None  # CMPMODE / SELMODE / RoundMode enumerator
    padded_count: bool = False  # count rounded up to whole 256-byte repeats (Compare)
    distinct_dst: bool = False  # dst may not share a buffer with a source (the advanced math APIs)


@dataclass(frozen=True)
class ScalarSlot:
    name: str
    expr: F.Expr


@dataclass
class VectorProgram:
    storage: DType
    compute: DType
    inputs: list[Buffer]
    outputs: list[Buffer]  # in the operator's output order; one kernel writes each (queue tensors)
    temps: list[Buffer]
    masks: list[Buffer]
    slots: list[ScalarSlot]
    instrs: list[Instr]
    apis: list[str] = field(default_factory=list)
    # Scalar parameters this program is exact for only while they are finite (see `lower(exact=...)`).
    assumes_finite: tuple[str, ...] = ()

    @property
    def output(self) -> Buffer:
        """The first output (the only one of a one-output kernel)."""
        return self.outputs[0]

    def ub_bytes_per_element(self, buffer_num: int) -> float:
        """UB bytes one element of a tile costs: double-buffered queues (every input and output) + temporaries +
        mask bits."""
        queues = (len(self.inputs) + len(self.outputs)) * buffer_num * self.storage.itemsize
        return queues + len(self.temps) * self.compute.itemsize + len(self.masks) / 8

    def live_buffers(self, buffer_num: int) -> int:
        return (len(self.inputs) + len(self.outputs)) * buffer_num + len(self.temps) + len(self.masks)


_CMP_MODE = {"lt": "LT", "le": "LE", "gt": "GT", "ge": "GE", "eq": "EQ", "ne": "NE"}
_SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_MAX_INTEGER_EXPONENT = 16  # x ** n for integer |n| up to this is a Mul chain (at most 7 Muls)


def is_uniform(expr: F.Expr) -> bool:
    return not F.free_names(expr, F.SymbolKind.TENSOR)


class _Lowerer:
    def __init__(self, storage: DType, compute: DType, inputs: list[str], outputs: list[str], exact: bool = False):
        self.storage, self.compute = storage, compute
        self.exact = exact
        self.assumes_finite: set[str] = set()
        self.inputs = {name: Buffer("input", i, storage, name) for i, name in enumerate(inputs)}
        self.outputs = [Buffer("output", i, storage, name) for i, name in enumerate(outputs)]
        self.instrs: list[Instr] = []
        self.slots: dict[F.Expr, ScalarSlot] = {}
        # computed values by node; a min/max inside a composition by (node, True): see `first_on_tie`
        self.values: dict[F.Expr | tuple[F.Expr, bool], Buffer | Scalar] = {}
        self.in_composition = False
        self.virtual = 0

    # ---- helpers

    def temp(self, dtype: DType | None = None) -> Buffer:
        self.virtual += 1
        return Buffer("temp", self.virtual, dtype or self.compute)

    def mask(self) -> Buffer:
        self.virtual += 1
        return Buffer("mask", self.virtual, DType.UINT8)

    def emit(
        self,
        api: str,
        dst: Buffer,
        *srcs: Buffer,
        scalar: Scalar | None = None,
        mode: str | None = None,
        padded: bool = False,
        distinct: bool = False,
    ) -> Buffer:
        if api not in F.KERNEL_APIS:  # the list specs are validated against (kernel.vector_apis)
            raise AssertionError(f"the lowering emits {api}, which formula.KERNEL_APIS does not list")
        self.instrs.append(Instr(api, dst, tuple(srcs), scalar, mode, padded, distinct))
        return dst

    def scalar(self, expr: F.Expr) -> Scalar:
        expr = F.fold_constants(expr)
        if isinstance(expr, F.Const):
            return Scalar(expr)
        if expr not in self.slots:
            self.slots[expr] = ScalarSlot(f"s{len(self.slots)}", expr)
        return Scalar(expr, self.slots[expr].name)

    def as_buffer(self, value: Buffer | Scalar) -> Buffer:
        if isinstance(value, Buffer):
            return value
        return self.emit("Duplicate", self.temp(), scalar=value)

    # ---- lowering

    def value(self, node: F.Expr) -> Buffer | Scalar:
        key: F.Expr | tuple[F.Expr, bool] = node
        if self.in_composition and isinstance(node, F.Binary) and node.op in ("min", "max"):
            key = (node, True)
        if key in self.values:
            return self.values[key]
        result = self.lower(node)
        self.values[key] = result
        return result

    def lower(self, node: F.Expr) -> Buffer | Scalar:
        if is_uniform(node):
            if F.flags_used(node):
                raise LoweringError("mode flags must be specialised away before lowering")
            return self.scalar(node)
        if isinstance(node, F.Name):
            buffer = self.inputs[node.name]
            for dtype in _cast_path(self.storage, self.compute):
                buffer = self.emit("Cast", self.temp(dtype), buffer, mode="CAST_NONE", distinct=True)
            return buffer
        leaky = self.leaky_relu(node)
        if leaky is not None:
            return leaky
        if isinstance(node, F.Unary):  # neg
            return self.emit("Muls", self.temp(), self.as_buffer(self.value(node.x)), scalar=Scalar(F.Const(-1.0)))
        if isinstance(node, F.Binary):
            return self.binary(node)
        if isinstance(node, F.Call):
            return self.call(node)
        if isinstance(node, F.Compare):
            return self.compare(node)
        if isinstance(node, F.Select):
            return self.select(node)
        raise LoweringError(f"cannot lower {F.to_text(node)} to vector instructions yet")

    def leaky_relu(self, node: F.Expr) -> Buffer | None:
        """where(x > 0, x, x * s) (or s * x, or >=) -> LeakyRelu(dst, x, s)."""
        if not (isinstance(node, F.Select) and isinstance(node.cond, F.Compare)):
            return None
        cond, x = node.cond, node.a
        if cond.op not in ("gt", "ge") or cond.a != x or cond.b != F.Const(0.0) or is_uniform(x):
            return None
        other = node.b
        if not (isinstance(other, F.Binary) and other.op == "mul"):
            return None
        slope = other.b if other.a == x else other.a if other.b == x else None
        if slope is None or not is_uniform(slope):
            return None
        # LeakyRelu takes the slope branch by the sign bit, so at x = +0 it returns 0 where IEEE gives 0 * s:
        # NaN for a NaN or infinite slope. Exact for a finite slope (up to the sign of a zero result).
        folded = F.fold_constants(slope)
        if isinstance(folded, F.Const):
            if not math.isfinite(folded.value):
                return None
        elif self.exact:
            return None
        else:
            self.assumes_finite.update(F.free_names(slope))
        return self.emit("LeakyRelu", self.temp(), self.as_buffer(self.value(x)), scalar=self.scalar(slope))

    def binary(self, node: F.Binary) -> Buffer:
        a, b = self.value(node.a), self.value(node.b)
        op = node.op
        if op == "pow":
            return self.power(node, a)
        if isinstance(a, Buffer) and isinstance(b, Buffer):
            api = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "min": "Min", "max": "Max"}[op]
            return self.first_on_tie(node, a, b, self.emit(api, self.temp(), a, b))
        tensor, scalar = (a, b) if isinstance(a, Buffer) else (b, a)
        tensor_first = isinstance(a, Buffer)
        assert isinstance(scalar, Scalar) and isinstance(tensor, Buffer)
        if op in ("add", "mul", "min", "max"):
            api = {"add": "Adds", "mul": "Muls", "min": "Mins", "max": "Maxs"}[op]
            return self.first_on_tie(node, a, b, self.emit(api, self.temp(), tensor, scalar=scalar))
        if op == "sub" and tensor_first:
            return self.emit("Adds", self.temp(), tensor, scalar=self.scalar(F.Unary("neg", scalar.expr)))
        if op == "sub":
            negated = self.emit("Muls", self.temp(), tensor, scalar=Scalar(F.Const(-1.0)))
            return self.emit("Adds", self.temp(), negated, scalar=scalar)
        # division keeps its rounding: the scalar is Duplicated rather than turned into a reciprocal
        spread = self.as_buffer(scalar)
        return self.emit("Div", self.temp(), *((tensor, spread) if tensor_first else (spread, tensor)))

    def first_on_tie(self, node: F.Binary, a: Buffer | Scalar, b: Buffer | Scalar, result: Buffer) -> Buffer:
        """min/max return the operand `F.tie_operands` puts first on a tie, as torch does: the tensor against a bound
        (clamp, relu: relu6(-0.0) and hardtanh(-0.0, 0, 1) are -0.0), the first of two tensors (torch.maximum).
        The documentation of Max/Maxs/Min/Mins does not say which zero they return, so where a zero can tie, that
        operand is selected wherever the result equals it (whichever zero the API chose; NaN never equals, so it
        stays). An integer has one zero (an integer output too, whatever the compute dtype); a nonzero constant
        never ties at zero. A function's composition (softplus's max(x, 0) + log1p(...)) is written so its zeros'
        signs do not matter and takes the API as it is."""
        if node.op not in ("min", "max") or self.compute.is_integral or self.storage.is_integral:
            return result
        if self.in_composition:
            return result
        for side in (a, b):
            if isinstance(side, Scalar) and side.constant is not None and side.constant != 0:
                return result
        kept = a if F.tie_operands(node)[0] is node.a else b
        assert isinstance(kept, Buffer)  # a bound known on the host is never kept over a tensor
        mask = self.emit("Compare", self.mask(), result, kept, mode="EQ", padded=True)
        return self.emit("Select", self.temp(), mask, kept, result, mode="VSEL_TENSOR_TENSOR_MODE")

    def power(self, node: F.Binary, base: Buffer | Scalar) -> Buffer:
        exponent = F.fold_constants(node.b)
        base = self.as_buffer(base)
        if not isinstance(exponent, F.Const):
            raise LoweringError("the exponent of ** must be a constant to lower it")
        n = exponent.value
        if n == 0.5:
            return self.emit("Sqrt", self.temp(), base)
        if n == -0.5:
            return self.emit("Rsqrt", self.temp(), base)
        if not (n.is_integer() and abs(n) <= _MAX_INTEGER_EXPONENT):
            raise LoweringError(
                f"cannot lower x ** {n:g} yet (integer exponents up to {_MAX_INTEGER_EXPONENT}, 0.5, -0.5)"
            )
        if n == 0:  # x ** 0 is 1 for every x, NaN included (IEEE pow, torch)
            return self.emit("Duplicate", self.temp(), scalar=Scalar(F.Const(1.0)))
        positive = self.integer_power(base, int(abs(n)))
        return self.emit("Reciprocal", self.temp(), positive) if n < 0 else positive

    def integer_power(self, base: Buffer, n: int) -> Buffer:
        """base ** n (n >= 1) by binary powering: x**2 = x*x, x**3 = x*x*x as before, x**4 = (x*x)*(x*x), ..."""
        result: Buffer | None = None
        square = base
        while True:
            if n & 1:
                result = square if result is None else self.emit("Mul", self.temp(), result, square)
            n >>= 1
            if not n:
                break
            square = self.emit("Mul", self.temp(), square, square)
        assert result is not None
        return result

    def call(self, node: F.Call) -> Buffer:
        function = F.FUNCTIONS[node.func]
        lowering = function.lowering
        if isinstance(lowering, F.Composition):
            outer, self.in_composition = self.in_composition, True
            try:
                rewritten = self.value(F.fold_constants(lowering.build(*node.args)))
            finally:
                self.in_composition = outer
            assert isinstance(rewritten, Buffer)  # it reads the (tensor) argument
            return rewritten
        if self.compute.cpp_type not in lowering.dtypes:
            raise LoweringError(
                f"{node.func}() lowers to {lowering.name}, which takes {'/'.join(lowering.dtypes)}, "
                f"not {self.compute.cpp_type}; compute this dtype in float (kernel.compute_in_float)"
            )
        x = self.as_buffer(self.value(node.args[0]))
        return self.emit(lowering.name, self.temp(), x, distinct=not lowering.in_place)

    def compare(self, node: F.Compare) -> Buffer:
        a, b = self.value(node.a), self.value(node.b)
        if isinstance(a, Buffer):
            if isinstance(b, Buffer):
                return self.emit("Compare", self.mask(), a, b, mode=_CMP_MODE[node.op], padded=True)
            return self.emit("CompareScalar", self.mask(), a, scalar=b, mode=_CMP_MODE[node.op], padded=True)
        assert isinstance(b, Buffer)
        return self.emit("CompareScalar", self.mask(), b, scalar=a, mode=_CMP_MODE[_SWAPPED[node.op]], padded=True)

    def select(self, node: F.Select) -> Buffer:
        cond = node.cond
        if isinstance(cond, F.Logical) and not is_uniform(cond):
            # masks are not combined bitwise; the selection is nested instead (exact for NaN too)
            if cond.op == "not":
                nested = F.Select(cond.args[0], node.b, node.a)
            elif cond.op == "and":
                first, second = cond.args
                nested = F.Select(first, F.Select(second, node.a, node.b), node.b)
            else:
                first, second = cond.args
                nested = F.Select(first, node.a, F.Select(second, node.a, node.b))
            selected = self.value(nested)
            assert isinstance(selected, Buffer)  # the condition reads a tensor, so the selection is one too
            return selected
        if is_uniform(node.cond):
            raise LoweringError("a where() whose condition is known on the host cannot be lowered yet")
        mask = self.value(node.cond)
        if not (isinstance(mask, Buffer) and mask.kind == "mask"):
            raise LoweringError("where() conditions must be comparisons of tensors")
        a, b = self.value(node.a), self.value(node.b)
        a = self.as_buffer(a)  # a scalar true-branch is Duplicated: inverting the mask would change NaN handling
        if isinstance(b, Scalar):
            return self.emit("Select", self.temp(), mask, a, scalar=b, mode="VSEL_TENSOR_SCALAR_MODE")
        return self.emit("Select", self.temp(), mask, a, b, mode="VSEL_TENSOR_TENSOR_MODE")

    # ---- finishing: output, register allocation

    def finish(self, roots: list[F.Expr]) -> VectorProgram:
        """Each root into its output buffer, in order; a value several outputs share is computed once."""
        for root, output in zip(roots, self.outputs, strict=True):
            self.write(root, output)
        instrs, temps, masks = _allocate(self.instrs)
        apis = sorted({i.api for i in instrs})
        return VectorProgram(
            self.storage,
            self.compute,
            list(self.inputs.values()),
            list(self.outputs),
            temps,
            masks,
            list(self.slots.values()),
            instrs,
            apis,
        )

    def write(self, root: F.Expr, output: Buffer) -> None:
        result = self.value(root)
        if isinstance(result, Scalar):
            result = self.emit("Duplicate", self.temp(), scalar=result)
        elif result.kind in ("input", "output") or (self.compute is self.storage and self.instrs[-1].dst != result):
            # an input, a value an earlier output already holds, or one computed before the last instruction (a
            # value an earlier output's expression used): copied, as only the last instruction can be retargeted
            result = self.emit("Muls", self.temp(), result, scalar=Scalar(F.Const(1.0)))
        if self.compute is self.storage:
            last = self.instrs[-1]
            assert last.dst == result
            self.instrs[-1] = replace(last, dst=output)
            # a later output reading this value reads it from the output buffer (the temporary is never written)
            for node, value in list(self.values.items()):
                if value == result:
                    self.values[node] = output
        else:
            # into an integer dtype truncate toward zero at every step (toward zero in FLOAT16 never crosses an
            # integer, so INT8 gets trunc(x) through it); a floating dtype rounds to nearest
            mode = "CAST_TRUNC" if self.storage.is_integral else "CAST_RINT"
            path = _cast_path(self.compute, self.storage)
            for dtype in path[:-1]:
                result = self.emit("Cast", self.temp(dtype), result, mode=mode, distinct=True)
            self.emit("Cast", output, result, mode=mode)


# The vector unit converts INT8 and UINT8 only to and from FLOAT16: to compute them in FLOAT, FLOAT16 carries them.
_CARRIER = {DType.INT8: DType.FLOAT16, DType.UINT8: DType.FLOAT16}


def _cast_path(source: DType, target: DType) -> list[DType]:
    """The dtypes a value passes through from `source` to `target`, one Cast each (none when they are equal)."""
    if source is target:
        return []
    for integer, carrier in _CARRIER.items():
        if target is not carrier and (source is integer or target is integer) and carrier not in (source, target):
            return [carrier, target]
    return [target]


def _allocate(instrs: list[Instr]) -> tuple[list[Instr], list[Buffer], list[Buffer]]:
    """Map virtual temporaries/masks to as few physical buffers as possible (linear scan, in-place allowed).
    Physical temporaries are sized for the compute dtype; a value of a narrower dtype reuses one."""
    last_use: dict[Buffer, int] = {}
    for i, instr in enumerate(instrs):
        for src in instr.srcs:
            last_use[src] = i
    free: dict[str, list[Buffer]] = {"temp": [], "mask": []}
    physical: dict[str, list[Buffer]] = {"temp": [], "mask": []}
    mapping: dict[Buffer, Buffer] = {}
    result: list[Instr] = []
    for i, instr in enumerate(instrs):
        srcs = tuple(mapping.get(s, s) for s in instr.srcs)
        # sources dying here free their buffers first, so the destination may reuse one (in place) - unless the
        # API forbids dst/src overlap, then they are freed after the destination is placed
        dying = [
            physical[v.kind][mapping[v].index]
            for v in instr.srcs
            if v.kind in free and last_use.get(v) == i and v in mapping
        ]
        if not instr.distinct_dst:
            _release(free, dying)
        dst = instr.dst
        if dst.kind in free:
            pool = free[dst.kind]
            if pool:
                phys = pool.pop(0)
            else:
                phys = Buffer(dst.kind, len(physical[dst.kind]), dst.dtype)
                physical[dst.kind].append(phys)
            # the buffer keeps the value's dtype: a FLOAT16 carrier lives in a FLOAT temporary (reinterpreted)
            mapping[dst] = replace(phys, dtype=dst.dtype)
            dst = mapping[dst]
            if last_use.get(instr.dst) is None:  # never read: free again immediately
                pool.append(phys)
        if instr.distinct_dst:
            _release(free, dying)
        result.append(replace(instr, dst=dst, srcs=srcs))
    return result, physical["temp"], physical["mask"]


def _release(free: dict[str, list[Buffer]], buffers: list[Buffer]) -> None:
    for phys in buffers:
        if phys not in free[phys.kind]:
            free[phys.kind].append(phys)


def lower(expr: F.Expr, *, inputs: list[str], storage: DType, compute: DType, exact: bool = False) -> VectorProgram:
    """`expr` must be specialised (no mode flags); `inputs` lists the tensor names in kernel order.

    With `exact`, no fusion is used whose result differs from IEEE arithmetic for non-finite scalar
    parameters; without it, such fusions are used and the scalars they assume finite are recorded in
    `VectorProgram.assumes_finite`, so the kernel can pick the exact program when one of them is not.
    """
    return lower_outputs({"out": expr}, inputs=inputs, storage=storage, compute=compute, exact=exact)


def lower_outputs(
    exprs: dict[str, F.Expr], *, inputs: list[str], storage: DType, compute: DType, exact: bool = False
) -> VectorProgram:
    """One program writing several outputs (`exprs`: output name -> its specialised expression, in output
    order), each into its own output buffer; subexpressions they share are computed once. A single output
    is named `out` (the kernel's outLocal); see `lower` for `exact`."""
    lowerer = _Lowerer(storage, compute, inputs, list(exprs), exact)
    program = lowerer.finish([F.fold_constants(expr) for expr in exprs.values()])
    program.assumes_finite = tuple(sorted(lowerer.assumes_finite))
    return program
