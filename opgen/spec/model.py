"""The typed spec model: what one `specs/<op>.yaml` says about one operator.

Field shapes are checked here (Pydantic, unknown keys forbidden); cross-references between fields
(names used by checks and formulas, dtype relations) are checked by `opgen.spec.validate`.
Every emitter is a pure function of an `OpSpec`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias, Union

from pydantic import AfterValidator, BaseModel, Discriminator, Field, Tag, model_validator

from opgen.attr_kinds import AttrKindName
from opgen.formula.parser import MAX_LENGTH as FORMULA_MAX_LENGTH
from opgen.spec.base import (
    MAX_RANK,
    AclnnName,
    AtenName,
    CamelName,
    Direction,
    DocName,
    FieldError,
    FiniteFloat,
    HeaderName,
    Identifier,
    ParamKind,
    Shape,
    SnakeName,
    snake_case,
)
from opgen.spec.base import Strict as _Strict
from opgen.spec.channel_broadcast import channel_count, channel_shape
from opgen.spec.checks import CHECK_MODELS, CheckKind, CheckRejectIf
from opgen.spec.dtypes import DType
from opgen.spec.half_split import full_shape, split_axis
from opgen.spec.socs import get_soc

# ---------------------------------------------------------------------------------------------- operator


class OperatorInfo(_Strict):
    type: CamelName = Field(description="OpType as registered in CANN, e.g. LeakyReluGrad")
    dir: SnakeName = Field(description="directory name under the category, e.g. leaky_relu_grad")
    category: SnakeName = Field(description="ops-nn category directory, e.g. activation")
    function: str = Field(description="算子功能 text (Chinese, Markdown allowed)")
    related: str | None = Field(None, description="forward/backward counterpart doc link shown in 算子功能")
    stem: SnakeName | None = Field(
        None,
        description="file stem of this operator's op_host, op_kernel and L0 op_api files and its kernel entry "
        "(default: dir); a spec file describing several operators of one directory (YAML documents separated "
        "by ---) gives each operator after the first its own, e.g. add_relu in relu/",
    )

    @property
    def file_stem(self) -> str:
        return self.stem or self.dir


class InplaceVariant(_Strict):
    name: AclnnName
    param: Identifier = Field(description="the in-place tensor parameter, e.g. selfRef")
    replaces: list[Identifier] = Field(description="parameters of the main API it stands for, e.g. [self, out]")
    aten: AtenName | None = Field(None, description="aten op name of the in-place form, e.g. leaky_relu_")
    ctype: CType | None = Field(
        None, description="C type of the in-place tensor when the header spells it otherwise, e.g. 'const aclTensor*'"
    )


class AtenForm(_Strict):
    """An extra binding with an aten op's full signature over this API, where aten spells a mode parameter
    differently (aten's gelu takes approximate as "none" | "tanh", aclnnGeluV2 as 0 | 1)."""

    name: AtenName = Field(description="the aten op, e.g. gelu; the binding takes its name and signature")
    values: dict[Identifier, dict[str, int | str]] = Field(
        default_factory=dict,
        description="parameter -> {aten's value: this API's value}, e.g. {approximate: {none: 0, tanh: 1}}",
    )


class ApiInfo(_Strict):
    name: AclnnName = Field(description="aclnn API name, e.g. aclnnLeakyReluBackward")
    aten: AtenName | None = Field(None, description="matching aten op, e.g. leaky_relu_backward")
    inplace: InplaceVariant | None = None
    doc_name: DocName | None = Field(
        None, description="doc file stem when APIs share a doc, e.g. aclnnLeakyRelu&aclnnInplaceLeakyRelu"
    )
    header: HeaderName | None = Field(
        None, description="the API's header where ops-nn does not derive it from the name, e.g. aclnn_logsigmoid.h"
    )
    aten_form: AtenForm | None = Field(
        None, description="an extra aten-named binding with aten's full signature over this API (see AtenForm)"
    )
    aten_unused: list[SnakeName] = Field(
        default_factory=list,
        description="aten arguments this API does not take, e.g. [generator] (aten's rrelu reads its Generator? only "
        "in training mode, which aclnnRrelu refuses): the bindings and torch_npu adapters take each where aten's "
        "schema has it, with aten's type and default None, and pass nothing on",
    )
    binding: SnakeName | None = Field(
        None,
        description="the Python binding's name where neither the aten op nor the API's snake case fits: when two "
        "APIs serve one aten op, the one implementing aten's full signature takes the aten name and the other "
        "this (aclnnGeluBackward, the tanh form only: gelu_backward_tanh)",
    )

    torch_npu: Annotated[str, Field(pattern=r"^npu_[a-z0-9_]+$", max_length=80)] | None = Field(
        None,
        description="the torch_npu op-plugin function's name where npu_<snake> is torch_npu's own op of another "
        "schema (aclnnSoftmaxCrossEntropyWithLogits returns loss and backprop, torch_npu's "
        "npu_softmax_cross_entropy_with_logits loss only): a name torch_npu does not use, so the generated entry and "
        "adapter drop in beside its own",
    )

    @property
    def snake(self) -> str:
        """`aclnnLeakyReluBackward` -> `leaky_relu_backward` (header aclnn_<snake>.h)."""
        return snake_case(self.name[len("aclnn") :])

    @property
    def compared_aten(self) -> str | None:
        """The aten op this API's results are compared with: `aten`, else the aten form's op."""
        return self.aten or (self.aten_form.name if self.aten_form else None)

    @property
    def torch_npu_name(self) -> str:
        """The torch_npu op: the aten op, else `torch_npu`, else a binding named like torch_npu's (npu_geglu runs
        aclnnGeGluV3), else npu_ and the API's snake case."""
        if self.aten or self.torch_npu:
            return self.aten or self.torch_npu or ""
        return self.binding if self.binding is not None and self.binding.startswith("npu_") else f"npu_{self.snake}"

    @property
    def binding_name(self) -> str:
        """The Python binding: `binding`, else the aten op, else the API's snake case."""
        return self.binding or self.aten or self.snake

    @property
    def doc_stem(self) -> str:
        return self.doc_name or self.name

    @property
    def header_name(self) -> str:
        """The header declaring the API (and its in-place form): `aclnn_<snake>.h` unless the spec says."""
        return self.header or f"aclnn_{self.snake}.h"


# ---------------------------------------------------------------------------------------------- SoCs


class SocSupport(_Strict):
    soc: str = Field(description="CANN SoC name, e.g. ascend910b (see opgen/spec/socs.py)")
    supported: bool = Field(description="√ or × in the product table")
    exclude_dtypes: list[DType] = Field(default_factory=list, description="dtypes this SoC lacks for every param")
    source: str | None = Field(None, description="where this fact comes from, e.g. an older doc")


class Routing(_Strict):
    aicpu: list[DType] = Field(
        default_factory=list,
        description="dtypes run by the AICPU kernel: DOUBLE (computed in double), INT8/UINT8/INT16/INT32/INT64 "
        "(computed in the integer itself, wrapping; the formula may use only + - * min max, comparisons, where and "
        "integral constants), COMPLEX64/COMPLEX128 (computed in std::complex<double>; the formula may use only "
        "+ - * /, real constants and functions with a complex definition: exp, log, sqrt, rsqrt, reciprocal, tanh, "
        "sigmoid, square)",
    )


# ---------------------------------------------------------------------------------------------- params

# A C parameter type as a header spells it: optional const, a type name, optional '*'.
CType = Annotated[str, Field(pattern=r"^(const )?[A-Za-z_][A-Za-z0-9_]*(\*)?$", max_length=40)]
# A string parameter's value: printable ASCII without quotes or backslashes (it becomes C and Python literals).
EnumValue = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.+-]+$", max_length=32)]

