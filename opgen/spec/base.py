"""Building blocks of the spec model: the strict base model, name patterns, field-level errors."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# the API vocabulary (opgen.types), re-exported where the spec layer has always imported it from
from opgen.types import Direction as Direction
from opgen.types import ParamKind as ParamKind


class FieldError(ValueError):
    """A model-level check failure that belongs to one field (so the diagnostic points at that field)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


# Names are ASCII and bounded: they become C++, Python and file names.
CamelName = Annotated[str, Field(pattern=r"^[A-Z][A-Za-z0-9]*$", max_length=64)]
SnakeName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=64)]
AclnnName = Annotated[str, Field(pattern=r"^aclnn[A-Z][A-Za-z0-9]*$", max_length=80)]

# A doc file stem: words joined by single '&', '+', '-' or '.' (no '/', no '..', no leading dot), e.g.
# aclnnLeakyRelu&aclnnInplaceLeakyRelu.
_DOC_NAME = r"^[A-Za-z0-9_]+(?:[&+.\-][A-Za-z0-9_]+)*$"
# An aten op: a lowercase identifier, e.g. leaky_relu_backward, or leaky_relu_ for the in-place form.
_ATEN_NAME = r"^_?[a-z][a-z0-9_]*$"


def _doc_name(value: str) -> str:
    if len(value) > 128 or not re.fullmatch(_DOC_NAME, value):
        raise ValueError(
            f"doc_name {value!r} is not a safe file name: use letters, digits and '_', joined by single"
            " '&', '+', '-' or '.' (e.g. aclnnLeakyRelu&aclnnInplaceLeakyRelu)"
        )
    return value


def _aten_name(value: str) -> str:
    if len(value) > 64 or not re.fullmatch(_ATEN_NAME, value):
        raise ValueError(
            f"{value!r} is not an aten op name: a lowercase identifier such as leaky_relu_backward"
            " (leaky_relu_ for an in-place op)"
        )
    return value


_HEADER_NAME = r"aclnn_[a-z0-9]+(?:_[a-z0-9]+)*\.h"


def _header_name(value: str) -> str:
    if len(value) > 96 or not re.fullmatch(_HEADER_NAME, value):
        raise ValueError(
            f"{value!r} is not an aclnn header name: aclnn_ and a snake_case stem, e.g. aclnn_logsigmoid.h"
        )
    return value


DocName = Annotated[str, AfterValidator(_doc_name), Field(json_schema_extra={"pattern": _DOC_NAME})]
HeaderName = Annotated[str, AfterValidator(_header_name), Field(json_schema_extra={"pattern": _HEADER_NAME})]
AtenName = Annotated[str, AfterValidator(_aten_name), Field(json_schema_extra={"pattern": _ATEN_NAME})]

# Numbers: dims are non-negative int32 values (as in aclTensor shapes), at most 8 of them (ops-nn's limit);
# where only a finite float makes sense (ranges, tolerances) inf and nan are rejected.
MAX_DIM = 2**31 - 1
MAX_RANK = 8
Dim = Annotated[int, Field(ge=0, le=MAX_DIM)]
Shape = Annotated[list[Dim], Field(max_length=MAX_RANK)]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
