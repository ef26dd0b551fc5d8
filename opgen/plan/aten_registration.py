"""The aten functions an operator registers with torch_npu (op-plugin): each overload's schema, the aclnn API that
implements it and how the API's C parameters map to its arguments, decided once from the spec and aten's schemas.

Schemas are derived from the spec: aten argument names are the params' Python names, `Tensor`/`Scalar`/`bool` come
from the param kinds, defaults from `default`, and the out variant's overload and argument name from the output
param's Python name (aten names the out tensor of most backward ops `grad_input`). A spec without `api.aten` is
registered as a torch_npu custom op `npu_<api>` (functional form only)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from opgen.plan.aten_binding import UnusedArg, unused_args
from opgen.plan.signature import ApiSignature
from opgen.spec import aten_unused
from opgen.spec.aten import aten_op
from opgen.spec.model import OpSpec, Param
from opgen.types import Direction, ParamKind

_SCHEMA_TYPES = {
    ParamKind.TENSOR: "Tensor",
    ParamKind.SCALAR: "Scalar",
    ParamKind.BOOL: "bool",
    ParamKind.INT64: "int",
    ParamKind.DOUBLE: "float",
    ParamKind.STRING: "str",
}
# An optional scalar or string (null_default) is `Scalar?` / `str?` in aten.
_OPTIONAL_SCHEMA_TYPES = {ParamKind.SCALAR: "Scalar?", ParamKind.STRING: "str?"}


class Variant(str, Enum):
    FUNCTIONAL = "functional"
    OUT = "out"
    INPLACE = "inplace"


@dataclass(frozen=True)
class AtenArg:
    name: str
    param: Param | None  # None: an aten argument the API does not take (api.aten_unused), typed `unused_type`
    mutable: bool = False  # Tensor(a!): written by the function (out tensor, in-place self)
    kwarg_only: bool = False
    aten_default: str | None = None  # the default as aten's own schema spells it (`1.` for celu's alpha)
    alias: str = "a"  # a mutable tensor's alias set: a, b, ... for the out tensors of several outputs
    unused_type: str = ""  # aten's type of an argument the API does not take, e.g. `Generator?`
    unused_cpp: str = ""  # the C++ type op-plugin's kernels take that argument as

    def schema(self) -> str:
        if self.param is None:
            return f"{self.unused_type} {self.name}=None"
        base = _OPTIONAL_SCHEMA_TYPES[self.param.kind] if self.param.nullable else _SCHEMA_TYPES[self.param.kind]
        kind = base + (f"({self.alias}!)" if self.mutable else "")
        default = "" if self.mutable else _schema_default(self.param, self.aten_default)
        return f"{kind} {self.name}{default}"


@dataclass(frozen=True)
class AtenFunction:
    """One aten overload, the aclnn API that implements it and how C parameters map to its arguments."""

    op: str  # e.g. leaky_relu_backward
    overload: str  # "" for the default overload, e.g. grad_input
    variant: Variant
    args: tuple[AtenArg, ...]
    api: ApiSignature
    c_names: dict[str, str]  # C parameter name -> aten argument / local variable name
    results: tuple[str, ...]  # names of the tensors the function returns (several: a tuple, as aten)
    official: bool
    # how the schema names each return (None: unnamed, as aten::_prelu_kernel_backward -> (Tensor, Tensor)); empty:
    # by the results' names
    return_names: tuple[str | None, ...] = ()

    @property
    def schema(self) -> str:
        parts: list[str] = []
        for arg in self.args:
            if arg.kwarg_only and "*" not in parts:
                parts.append("*")
            parts.append(arg.schema())
        if len(self.results) == 1:
            returns = "Tensor" if self.variant is Variant.FUNCTIONAL else "Tensor(a!)"
        elif self.variant is Variant.FUNCTIONAL:  # aten names several returns: (Tensor output, Tensor buffer)
            named = self.return_names or self.results
            returns = "(" + ", ".join("Tensor" + (f" {name}" if name else "") for name in named) + ")"
        else:
            returns = "(" + ", ".join(f"Tensor({alias(i)}!)" for i in range(len(self.results))) + ")"
        dotted = f"{self.op}.{self.overload}" if self.overload else self.op
        return f"{dotted}({', '.join(parts)}) -> {returns}"

    @property
    def cpp_name(self) -> str:
        """The C++ kernel name op-plugin uses: out overloads take an `_out` suffix."""
        return f"{self.op}_out" if self.variant is Variant.OUT else self.op


@dataclass(frozen=True)
class AtenRegistration:
    functions: tuple[AtenFunction, ...]  # functional, then out, then in-place
    adapter_op: str  # the aten op the adapter file is named after: api.aten, else npu_<api>


def _schema_default(param: Param, aten_default: str | None = None) -> str:
    value = param.default
    if value is None:
        return "=None" if param.nullable else ""
    if isinstance(value, bool):
        return f"={value}"
    if isinstance(value, str):
        return f'="{value}"'  # aten prints string defaults in double quotes (values hold no quotes)
    # aten's own spelling of the same number wins: `alpha=1.` for celu, `alpha=1` for elu
    if aten_default is not None and _same_number(aten_default, value):
        return f"={aten_default}"
    # aten prints integral Scalar defaults without a fraction (`Scalar alpha=1`).
    if param.kind is ParamKind.SCALAR and float(value).is_integer():
        return f"={int(value)}"
    return f"={value!r}"


def _same_number(text: str, value: int | float) -> bool:
    try:
        return float(text) == float(value)
    except ValueError:
        return False


def _aten_defaults(op: str) -> dict[str, str]:
    """{argument: default as printed} of aten's functional (else in-place) schema of `op`, if aten has it."""
    found = aten_op(op.removesuffix("_"))
    schema = None if found is None else (found.functional or found.inplace)
    return {} if schema is None else {a.name: a.default for a in schema.args if a.default is not None}