# The C type each parameter kind is, without const and pointer.
CTYPE_BASES = {
    ParamKind.TENSOR: "aclTensor",
    ParamKind.SCALAR: "aclScalar",
    ParamKind.BOOL: "bool",
    ParamKind.INT64: "int64_t",
    ParamKind.DOUBLE: "double",
    ParamKind.STRING: "char",
}


def ctype_base(ctype: str) -> str:
    return ctype.removeprefix("const ").rstrip("*")


class ShapeRelation(_Strict):
    broadcast_with: list[Identifier] = Field(default_factory=list, description="must broadcast with these")
    same_as: Identifier | None = Field(None, description="shape must equal this parameter's shape")
    broadcast_result_of: list[Identifier] = Field(
        default_factory=list, description="(outputs) shape equals the broadcast shape of these inputs"
    )
    channel_of: Identifier | None = Field(
        None,
        description="(inputs) one value per channel of this input, along its dim 1 (1 channel below rank 2): the "
        "element count is 1 or that channel count, whatever the shape (e.g. aclnnPrelu's weight); a "
        "channel_size error row checks it",
    )
    rows_of: Identifier | None = Field(
        None,
        description="(outputs of a reduce_dim operator) one value per row of this input: its shape without the reduced "
        "dim (aclnnSoftmaxCrossEntropyWithLogits' loss [N] of features [N, C]); the output's expression is a row "
        "reduction (its value the same along the row), written once per row",
    )
    one_element: bool = Field(
        False,
        description="(inputs) a tensor of exactly one element, whatever its shape ([], [1], [1, 1]), that the formula "
        "reads as a scalar: the kernel reads its one value from GM once (ops-nn's FatreluMul threshold); it takes "
        "no part in the output's shape, and a one_element error row refuses any other element count",
    )


class DtypeRelation(_Strict):
    promote_with: list[Identifier] = Field(default_factory=list, description="dtype promoted with these")
    same_as: Identifier | None = Field(None, description="dtype must equal this parameter's dtype")
    castable_from: list[Identifier] = Field(
        default_factory=list, description="(outputs) the promoted dtype of these must be castable to this one"
    )
    castable_to: DType | None = Field(None, description="(scalars) must be castable to this dtype")
    cast_inputs: bool = Field(
        False,
        description="(an output) the API casts every tensor input to this output's dtype before the kernel, which "
        "then computes in it (ops-nn's aclnnLogSoftmax); without it the kernel computes in the inputs' (promoted) "
        "dtype and the API casts its result to the output's (aclnnSoftmax)",
    )
    castable_to_promoted_of: list[Identifier] = Field(
        default_factory=list,
        description="(scalars) must be castable to the promoted dtype of these tensors (AddRelu's alpha: an integer "
        "self and other refuse a floating alpha)",
    )


