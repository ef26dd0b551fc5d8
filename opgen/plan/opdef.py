"""The operator's graph interface (its OpDef): inputs, outputs and attributes in order, as ops-nn declares them.

Computed once from the spec (`opdef:` where the graph interface differs from the API's, else the API's tensors and
the host parameters the formula reads); the OpDef, shape inference, tiling, kernel signature and L0 op all follow
it, so the positions the runtime uses (input index, attribute index) are decided here only.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen import attr_kinds
from opgen import formula as F
from opgen.attr_kinds import AttrKind
from opgen.lang import Code, cpp, ident
from opgen.spec.formula_binding import kernel_formulas
from opgen.spec.model import OpDefAttrSpec, OpDefTensor, OpSpec, Param, ParamKind

FLOAT_CTYPE = Code("float")


@dataclass(frozen=True)
class OpDefIO:
    name: Code  # the OpDef name, also the kernel's GM argument
    param: str | None  # the API tensor it carries; None: an optional input passed as a null pointer
    optional: bool = False
    index: int = 0  # its position among the OpDef's inputs (or outputs)
    read: bool = True  # False: the kernel ignores it (passed null, or filled with a tensor another input carries)
    # an API scalar carried as a one-element tensor of the kernel's dtype: the L0 op converts it (ConvertToTensor)
    # and the kernel reads its one value from GM
    scalar: bool = False
    # with `scalar`: an API tensor of one element (shape.one_element) the L0 op passes as it is, not an aclScalar
    one_element: bool = False

    @property
    def param_type(self) -> Code:
        return Code("OPTIONAL" if self.optional else "REQUIRED")


@dataclass(frozen=True)
class OpDefAttr:
    name: Code  # the OpDef attribute name
    param: Code | None  # the API parameter it carries; None: the L0 op passes `constant`
    kind: Code  # "Float", "Bool", "Int", "String" or "ListInt" (`attr_kinds`)
    default: Code | None  # C++ literal; None: the OpDef gives none (`Float()`)
    index: int  # the runtime attribute index
    ctype: Code = FLOAT_CTYPE  # the runtime attribute's C type (GetAttrPointer<ctype>)
    required: bool = False
    # an int64 parameter carried as a String attribute: (API value, attribute text), in the parameter's order
    texts: tuple[tuple[int, str], ...] = ()
    constant: Code | None = None  # the C++ value the L0 op passes when no API parameter carries it

    @property
    def kind_record(self) -> AttrKind:
        return attr_kinds.kind(self.kind)

    @property
    def attr_type(self) -> Code:
        return Code("REQUIRED" if self.required else "OPTIONAL")

    def text_of(self, value: object) -> str:
        """The attribute's text for an API mode value (the value itself for a string parameter)."""
        return next((text for api, text in self.texts if api == value), str(value))


@dataclass(frozen=True)
class OpDefPlan:
    inputs: tuple[OpDefIO, ...]
    outputs: tuple[OpDefIO, ...]
    attrs: tuple[OpDefAttr, ...]

    @property
    def read_inputs(self) -> tuple[OpDefIO, ...]:
        """The API tensors the kernel reads (kernel and L0 argument order); the other inputs are passed null, a
        tensor an input read here carries, or a scalar (`scalar_inputs`)."""
        return tuple(i for i in self.inputs if i.read and not i.scalar)

    @property
    def scalar_inputs(self) -> tuple[OpDefIO, ...]:
        """The inputs carrying one value the kernel reads from GM, in the OpDef's order: an API scalar converted to a
        one-element tensor, or an API tensor of one element."""
        return tuple(i for i in self.inputs if i.scalar)

    def input_index(self, param: str) -> int:
        return next(i.index for i in self.inputs if i.read and i.param == param)

    def carries_as_tensor(self, param: str) -> bool:
        return any(i.param == param for i in self.scalar_inputs)

    def attr_of(self, param: str) -> OpDefAttr | None:
        return next((a for a in self.attrs if a.param == param), None)


