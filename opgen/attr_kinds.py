"""OpDef attribute kinds: what `this->Attr(name).AttrType(...).<Kind>(default)` declares, one record per kind.

Everything opgen does with an attribute that depends on its kind is here: which spec values it takes, which API
parameters it may carry, its C++ default literal in the OpDef, the value the L0 op passes for it (OP_ATTR), what
gert::RuntimeAttrs holds at its index, and how a host tiling reads a dimension from it. The spec (validation), the
plan (the OpDef plan) and the emitters (L0 op, tiling) ask this module instead of branching on the kind's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from opgen.lang import Code, cpp
from opgen.types import ParamKind

AttrKindName = Literal["Float", "Int", "Bool", "String", "ListInt"]
SpecValue = bool | int | float | str | list[int]


@dataclass(frozen=True)
class AttrKind:
    name: str  # the OpDef's value method (Float, Int, ...), also the docs' and the pinned table's word
    values: tuple[type, ...]  # the Python types a spec value of it has (exact: a bool is no Int)
    runtime_ctype: str  # what gert::RuntimeAttrs holds at its index (GetAttrPointer<...>)
    carries: tuple[ParamKind, ...]  # the API parameter kinds it may carry
    _literal: Callable[[SpecValue], Code]
    # how OP_ATTR passes a value the API fixes (the attribute's default literal given)
    _fixed: Callable[[Code], Code] = lambda literal: literal
    is_list: bool = False  # a list attribute: an int64 parameter reaches it as a one-element list
    # the AICPU kernel's C type of the value and its read from `AttrValue* {attr}` ("" where no AICPU kernel reads it)
    aicpu_ctype: str = ""
    aicpu_read: str = ""

    def accepts(self, value: object) -> bool:
        if self.is_list:
            return isinstance(value, list) and all(type(v) in self.values for v in value)
        return type(value) in self.values

    def literal(self, value: SpecValue) -> Code:
        """The C++ default of the OpDef declaration: `.Int(-1)`, `.ListInt({-1})`."""
        return self._literal(value)

    def fixed(self, literal: Code) -> Code:
        """What OP_ATTR takes for a value the API fixes (a Float passed as float, an Int as int64_t)."""
        return self._fixed(literal)

    def aicpu_value(self, attr: str) -> Code:
        """The AICPU kernel's expression of the value `AttrValue* attr` holds."""
        if not self.aicpu_read:
            raise ValueError(f"an AICPU kernel reads no {self.name} attribute")
        return Code(self.aicpu_read.format(attr=attr))

    def dim_reader(self, index: int) -> tuple[Code, ...]:
        """A host tiling's lines that read the attribute at `index` of `attrs` (a const gert::RuntimeAttrs*) as a
        dimension, into `const int64_t* dimValue`, returning ge::GRAPH_FAILED where it has none."""
        if not self.is_list:
            return (
                Code(f"const int64_t* dimValue = attrs->GetAttrPointer<{self.runtime_ctype}>({index});"),
                Code("if (dimValue == nullptr) {"),
                Code("  return ge::GRAPH_FAILED;"),
                Code("}"),
            )
        # as ops-nn's SoftmaxV2 tiling reads its axes: an absent or empty list is the last dim, one dim at most
        return (
            Code(f"const gert::TypedContinuousVector<int64_t>* dimList = attrs->GetListInt({index});"),
            Code("if (dimList != nullptr && dimList->GetSize() > 1) {"),
            Code("  return ge::GRAPH_FAILED;"),
            Code("}"),
            Code("static const int64_t lastDim = -1;"),
            Code("const bool noList = dimList == nullptr || dimList->GetSize() == 0;"),
            Code("const int64_t* dimValue = noList ? &lastDim : dimList->GetData();"),
        )


def _int_list(value: SpecValue) -> Code:
    assert isinstance(value, list)
    return Code("{" + ", ".join(str(int(v)) for v in value) + "}")


KINDS: dict[str, AttrKind] = {
    k.name: k
    for k in (
        AttrKind(
            "Float",
            (int, float),
            "float",
            (ParamKind.SCALAR, ParamKind.DOUBLE),
            lambda v: cpp.float_literal(float(v)),  # type: ignore[arg-type]
            lambda literal: Code(f"static_cast<float>({literal})"),
            aicpu_ctype="double",
            aicpu_read="static_cast<double>({attr}->GetFloat())",
        ),
        AttrKind(
            "Int",
            (int,),
            "int64_t",
            (ParamKind.INT64,),
            lambda v: Code(str(int(v))),  # type: ignore[arg-type]
            lambda literal: Code(f"static_cast<int64_t>({literal})"),
            aicpu_ctype="int64_t",
            aicpu_read="{attr}->GetInt()",
        ),
        AttrKind(
            "Bool",
            (bool,),
            "bool",
            (ParamKind.BOOL,),
            lambda v: Code("true" if v else "false"),
            aicpu_ctype="bool",
            aicpu_read="{attr}->GetBool()",
        ),
        # an int64 parameter with `values` may be carried as its text (GeluV2's approximate)
        AttrKind("String", (str,), "char", (ParamKind.STRING, ParamKind.INT64), lambda v: cpp.string(str(v))),
        # ops-nn's softmax family carries its dim as `axes` ListInt({-1}); the L0 op passes {dim}
        AttrKind(
            "ListInt",
            (int,),
            "gert::TypedContinuousVector<int64_t>",
            (ParamKind.INT64,),
            _int_list,
            is_list=True,
            aicpu_ctype="int64_t",
            # the carried int64 is the list's one value (an empty list: the last dim, as the tiling reads it)
            aicpu_read="({attr}->ListIntSize() == 0 ? -1 : {attr}->GetListInt()[0])",
        ),
    )
}

# The attribute kind each host parameter kind is carried as, unless the spec's opdef.attrs says otherwise.
NATURAL: dict[ParamKind, AttrKind] = {
    ParamKind.SCALAR: KINDS["Float"],
    ParamKind.BOOL: KINDS["Bool"],
    ParamKind.INT64: KINDS["Int"],
    ParamKind.DOUBLE: KINDS["Float"],  # ops-nn's OpDef declares a double as Float (the generated aclnn converts it)
    ParamKind.STRING: KINDS["String"],
}


def kind(name: str) -> AttrKind:
    return KINDS[name]