class Param(_Strict):
    name: Identifier
    kind: ParamKind
    direction: Direction = Direction.INPUT
    description: str = Field("-", description="描述 column (Chinese)")
    notes: list[str] = Field(default_factory=list, description="extra 使用说明 lines not derived from facts")
    dtypes: list[DType] = Field(default_factory=list, description="数据类型; empty for bool params")
    formats: list[str] = Field(default_factory=list, description="数据格式, e.g. [ND]")
    rank: tuple[int, int] | None = Field(None, description="维度(shape) range, e.g. [0, 8]")
    non_contiguous: bool = Field(False, description="非连续Tensor supported")
    empty_tensor: bool = Field(False, description="支持空Tensor")
    shape: ShapeRelation = Field(default_factory=ShapeRelation)
    dtype: DtypeRelation = Field(default_factory=DtypeRelation)
    latex: str | None = Field(None, description="symbol in formulas, e.g. \\alpha")
    opdef_name: SnakeName | None = Field(None, description="name in the OpDef/kernel; default snake_case(name)")
    py_name: Identifier | None = Field(None, description="Python binding name; default snake_case(name)")
    default: bool | int | float | str | None = Field(None, description="default value in the Python binding")
    values: list[int] | list[EnumValue] | None = Field(
        None, description="(int64/string) the allowed values, in order; each selects a kernel mode"
    )
    ctype: CType | None = Field(
        None, description="C type exactly as the reference header spells it, e.g. 'char*' or 'aclScalar*'"
    )
    null_default: FiniteFloat | EnumValue | None = Field(
        None,
        description="(scalars, strings) the value a null pointer stands for: the parameter is optional (e.g. Swish's "
        "betaOptional; GeluMul's approximateOptional, where null means none)",
    )
    keyword_only: bool = Field(False, description="keyword-only in the Python binding (after aten's `*`)")
    written: bool = Field(
        True,
        description="(output tensors) false: the API takes the tensor but neither checks nor writes it, as ops-nn's "
        "aclnnLogSigmoidForward does with buffer; such an output has no dtypes, rank, relations or formula",
    )

    @model_validator(mode="after")
    def _kind_fields(self) -> Param:
        if not self.written:
            self._check_unwritten()
        elif self.kind is ParamKind.TENSOR:
            if not self.dtypes:
                raise ValueError("a tensor parameter needs 'dtypes'")
            if self.rank is None:
                raise ValueError("a tensor parameter needs 'rank', e.g. [0, 8]")
            if not 0 <= self.rank[0] <= self.rank[1] <= 8:
                raise FieldError("rank", f"rank range {list(self.rank)} must satisfy 0 <= min <= max <= 8")
        else:
            if self.direction is Direction.OUTPUT:
                raise FieldError("direction", f"a {self.kind.value} parameter cannot be an output")
            for key in ("formats", "rank", "non_contiguous", "empty_tensor"):
                if key in self.model_fields_set:
                    raise FieldError(key, f"'{key}' applies to tensor parameters only")
        if self.kind in (ParamKind.BOOL, ParamKind.INT64, ParamKind.DOUBLE, ParamKind.STRING) and self.dtypes:
            raise FieldError("dtypes", f"a {self.kind.value} parameter has no 'dtypes'")
        self._check_values()
        self._check_null_default()
        if self.ctype is not None:
            base = ctype_base(self.ctype)
            if base != CTYPE_BASES[self.kind]:
                raise FieldError(
                    "ctype", f"a {self.kind.value} parameter is a {CTYPE_BASES[self.kind]}, not {self.ctype!r}"
                )
        return self

    def _check_null_default(self) -> None:
        value = self.null_default
        if value is None:
            return
        if self.kind is ParamKind.SCALAR:
            if isinstance(value, str):
                raise FieldError("null_default", f"a scalar's null_default is a number, not {value!r}")
        elif self.kind is ParamKind.STRING:
            if not isinstance(value, str):
                raise FieldError("null_default", f"a string's null_default is one of its 'values', not {value!r}")
            if self.values is not None and value not in self.values:
                raise FieldError("null_default", f"the null_default {value!r} is not one of 'values' {self.values}")
        else:
            raise FieldError("null_default", "'null_default' applies to scalar and string parameters only")

    def _check_unwritten(self) -> None:
        if self.kind is not ParamKind.TENSOR or self.direction is not Direction.OUTPUT:
            raise FieldError("written", "only an output tensor can be left unwritten")
        # Nothing of it is checked or computed, so a fact about it would be stated for nothing.
        for key in ("dtypes", "formats", "rank", "non_contiguous", "empty_tensor", "shape", "dtype", "default"):
            if key in self.model_fields_set:
                raise FieldError(key, f"'{key}' says nothing about an output the API leaves unwritten")

    def _check_values(self) -> None:
        if self.values is None:
            if self.kind is ParamKind.STRING:
                raise FieldError("kind", "a string parameter needs 'values', the strings it accepts")
        else:
            wanted = {ParamKind.INT64: int, ParamKind.STRING: str}.get(self.kind)
            if wanted is None:
                raise FieldError("values", "'values' applies to int64 and string parameters only")
            if not self.values:
                raise FieldError("values", "'values' lists at least one value")
            if any(type(v) is not wanted for v in self.values):
                noun = "integers" if wanted is int else "strings"
                raise FieldError("values", f"the values of a {self.kind.value} parameter are {noun}")
            if len(set(self.values)) != len(self.values):
                raise FieldError("values", "'values' lists a value twice")
        if self.default is None:
            return
        expected = {
            ParamKind.BOOL: (bool,),
            ParamKind.INT64: (int,),
            ParamKind.DOUBLE: (float,),
            ParamKind.STRING: (str,),
            ParamKind.SCALAR: (int, float),
            ParamKind.TENSOR: (int, float, bool),
        }[self.kind]
        if type(self.default) not in expected:
            raise FieldError("default", f"{self.default!r} is not a default for a {self.kind.value} parameter")
        if self.kind is ParamKind.DOUBLE and not math.isfinite(self.default):  # type: ignore[arg-type]
            raise FieldError("default", "a double parameter's default is a finite number")
        if self.values is not None and self.default not in self.values:
            raise FieldError("default", f"the default {self.default!r} is not one of 'values' {self.values}")

    @property
    def is_mode(self) -> bool:
        """An int64 or string parameter with allowed values: each value selects a kernel mode."""
        return self.values is not None

    @property
    def nullable(self) -> bool:
        return self.null_default is not None

    @property
    def opdef(self) -> str:
        return self.opdef_name or snake_case(self.name)

    @property
    def python(self) -> str:
        return self.py_name or snake_case(self.name)

    @property
    def is_tensor(self) -> bool:
        return self.kind is ParamKind.TENSOR


# ---------------------------------------------------------------------------------------------- opdef


class OpDefTensor(_Strict):
    """One input or output of the OpDef (the graph interface), in the OpDef's order."""

    name: Identifier = Field(description="its name in the OpDef and the kernel signature, e.g. grads")
    param: Identifier | None = Field(
        None,
        description="the API tensor it carries, or an API scalar carried as a one-element tensor of the kernel's "
        "dtype (the L0 op converts it with ConvertToTensor and the kernel reads its one value from GM, as ops-nn's "
        "ThresholdV2 takes threshold and value); none: an optional input ops-nn's kernel takes and the API has "
        "none for (the L0 op passes a null pointer), e.g. MishGrad's tanhx",
    )
    optional: bool = Field(False, description="ParamType OPTIONAL (default REQUIRED)")
    read: bool = Field(
        True,
        description="false: an input ops-nn's kernel takes but never reads; its L0 op fills it with `param`, a "
        "tensor another input carries (GeluGrad's y gets gradOutput, SwishGrad's y gets x)",
    )

    @model_validator(mode="after")
    def _carried_or_optional(self) -> OpDefTensor:
        if self.param is None and not self.optional:
            raise FieldError("param", "name the API tensor it carries, or declare it 'optional: true' (passed null)")
        if self.param is None and not self.read:
            raise FieldError("read", "an unread input names the tensor the L0 op fills it with ('param')")
        return self