def opdef_plan(spec: OpSpec) -> OpDefPlan:
    section = spec.opdef
    one_element = {p.name for p in spec.tensor_inputs if p.shape.one_element}  # read as scalars, like the above
    if section.inputs is not None:
        scalars = {p.name for p in spec.params if p.kind is ParamKind.SCALAR}
        inputs = [_io(t, i, t.param in scalars, t.param in one_element) for i, t in enumerate(section.inputs)]
    else:
        inputs = [
            OpDefIO(ident(p.opdef), p.name, index=i, scalar=p.shape.one_element, one_element=p.shape.one_element)
            for i, p in enumerate(spec.tensor_inputs)
        ]
    if section.outputs is not None:
        outputs = [_io(t, i) for i, t in enumerate(section.outputs)]
    else:
        outputs = [OpDefIO(ident(p.opdef), p.name, index=i) for i, p in enumerate(spec.outputs)]
    if section.attrs is not None:
        attrs = [_declared_attr(spec, a, i) for i, a in enumerate(section.attrs)]
    else:
        attrs = [_attr_of(p, ident(p.opdef), len_before) for len_before, p in enumerate(kernel_host_params(spec))]
    return OpDefPlan(tuple(inputs), tuple(outputs), tuple(attrs))


def kernel_host_params(spec: OpSpec) -> list[Param]:
    """Scalars, flags and int64/string parameters the kernel's formulas (or a half split) read and no OpDef input
    carries (those are the attributes), in spec order."""
    used = {name for expr in kernel_formulas(spec).values() for name in F.free_names(expr)}
    if spec.split is not None and isinstance(spec.split.dim, str):
        used.add(spec.split.dim)  # the tiling views the split tensor along it
    if spec.reduce_dim is not None and isinstance(spec.reduce_dim.dim, str):
        used.add(spec.reduce_dim.dim)  # the tiling views every tensor along it
    if spec.split is not None and spec.split.swap_when is not None:
        used.add(spec.split.swap_when)  # the tiling tells the kernel which half is which
    as_tensors = {t.param for t in spec.opdef.inputs or []}
    return [p for p in spec.params if p.kind is not ParamKind.TENSOR and p.name in used and p.name not in as_tensors]


def _io(tensor: OpDefTensor, index: int, scalar: bool = False, one_element: bool = False) -> OpDefIO:
    read = tensor.read and tensor.param is not None
    return OpDefIO(ident(tensor.name), tensor.param, tensor.optional, index, read, scalar or one_element, one_element)


def _declared_attr(spec: OpSpec, attr: OpDefAttrSpec, index: int) -> OpDefAttr:
    name = ident(attr.name)
    if attr.param is None:  # validated: kind and default are given
        assert attr.kind is not None
        value = _literal(attr.kind, attr.default)
        assert value is not None
        ctype = Code(attr_kinds.kind(attr.kind).runtime_ctype)
        return OpDefAttr(name, None, Code(attr.kind), value, index, ctype, attr.required, (), value)
    param = spec.param(attr.param)
    derived = _attr_of(param, name, index)
    kind = attr.kind or derived.kind
    ctype = Code(attr_kinds.kind(kind).runtime_ctype)
    if attr.default_given:
        default = _literal(kind, attr.default)
    elif attr_kinds.kind(kind).is_list:  # the parameter's default as a one-element list
        default = None if derived.default is None else attr_kinds.kind(kind).literal([int(derived.default)])
    else:
        default = derived.default
    if kind == "String" and param.kind is ParamKind.INT64:
        texts = tuple(attr.values.items())
        if not attr.default_given:  # the text of the parameter's default (else its first value)
            first = param.default if param.default is not None else (param.values or [0])[0]
            default = cpp.string(dict(texts)[int(first)])
        return OpDefAttr(name, derived.param, Code(kind), default, index, ctype, attr.required, texts)
    return OpDefAttr(name, derived.param, Code(kind), default, index, ctype, attr.required)


def _literal(kind: str, value: attr_kinds.SpecValue | None) -> Code | None:
    return None if value is None else attr_kinds.kind(kind).literal(value)


def _attr_of(param: Param, name: Code, index: int) -> OpDefAttr:
    """The attribute carrying an API parameter, with the parameter's default (or its null default)."""
    api = ident(param.name)
    kind = attr_kinds.NATURAL[param.kind].name
    if param.kind in (ParamKind.SCALAR, ParamKind.DOUBLE):
        default_value = param.null_default if param.default is None else param.default
        default = cpp.float_literal(float(default_value if default_value is not None else 0.0))
    elif param.kind is ParamKind.INT64:
        first = param.values[0] if param.values else 0
        default = Code(str(int(param.default if param.default is not None else first)))
    elif param.kind is ParamKind.STRING:
        assert param.values is not None  # validated: a string parameter lists its values
        default = cpp.string(str(param.default if param.default is not None else param.values[0]))
    else:
        default = Code("true" if param.default else "false")
    return OpDefAttr(name, api, Code(kind), default, index, Code(attr_kinds.kind(kind).runtime_ctype))