def alias(index: int) -> str:
    """A mutable tensor's alias set in a schema: a, b, ... by its position among the outputs."""
    return "abcdefgh"[index]


def _inputs(spec: OpSpec) -> list[Param]:
    return [p for p in spec.params if p.direction is Direction.INPUT]


def _unused(arg: UnusedArg) -> AtenArg:
    """An aten argument the API does not take: in the schema and the adapter's signature, never passed on."""
    return AtenArg(
        arg.name, None, kwarg_only=arg.kwarg_only, unused_type=arg.type, unused_cpp=aten_unused.CPP_TYPES[arg.type]
    )


def _with_unused(spec: OpSpec, args: tuple[AtenArg, ...], inplace: bool = False) -> tuple[AtenArg, ...]:
    return tuple(unused_args(spec).placed(list(args), lambda a: a.name, _unused, inplace))


def aten_functions(
    spec: OpSpec, with_out: bool, main: ApiSignature, inplace_api: ApiSignature | None
) -> list[AtenFunction]:
    """The aten overloads a spec binds: functional and out (official ops whose aten op has an out overload:
    the plan's binding_out) or functional only (custom ops), plus the in-place form when the spec names its
    aten op. `main` and `inplace_api`: the operator's planned signatures."""
    # every output the API takes, written or not, in its order: what aten returns
    outs = [p for p in spec.params if p.direction is Direction.OUTPUT]
    results = tuple(p.python for p in outs)
    official = spec.api.aten is not None
    spelled = _aten_defaults(spec.api.aten) if spec.api.aten is not None else {}
    inputs = tuple(
        AtenArg(p.python, p, kwarg_only=p.keyword_only, aten_default=spelled.get(p.python)) for p in _inputs(spec)
    )
    if official:
        inputs = _with_unused(spec, inputs)
    names = {p.name: p.python for p in spec.params}  # the output's name is its local variable / out argument
    op = spec.api.torch_npu_name
    found = aten_op(op) if official else None
    schema = found.functional if found is not None else None
    returned = tuple(r.name for r in schema.returns) if schema and len(schema.returns) == len(results) else ()
    functions = [AtenFunction(op, "", Variant.FUNCTIONAL, inputs, main, names, results, official, returned)]
    if official and with_out:  # selu and mish_backward have no out overload
        out_args = tuple(
            AtenArg(p.python, p, mutable=True, kwarg_only=True, alias=alias(i)) for i, p in enumerate(outs)
        )
        # aten names the out overload after its first output (out, grad_input, output)
        overload = outs[0].python
        functions.append(AtenFunction(op, overload, Variant.OUT, inputs + out_args, main, names, results, True))
    variant = spec.api.inplace
    sig = inplace_api
    if variant is not None and variant.aten is not None and sig is not None:
        target = spec.param(variant.replaces[0])
        kept = [p for p in _inputs(spec) if p.name == target.name or p.name not in variant.replaces]
        args = tuple(
            AtenArg(
                p.python,
                p,
                mutable=p.name == target.name,
                kwarg_only=p.keyword_only,
                aten_default=spelled.get(p.python),
            )
            for p in kept
        )
        args = _with_unused(spec, args, inplace=True)
        names = {c.name: c.param.python for c in sig.user_params if c.param is not None}
        inplace = AtenFunction(variant.aten, "", Variant.INPLACE, args, sig, names, (target.python,), official)
        functions.append(inplace)
    return functions


def aten_registration(
    spec: OpSpec, with_out: bool, main: ApiSignature, inplace_api: ApiSignature | None
) -> AtenRegistration:
    functions = tuple(aten_functions(spec, with_out, main, inplace_api))
    return AtenRegistration(functions, spec.api.aten or spec.api.torch_npu or f"npu_{spec.api.snake}")