class OpDefAttrSpec(_Strict):
    """One attribute of the OpDef, in the OpDef's order."""

    name: Identifier = Field(description="its name in the OpDef, e.g. negative_slope")
    param: Identifier | None = Field(
        None,
        description="the API scalar, bool, int64 or string parameter it carries; none: the L0 op passes `default` "
        "(an attribute ops-nn's kernel reads that the API fixes, e.g. HardSigmoidGrad's alpha)",
    )
    kind: AttrKindName | None = Field(
        None,
        description="Float, Int, Bool, String or ListInt (an int64 parameter passed as a one-element list, as ops-nn's "
        "softmax family carries its dim: `axes` ListInt({-1})); default: the parameter's kind",
    )
    default: bool | int | float | str | list[int] | None = Field(
        None,
        description="the OpDef default; default: the parameter's ([the parameter's] for a ListInt); null: none is "
        "given (`Float()`, as CeluV2's alpha); a list for a ListInt, e.g. [-1]",
    )
    required: bool = Field(False, description="AttrType REQUIRED (default OPTIONAL)")
    values: dict[int, EnumValue] = Field(
        default_factory=dict,
        description="an int64 parameter carried as a String attribute: each API value -> the attribute's text, "
        "e.g. {0: none, 1: tanh} (GeluV2's approximate; the op_api converts it for the L0 call)",
    )

    @property
    def default_given(self) -> bool:
        return "default" in self.model_fields_set


class OpDefSection(_Strict):
    """The operator's graph interface (ops-nn's op_host/<op>_def.cpp) where it differs from the API's: the OpDef,
    shape inference, tiling, kernel signature and L0 op follow it. A list left out is derived from the API's
    parameters (tensor inputs, computed outputs, and the host parameters the formula reads, in order)."""

    inputs: list[OpDefTensor] | None = Field(
        None, description="every OpDef input in order; API tensor inputs not listed are not passed to the kernel"
    )
    outputs: list[OpDefTensor] | None = Field(None, description="every computed output, in order, by its OpDef name")
    attrs: list[OpDefAttrSpec] | None = Field(None, description="every OpDef attribute in order")


# ---------------------------------------------------------------------------------------------- formula


FormulaText = Annotated[str, Field(min_length=1, max_length=FORMULA_MAX_LENGTH)]


class Split(_Strict):
    """A half split (`opgen.spec.half_split`): the full-size input cut in two halves along `dim`, each named for the
    formula; the other tensors are half-size, but for an output written per half (`{halves: [...]}`)."""

    tensor: Identifier = Field(description="the full-size input tensor cut in two halves")
    dim: Identifier | int = Field(
        description="the int64 parameter giving the dimension to split along, or a literal dimension (e.g. -1) "
        "for an API without one"
    )
    halves: tuple[Identifier, Identifier] = Field(
        description="the names the formula uses for the first and the second half, e.g. [a, b]"
    )
    swap_when: Identifier | None = Field(
        None, description="a bool parameter: when it holds, the halves swap (the first named half is the second)"
    )
    zero_dim_as_one: bool = Field(
        False,
        description="the op_api's checks count a 0-d split tensor as 1-d (dim within [-1, 0]), as ops-nn's GeGlu "
        "APIs do; such a tensor still cannot be split: the split_shape row refuses it",
    )


class ReduceDim(_Strict):
    """A reduction along a dimension (`rowmax`/`rowsum` in the formula, the softmax family): every tensor has the
    reduced tensor's shape, and a row is the elements sharing every index but `dim`'s."""

    tensor: Identifier = Field(description="the input whose dimension `dim` the formula's reductions run along")
    dim: Identifier | int = Field(
        description="the int64 parameter giving the dimension to reduce along, or a literal dimension (e.g. -1)"
    )


class HalvesFormula(_Strict):
    """A full-size output of a half-split operator: one expression per half, written into its two halves."""

    halves: tuple[FormulaText, FormulaText] = Field(
        description="the expressions of the output's first and second half, over the halves and the other tensors"
    )


# The suffixes naming the two halves of a full-size output as the kernel writes them (gradInputFirst...).
HALF_SUFFIXES = ("First", "Second")


class Reduction(_Strict):
    """How an output is reduced from its elementwise expression after the kernel (in the aclnn API)."""

    sum_over_channels_of: Identifier = Field(
        description="the input tensor whose channels (dim 1) the sum keeps: the output holds, per channel, the sum of "
        "its expression over every other axis (over every element when the output holds one value), as "
        "aclnnPreluBackward's gradWeight"
    )


class Formula(_Strict):
    """What the kernel computes: one output (`output` + `expr`) or each of several (`outputs`)."""

    output: Identifier | None = Field(None, description="the output tensor parameter the expression computes")
    expr: str = Field(
        "",
        description="expression in the opgen formula language; a backward spec with `derivative_of` may leave it "
        "out and take the derivative of its forward formula",
        max_length=FORMULA_MAX_LENGTH,
    )
    outputs: dict[Identifier, FormulaText | HalvesFormula] = Field(
        default_factory=dict,
        description="instead of output and expr: each output tensor the operator writes and its expression, "
        "e.g. {gradInput: ..., gradWeight: ...}",
    )
    reduce: dict[Identifier, Reduction] = Field(
        default_factory=dict,
        description="outputs (of formula.outputs) reduced from their elementwise expression, e.g. {gradWeight: "
        "{sum_over_channels_of: self}}; such an output has the shape of a channel input of that tensor (same_as)",
    )
    let: dict[Identifier, FormulaText] = Field(
        default_factory=dict,
        description="local names, in order, each a numeric expression of the parameters, the vars and the local "
        "names before it, usable by the output expressions; one per line (block style: the commas of an expression "
        "would split a {...} mapping), e.g. 'm: max(abs(x), 1)' then 'h: m / 2 * sqrt((x / m) ** 2 + b / (m * m))'. "
        "The docs show the formula with the names and then each definition, the numpy references compute each "
        "once, and the kernel computes each once however often it is used",
    )
    vars: dict[Identifier, Identifier] = Field(
        default_factory=dict, description="short names for parameters, e.g. {x: selfOrResult} (shown in docs)"
    )
    var_doc: str | None = Field(None, description="sentence explaining the vars, e.g. $x$是selfOrResult中的某个元素。")

    @model_validator(mode="after")
    def _one_form(self) -> Formula:
        if self.outputs and (self.output is not None or "expr" in self.model_fields_set):
            raise FieldError("outputs", "give either 'output' and 'expr' or 'outputs', not both")
        if not self.outputs and self.output is None:
            raise FieldError("output", "name the output the expression computes, or list 'outputs'")
        return self

    @property
    def computed(self) -> dict[str, str]:
        """Each computed output and its expression, in the spec's order; an output written per half (a half
        split's full-size output) as one entry per half, named with `HALF_SUFFIXES`."""
        if self.outputs:
            found: dict[str, str] = {}
            for name, text in self.outputs.items():
                if isinstance(text, HalvesFormula):
                    found |= {name + suffix: half for suffix, half in zip(HALF_SUFFIXES, text.halves, strict=True)}
                else:
                    found[name] = text
            return found
        assert self.output is not None
        return {self.output: self.expr}

    @property
    def per_half(self) -> dict[str, tuple[str, str]]:
        """The outputs written per half: output -> the names of its two halves in `computed`."""
        return {
            name: (name + HALF_SUFFIXES[0], name + HALF_SUFFIXES[1])
            for name, text in self.outputs.items()
            if isinstance(text, HalvesFormula)
        }

    @property
    def main_output(self) -> str:
        return next(iter(self.computed))

    @property
    def main_expr(self) -> str:
        return next(iter(self.computed.values()))

    def expr_path(self, output: str) -> tuple[str | int, ...]:
        """Where an output's expression is written in the spec."""
        for name, (first, second) in self.per_half.items():
            if output in (first, second):
                return ("formula", "outputs", name, "halves", 0 if output == first else 1)
        return ("formula", "outputs", output) if self.outputs else ("formula", "expr")


