"""Building blocks of the spec model: the strict base model, name patterns, field-level errors."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


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


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class Direction(str, Enum):
    INPUT = "input"
    OUTPUT = "output"


class ParamKind(str, Enum):
    TENSOR = "tensor"  # const aclTensor* / aclTensor*
    SCALAR = "scalar"  # const aclScalar*
    BOOL = "bool"  # bool host argument (attribute / mode flag)
