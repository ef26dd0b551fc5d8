"""The aclnn API's parameter vocabulary: which way a parameter goes and what C type family it is.

Like a dtype (`opgen.dtypes`), these describe the generated API, not the spec format: the spec names them, the plan
and the emitters branch on them, so they live here where every layer imports them.
"""

from __future__ import annotations

from enum import Enum


class Direction(str, Enum):
    INPUT = "input"
    OUTPUT = "output"


class ParamKind(str, Enum):
    TENSOR = "tensor"  # const aclTensor* / aclTensor*
    SCALAR = "scalar"  # const aclScalar*
    BOOL = "bool"  # bool host argument (attribute / mode flag)
    INT64 = "int64"  # int64_t host argument (attribute; with `values`, a kernel mode)
    DOUBLE = "double"  # double host argument (a Float attribute: a number in the tiling data, e.g. SituGlu's beta)
    STRING = "string"  # const char* / char* host argument from a fixed set of `values` (a kernel mode)