class DerivativeOf(_Strict):
    """A backward operator's link to its forward one: `opgen check` verifies that the backward formula is the
    derivative of the forward formula (see opgen.spec.backward)."""

    forward: SnakeName = Field(
        description="the forward operator's directory; its spec is <forward>.yaml beside this one"
    )
    forward_type: CamelName | None = Field(
        None, description="the forward's OpType, when its spec file describes several operators (e.g. Swish)"
    )
    grad: Identifier = Field(description="the incoming gradient tensor, e.g. gradOutput")
    input: Identifier = Field(description="the tensor holding the forward's input x (or its result, see holds)")
    holds: Literal["input", "result"] = Field(
        "input", description="what `input` holds: the forward's input, or its result y = f(x) (e.g. SigmoidBackward)"
    )
    result_flag: Identifier | None = Field(
        None, description="a bool parameter saying `input` holds the forward's result when true (e.g. isResult)"
    )
    wrt: Identifier | None = Field(None, description="the forward tensor differentiated (default: its only input)")
    saved: dict[Identifier, Identifier] = Field(
        default_factory=dict,
        description="this spec's input tensor -> the forward's output it holds (a result the forward hands its "
        "backward, e.g. GeGluBackward's gelu holding GeGlu's outGelu): checked with the forward's formula of that "
        "output in its place",
    )
    params: dict[Identifier, Identifier] = Field(
        default_factory=dict,
        description="forward scalar or flag -> this spec's parameter of the same meaning, where the names differ",
    )
    values: dict[Identifier, dict[int | str, int | str]] = Field(
        default_factory=dict,
        description="forward int64/string parameter -> {its value: this spec's value of the same meaning}, where the "
        'two spell a mode differently (GeluV2\'s approximate 0 | 1, GeluBackwardV2\'s "none" | "tanh")',
    )


# ---------------------------------------------------------------------------------------------- errors


class Status(str, Enum):
    ACLNN_ERR_PARAM_NULLPTR = "ACLNN_ERR_PARAM_NULLPTR"
    ACLNN_ERR_PARAM_INVALID = "ACLNN_ERR_PARAM_INVALID"
    ACLNN_ERR_RUNTIME_ERROR = "ACLNN_ERR_RUNTIME_ERROR"
    ACLNN_ERR_INNER = "ACLNN_ERR_INNER"
    # reported by the host tiling (or shape inference) of an API CANN generates from the OpDef (`ACLNNTYPE aclnn`)
    ACLNN_ERR_INNER_TILING_ERROR = "ACLNN_ERR_INNER_TILING_ERROR"

    @property
    def code(self) -> int:
        return STATUS_CODES[self]

    @property
    def stage(self) -> str:
        """Where a row of this status is checked: "tiling" (the generated host tiling, which fails the launch) or
        "op_api" (the API's own checks)."""
        return "tiling" if self is Status.ACLNN_ERR_INNER_TILING_ERROR else "op_api"


STATUS_CODES = {
    Status.ACLNN_ERR_PARAM_NULLPTR: 161001,
    Status.ACLNN_ERR_PARAM_INVALID: 161002,
    Status.ACLNN_ERR_RUNTIME_ERROR: 361001,
    Status.ACLNN_ERR_INNER: 561000,
    Status.ACLNN_ERR_INNER_TILING_ERROR: 561002,
}


def _check_kind(value: object) -> str | None:
    """A check is a one-key mapping; its key names the kind."""
    if isinstance(value, dict) and len(value) == 1:
        return next(iter(value))
    if isinstance(value, BaseModel):
        return next(iter(type(value).model_fields))
    return None


if TYPE_CHECKING:
    # The union below is built at run time from CHECK_MODELS, which mypy cannot read as a type; every member
    # is a CheckKind.
    Check: TypeAlias = CheckKind
else:
    Check = Annotated[
        Union[tuple(Annotated[model, Tag(kind)] for kind, model in CHECK_MODELS.items())],  # noqa: UP007
        Discriminator(_check_kind, custom_error_type="check_kind", custom_error_message="unknown check kind"),
    ]


class ErrorRow(_Strict):
    status: Status
    code: int = Field(description="numeric code; must match the status")
    check: Check = Field(description="one check, e.g. {not_null: [self, out]}")
    message: str = Field(description="log message printed when the check fails (English, like ops-nn logs)")
    doc: str = Field(description="描述 cell of the 返回值 table (Chinese)")
    after_empty_return: bool = Field(
        False,
        description="checked only when no tensor of 'empty_return' is empty: the API returns success on an empty "
        "one before this row, as ops-nn's aclnnHardshrinkBackward does before its broadcast check (these rows "
        "end the table)",
    )
    aten_accepts: str | None = Field(
        None,
        description="on a reject_if row: why torch.ops.aten takes the values this row rejects (aten's hardtanh "
        "clamps with min_val > max_val); without it, the tests check that aten refuses them too",
    )

    @property
    def in_tiling(self) -> bool:
        """Checked by the generated host tiling when the kernel is launched (status ACLNN_ERR_INNER_TILING_ERROR),
        not by the op_api: as CANN's OpDef-generated aclnn reports what infershape and tiling refuse."""
        return self.status.stage == "tiling"

    @property
    def after_empty(self) -> bool:
        """Checked only when no tensor of the empty return is empty: marked so, or checked by the tiling (an empty
        tensor returns before anything is launched)."""
        return self.after_empty_return or self.in_tiling

    @model_validator(mode="after")
    def _code_matches(self) -> ErrorRow:
        if self.code != self.status.code:
            raise FieldError("code", f"code {self.code} does not match {self.status.value} ({self.status.code})")
        return self


# ---------------------------------------------------------------------------------------------- misc


class Constraints(_Strict):
    deterministic: bool | None = Field(None, description="确定性计算: default implementation is deterministic")
    notes: list[str] = Field(default_factory=list)


ExampleValue = float | bool | list[float]


class ExampleTensor(_Strict):
    shape: Shape = Field(description="at most 8 dims, each 0 <= d <= 2**31-1")
    dtype: DType
    data: list[float]

    @model_validator(mode="after")
    def _size(self) -> ExampleTensor:
        size = 1
        for dim in self.shape:
            size *= dim
        if len(self.data) != size:
            raise FieldError("shape", f"data has {len(self.data)} values but shape {self.shape} holds {size}")
        return self


class Example(_Strict):
    """Inputs of the doc's calling example; the expected output is computed from the formula."""

    tensors: dict[Identifier, ExampleTensor]
    scalars: dict[Identifier, bool | int | float | str | None] = Field(default_factory=dict)
    scalar_dtypes: dict[Identifier, DType] = Field(default_factory=dict)


class Tolerance(_Strict):
    rtol: float = Field(ge=0, allow_inf_nan=False)
    atol: float = Field(ge=0, allow_inf_nan=False)
    max_fail_ratio: float = Field(
        0.0, ge=0, le=1, allow_inf_nan=False, description="fraction of elements allowed to fail"
    )
    standard: str | None = Field(None, description="name of the precision standard, e.g. 双千分之一")


MAX_GOLDEN_ELEMENTS = 2**24  # per golden shape: every dtype and parameter value runs on it


def _golden_shape(shape: list[int]) -> list[int]:
    size = 1
    for dim in shape:
        size *= dim
    if size > MAX_GOLDEN_ELEMENTS:
        raise ValueError(f"shape {shape} holds {size} elements; a golden shape holds at most {MAX_GOLDEN_ELEMENTS}")
    return shape


GoldenShape = Annotated[Shape, AfterValidator(_golden_shape)]


class TorchDifference(_Strict):
    when: str = Field(
        description="formula-language condition over the operator's tensors and scalars: where ops-nn's kernel "
        "is known to differ from torch.ops.aten (e.g. `self != self` for NaN inputs)",
        max_length=4096,
    )
    note: str = Field(description="the difference in one sentence (Chinese, as the docs), listed in 约束说明")
    always: bool = Field(
        True,
        description="whether torch differs at every position where `when` holds; false where torch's own result "
        "there depends on where an element falls in its CPU loops (softshrink_backward's NaN: its vectorised loop "
        "agrees, its scalar tail loop does not), so the golden inputs need not reach a differing one",
    )


class AtenRoundsEachStep(_Strict):
    """aten's CPU kernel computes these 16-bit dtypes step by step in the dtype itself, each intermediate rounded
    (glu_backward: sigmoid(b) and every product), so its own result there misses a standard the float computation
    meets: torch is compared in float for them (the CANN golden's way), and the claim is checked against aten."""

    dtypes: list[DType] = Field(
        min_length=1, description="FLOAT16 and/or BFLOAT16: the dtypes aten rounds each step in"
    )
    note: str = Field(description="why: which steps aten's kernel rounds (one sentence)")


# A derived golden input's expression (golden.derived_inputs), in the formula language.
DerivedExpr = Annotated[str, Field(max_length=FORMULA_MAX_LENGTH)]


class Golden(_Strict):
    value_range: tuple[FiniteFloat, FiniteFloat] = Field(description="uniform random input range")
    special_values: list[float | str] = Field(default_factory=list, description="e.g. [0.0, -0.0, inf, -inf, nan]")
    scalar_values: dict[Identifier, list[bool | int | float | str | None]] = Field(default_factory=dict)
    shapes: list[GoldenShape] = Field(
        default_factory=lambda: [[1], [31], [33], [4099]], description=f"input shapes, at most {MAX_RANK} dims each"
    )
    tolerance: dict[DType, Tolerance]
    differs_from_torch: list[TorchDifference] = Field(
        default_factory=list,
        description="declared differences from torch.ops.aten: golden tests compare with torch everywhere else",
    )
    derived_inputs: dict[Identifier, DerivedExpr] = Field(
        default_factory=dict,
        description="tensor inputs the golden tests and gen_data.py compute from the other tensor inputs instead of "
        "drawing them at random: input -> formula-language expression, e.g. {buffer: 'exp(-abs(self))'} (an "
        "auxiliary input that the kernel ignores but torch.ops.aten reads); evaluated in float64 on the inputs as "
        "stored, then cast to the input's dtype. A half split's half-size input may read the halves and the "
        "scalars, derived per golden case (and by gen_data.py from its options; ge_glu_grad_v2's gelu: the "
        "forward's gelu of the gate half B)",
    )
    integer_extremes: bool = Field(
        True,
        description="whether the integer golden inputs include each integer dtype's min and max: false where the "
        "formula's integer arithmetic overflows them (AddRelu's self + alpha * other wraps in the kernel, as in torch, "
        "where the float64 reference does not)",
    )
    torch_refuses: list[DType] = Field(
        default_factory=list,
        description="integer dtypes torch.ops.aten does not implement for this op (hardsigmoid, selu on INT32): "
        "the golden tests call it in float64 on the integer values and truncate toward zero, as the kernel does",
    )
    aten_rounds_each_step: AtenRoundsEachStep | None = Field(
        None,
        description="16-bit dtypes torch.ops.aten's CPU kernel computes step by step in the dtype itself, each step "
        "rounded, so that its own result misses the precision standard (glu_backward): torch is compared in float "
        "for them, as the golden tests do for every 16-bit dtype",
    )


class KernelRuns(_Strict):
    """The API runs another operator's kernel, as ops-nn's op_api calls that OpType's L0 op (aclnnSilu runs Swish
    with scale 1.0): no OpDef, tiling or kernel of its own is generated."""

    type: CamelName = Field(description="the OpType whose kernel runs; another operator of this spec file")
    attrs: dict[Identifier, bool | int | float | str] = Field(
        default_factory=dict,
        description="the value the op_api passes for each attribute of that OpType's L0 op, by its OpDef name; an "
        "attribute left out is passed this API's int64 or bool parameter of the name the other operator's carries "
        "(aclnnGeGlu passes its dim and approximate to GeGluV2 and fixes activate_left)",
    )


class Kernel(_Strict):
    runs: KernelRuns | None = Field(None, description="run another operator's kernel instead of generating one")
    compute_in_float: list[DType] = Field(
        default_factory=lambda: [DType.BFLOAT16],
        description="dtypes the AI Core kernel upcasts to float (bf16 always where arithmetic lacks it)",
    )
    vector_apis: list[str] = Field(default_factory=list, description="vector APIs the kernel must use")
    integers_as: DType | None = Field(
        None,
        description="the op_api casts integer and BOOL inputs to this floating dtype before the kernel (ops-nn's "
        "Erfinv: the result, and out's dtype rules, are then that dtype)",
    )


class EmptyReturn(_Strict):
    """`empty_return` as a mapping: the tensors, and the SoCs on which ops-nn's op_api checks every row before
    returning on an empty one (aclnnSoftmaxBackward returns early only off regbase: `!IsRegbase() && IsEmpty()`)."""

    tensors: list[Identifier] = Field(
        default_factory=list,
        description="tensors whose emptiness ends the call with success (default: the first output)",
    )
    after_checks_on: list[str] = Field(
        min_length=1,
        description="SoCs on which the rows marked 'after_empty_return' are checked before the empty-tensor return: "
        "the SoCs ops-nn's `Ops::NN::AclnnUtil::IsRegbase()` selects (ascend950)",
    )


def _empty_return_form(value: object) -> str | None:
    """`empty_return` is a list of tensors or a mapping; the form decides which model reads it."""
    if isinstance(value, (dict, EmptyReturn)):
        return "mapping"
    return "list" if isinstance(value, list) else None


EmptyReturnField = Annotated[
    Union[Annotated[list[Identifier], Tag("list")], Annotated[EmptyReturn, Tag("mapping")]],  # noqa: UP007
    Discriminator(
        _empty_return_form,
        custom_error_type="empty_return_form",
        custom_error_message="a list of tensors, or a mapping {tensors, after_checks_on}",
    ),
]


class OpSpec(_Strict):
    operator: OperatorInfo
    api: ApiInfo
    socs: list[SocSupport] = Field(min_length=1)
    routing: Routing = Field(default_factory=Routing)
    params: list[Param] = Field(min_length=1)
    formula: Formula
    derivative_of: DerivativeOf | None = None
    split: Split | None = Field(None, description="a half split of one input along a dimension (gated activations)")
    reduce_dim: ReduceDim | None = Field(
        None, description="the dimension the formula's reductions (rowmax, rowsum) run along (the softmax family)"
    )
    errors: list[ErrorRow] = Field(min_length=1)
    empty_return: EmptyReturnField = Field(
        default_factory=list,
        description="tensors whose emptiness ends the call with success after the error rows not marked "
        "'after_empty_return' (nothing launched, outputs left as they are, a summed output (formula.reduce) set to "
        "zeros); default: the first output. The mapping form {tensors, after_checks_on} names the SoCs where the "
        "return comes after every row instead",
    )
    constraints: Constraints = Field(default_factory=Constraints)
    example: Example
    golden: Golden
    kernel: Kernel = Field(default_factory=Kernel)
    opdef: OpDefSection = Field(default_factory=OpDefSection)

    # ---- derived views used by every emitter

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def tensor_inputs(self) -> list[Param]:
        return [p for p in self.params if p.is_tensor and p.direction is Direction.INPUT]

    @property
    def outputs(self) -> list[Param]:
        """The output tensors the operator computes (not those it leaves unwritten)."""
        return [p for p in self.params if p.direction is Direction.OUTPUT and p.written]

    @property
    def empty_return_named(self) -> list[str]:
        """The tensors `empty_return` names, in either form (empty: none named)."""
        given = self.empty_return
        return list(given.tensors if isinstance(given, EmptyReturn) else given)

    @property
    def empty_return_tensors(self) -> list[str]:
        """The tensors any of which, empty, makes the API return success before its `after_empty_return` rows."""
        return self.empty_return_named or [self.outputs[0].name]

    @property
    def checks_before_empty_return_on(self) -> list[str]:
        """The SoCs on which the `after_empty_return` rows are checked before the empty-tensor return (ops-nn's
        `IsRegbase()` branch); empty: the return comes before them on every SoC."""
        given = self.empty_return
        return list(given.after_checks_on) if isinstance(given, EmptyReturn) else []

    def returns_empty_before(self, row: ErrorRow, soc: str) -> bool:
        """Whether, on `soc`, an empty tensor of the empty return ends the call before `row` is checked: the one
        rule the plan, the tests and the docs read."""
        if row.in_tiling:
            return True  # the tiling runs only once something is launched
        return row.after_empty_return and soc not in self.checks_before_empty_return_on

    def error_doc(self, row: ErrorRow) -> str:
        """A row's doc text; a row checked after the empty-tensor return says when it is not checked (and on
        which SoCs it is checked first all the same)."""
        if not row.after_empty:
            return row.doc
        names = self.empty_return_tensors
        joined = names[0] if len(names) == 1 else "、".join(names[:-1]) + "或" + names[-1]
        first = [s for s in self.checks_before_empty_return_on if not self.returns_empty_before(row, s)]
        if not first:
            return f"{row.doc}（{joined}为空Tensor时直接返回成功，不做此校验。）"
        labels = "、".join(get_soc(s).api_doc_label for s in first)
        return f"{row.doc}（{joined}为空Tensor时，{labels}先做此校验再返回成功，其他产品直接返回成功，不做此校验。）"

    @property
    def unwritten_outputs(self) -> list[Param]:
        return [p for p in self.params if not p.written]

    def shape_sources(self, output: Param) -> list[str]:
        """The inputs whose (broadcast) shape `output` has: the one rule every artifact follows. A half-split
        operator's outputs follow the split tensor (halved along dim, or whole for an output written per half)."""
        if self.split is not None and not (output.shape.broadcast_result_of or output.shape.same_as):
            return [self.split.tensor]
        if output.shape.rows_of:
            return [output.shape.rows_of]
        return output.shape.broadcast_result_of or [output.shape.same_as or self.tensor_inputs[0].name]

    def row_shape(self, shape: tuple[int, ...], values: Mapping[str, object]) -> tuple[int, ...]:
        """The shape of a per-row output (`rows_of`) of a reduced tensor of `shape`: without the reduced dim."""
        dim = self.split_dim(values)
        axis = dim + max(len(shape), 1) if dim < 0 else dim
        return tuple(shape[:axis]) + tuple(shape[axis + 1 :])

    @property
    def per_row_outputs(self) -> list[str]:
        """The outputs holding one value per row of the reduced tensor (`shape: {rows_of: ...}`)."""
        return [p.name for p in self.outputs if p.shape.rows_of]

    def full_size(self, name: str) -> bool:
        """Whether tensor `name` of a half-split operator is full-size: the split input and the outputs written
        per half; the others are half-size (always true without a split)."""
        split = self.split
        return split is None or name == split.tensor or name in self.formula.per_half

    def split_dim(self, values: Mapping[str, object]) -> int:
        """The split (or reduced) dimension in a call with these parameter values (a literal dim, or the dim
        parameter's)."""
        section = self.split or self.reduce_dim
        assert section is not None
        dim = section.dim
        return dim if isinstance(dim, int) else int(values[dim])  # type: ignore[call-overload]

    def split_swapped(self, values: Mapping[str, object]) -> bool:
        """Whether the split's halves trade places in a call with these parameter values (swap_when holds)."""
        assert self.split is not None
        flag = self.split.swap_when
        return flag is not None and bool(values.get(flag))

    def aligned_shape(self, name: str, shapes: Mapping[str, tuple[int, ...]]) -> tuple[int, ...]:
        """The shape input `name` takes to broadcast against the others (numpy's rules), given every input's
        shape: its own, or for a channel input its values laid along dim 1 of the tensor it follows."""
        if self.param(name).shape.one_element:  # read as a scalar: it broadcasts with anything, shaping nothing
            return ()
        of = self.param(name).shape.channel_of
        if of is None:
            return shapes[name]
        return channel_shape(math.prod(shapes[name]), shapes[of])

    @property
    def lowest_rank(self) -> int:
        """The lowest rank every tensor a call shapes accepts: the highest lower bound of their rank ranges (GeluMul's
        input and out: 2). A one-element or channel input holds its own shape and does not count."""
        shaped = [p for p in self.params if p.is_tensor and not (p.shape.one_element or p.shape.channel_of)]
        return max((p.rank[0] for p in shaped if p.rank is not None), default=0)

    def within_rank(self, shape: tuple[int, ...], dim: int | None = None) -> tuple[int, ...]:
        """`shape` with size-1 dims added up to `lowest_rank` (a 1-d case (n,) as (1, n) where rank 2 is needed):
        leading ones, as broadcasting adds them; trailing where the operator reads an axis by its index from the
        front (a half split along a non-negative `dim`, a channel input's dim 1), so that axis keeps its size."""
        pad = (1,) * max(0, self.lowest_rank - len(shape))
        if not pad:
            return tuple(shape)
        channels = any(p.shape.channel_of for p in self.tensor_inputs) and len(shape) >= 2
        from_front = (self.split is not None and dim is not None and dim >= 0) or channels
        return (*shape, *pad) if from_front else (*pad, *shape)

    def input_shape(
        self, name: str, shape: tuple[int, ...], *, one_value: bool = False, dim: int | None = None
    ) -> tuple[int, ...]:
        """Input `name`'s shape in a call whose other inputs have `shape`: a channel input holds one value per
        channel of it (or, one_value, a single value); a one-element tensor holds one value; with a half split,
        `shape` is a half's and the full-size tensors double it along `dim`."""
        if self.param(name).shape.one_element:
            return (1,)
        if self.split is not None:
            assert dim is not None
            return full_shape(shape, dim) if self.full_size(name) and split_axis(len(shape), dim) is not None else shape
        if self.param(name).shape.channel_of is None:
            return shape
        return (1,) if one_value else (channel_count(shape),)

    def result_dtype(self, dtype: DType) -> DType:
        """The dtype an input of `dtype` takes part in the promotion as: itself, or `kernel.integers_as` for an
        integer or BOOL input (the op_api casts it first)."""
        integer = dtype.is_integral or dtype is DType.BOOL
        return self.kernel.integers_as if integer and self.kernel.integers_as is not None else dtype

    @property
    def inputs_cast_to(self) -> Param | None:
        """The output whose dtype the API casts the inputs to before the kernel (`dtype.cast_inputs`), if any."""
        return next((p for p in self.outputs if p.dtype.cast_inputs), None)

    def dtype_sources(self, output: Param) -> list[str]:
        """The inputs whose promoted dtype `output` is computed in (and cast from)."""
        if output.dtype.same_as:
            return [output.dtype.same_as]
        return output.dtype.castable_from or [self.tensor_inputs[0].name]

    @property
    def supported_socs(self) -> list[SocSupport]:
        return [s for s in self.socs if s.supported]

    def dtypes_on(self, param: Param, soc: str) -> list[DType]:
        excluded = next((set(s.exclude_dtypes) for s in self.socs if s.soc == soc), set())
        return [d for d in param.dtypes if d not in excluded]

    def golden_scalar_values(self, *, skip: tuple[str, ...] = ()) -> dict[str, list[float | bool | int | str]]:
        """Each scalar and flag parameter's golden values, and the value each one-element tensor holds:
        `golden.scalar_values`, else its example value (else the default a null pointer stands for), in parameter
        order."""
        options: dict[str, list[float | bool | int | str]] = {}
        for param in self.params:
            if (param.is_tensor and not param.shape.one_element) or param.name in skip:
                continue
            given = self.golden.scalar_values.get(param.name)
            if param.is_tensor:  # a one-element tensor: the value it holds, by default the example's
                held = self.example.tensors.get(param.name)
                values = list(given or []) or ([held.data[0]] if held is not None else [])
                options[param.name] = [value for value in values if value is not None]
                continue
            example = self.example.scalars.get(param.name)
            chosen = list(given) if given else [example if example is not None else param.null_default]
            options[param.name] = [value for value in chosen if value is not None]
        return options

    def rejects_scalars(self, values: Mapping[str, float | bool | int | str]) -> bool:
        """Whether a `reject_if` row of the error table refuses these scalar and flag values."""
        return any(isinstance(row.check, CheckRejectIf) and row.check.rejects(self, values) for row in self.errors)
