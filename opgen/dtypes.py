"""Data types as the aclnn docs name them, with their ACL enum values and PyTorch's promotion/cast rules.

Promotion and castability follow PyTorch (`promoteTypes`, `canCast`), which is what the aclnn layer follows.
A dtype is a fact of the hardware and of ACL, not of the spec format: the spec (which names dtypes), the plan and
the emitters (which render them) all import it from here.
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np


class DType(str, enum.Enum):
    FLOAT = "FLOAT"
    FLOAT16 = "FLOAT16"
    BFLOAT16 = "BFLOAT16"
    DOUBLE = "DOUBLE"
    INT8 = "INT8"
    INT16 = "INT16"
    INT32 = "INT32"
    INT64 = "INT64"
    UINT8 = "UINT8"
    UINT16 = "UINT16"
    UINT32 = "UINT32"
    UINT64 = "UINT64"
    BOOL = "BOOL"
    COMPLEX64 = "COMPLEX64"
    COMPLEX128 = "COMPLEX128"

    @property
    def acl_enum(self) -> str:
        return _ACL_ENUM_NAME[self]

    @property
    def acl_value(self) -> int:
        return _ACL_VALUE[self]

    @property
    def ge_enum(self) -> str:
        """Name in `ge::DataType`, used by OpDef and tiling code."""
        return _GE_ENUM_NAME[self]

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]

    @property
    def is_floating(self) -> bool:
        return self in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE)

    @property
    def is_complex(self) -> bool:
        return self in (DType.COMPLEX64, DType.COMPLEX128)

    @property
    def is_integral(self) -> bool:
        return not (self.is_floating or self.is_complex or self is DType.BOOL)

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(_NUMPY[self])

    @property
    def cpp_type(self) -> str:
        """Element type in Ascend C kernels and the CPU twin."""
        return _CPP_TYPE[self]

    @property
    def host_cpp_type(self) -> str:
        """Element type of a host program's buffer (ACL host code has no half/bf16: they travel as bits; BOOL as
        one byte each, since std::vector<bool> packs bits and has no data())."""
        if self is DType.BOOL:
            return "uint8_t"
        return "uint16_t" if self in (DType.FLOAT16, DType.BFLOAT16) else _CPP_TYPE[self]


# Storage dtypes an AI Core kernel takes on every SoC (computed natively or through a floating type; the plan
# decides how). INT64 is not among them: A2/A3 have no int64 vector arithmetic.
AICORE_DTYPES = (
    DType.FLOAT,
    DType.FLOAT16,
    DType.BFLOAT16,
    DType.INT8,
    DType.UINT8,
    DType.INT16,
    DType.INT32,
)
# What the AICPU kernel takes: DOUBLE (the formula in double), the signed integers and UINT8 (the formula in the
# integer itself, wrapping; only for formulas with an exact integer meaning, `opgen.formula.integer`) and the
# complex dtypes (the formula in std::complex of the dtype; only for formulas with a complex meaning,
# `opgen.formula.complex`).
AICPU_INTEGER_DTYPES = (DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64)
AICPU_COMPLEX_DTYPES = (DType.COMPLEX64, DType.COMPLEX128)
AICPU_DTYPES = (DType.DOUBLE, *AICPU_INTEGER_DTYPES, *AICPU_COMPLEX_DTYPES)

_ACL_VALUE = {
    DType.FLOAT: 0,
    DType.FLOAT16: 1,
    DType.INT8: 2,
    DType.INT32: 3,
    DType.UINT8: 4,
    DType.INT16: 6,
    DType.UINT16: 7,
    DType.UINT32: 8,
    DType.INT64: 9,
    DType.UINT64: 10,
    DType.DOUBLE: 11,
    DType.BOOL: 12,
    DType.COMPLEX64: 16,
    DType.COMPLEX128: 17,
    DType.BFLOAT16: 27,
}
_ACL_ENUM_NAME = {d: "ACL_BF16" if d is DType.BFLOAT16 else f"ACL_{d.value}" for d in DType}
_GE_ENUM_NAME = {d: "ge::DT_BF16" if d is DType.BFLOAT16 else f"ge::DT_{d.value}" for d in DType}
_ITEMSIZE = {
    DType.FLOAT: 4,
    DType.FLOAT16: 2,
    DType.BFLOAT16: 2,
    DType.DOUBLE: 8,
    DType.INT8: 1,
    DType.INT16: 2,
    DType.INT32: 4,
    DType.INT64: 8,
    DType.UINT8: 1,
    DType.UINT16: 2,
    DType.UINT32: 4,
    DType.UINT64: 8,
    DType.BOOL: 1,
    DType.COMPLEX64: 8,
    DType.COMPLEX128: 16,
}
_NUMPY = {
    DType.FLOAT: np.float32,
    DType.FLOAT16: np.float16,
    DType.BFLOAT16: ml_dtypes.bfloat16,
    DType.DOUBLE: np.float64,
    DType.INT8: np.int8,
    DType.INT16: np.int16,
    DType.INT32: np.int32,
    DType.INT64: np.int64,
    DType.UINT8: np.uint8,
    DType.UINT16: np.uint16,
    DType.UINT32: np.uint32,
    DType.UINT64: np.uint64,
    DType.BOOL: np.bool_,
    DType.COMPLEX64: np.complex64,
    DType.COMPLEX128: np.complex128,
}
_CPP_TYPE = {
    DType.FLOAT: "float",
    DType.FLOAT16: "half",
    DType.BFLOAT16: "bfloat16_t",
    DType.DOUBLE: "double",
    DType.INT8: "int8_t",
    DType.INT16: "int16_t",
    DType.INT32: "int32_t",
    DType.INT64: "int64_t",
    DType.UINT8: "uint8_t",
    DType.UINT16: "uint16_t",
    DType.UINT32: "uint32_t",
    DType.UINT64: "uint64_t",
    DType.BOOL: "bool",
    DType.COMPLEX64: "std::complex<float>",
    DType.COMPLEX128: "std::complex<double>",
}

# PyTorch's category order: bool < integral < floating < complex.
_CATEGORY = {d: (0 if d is DType.BOOL else 1 if d.is_integral else 2 if d.is_floating else 3) for d in DType}


def wrap_integer(value: float, dtype: np.dtype) -> float:
    """An integral `value` in integer `dtype` as a C++ conversion gives it: modulo 2**bits into its range (how
    ops-nn's conversion of a scalar to a tensor of that dtype and torch's scalar conversion meet an integer
    tensor: -1 in UINT8 is 255)."""
    info = np.iinfo(dtype)
    span = int(info.max) - int(info.min) + 1
    return float((int(value) - int(info.min)) % span + int(info.min))


def can_cast(src: DType, dst: DType) -> bool:
    """PyTorch `canCast`: no cast to a lower category (floating -> integral/bool, complex -> real)."""
    return _CATEGORY[src] <= _CATEGORY[dst]


def promote_types(a: DType, b: DType) -> DType | None:
    """PyTorch `promoteTypes`; None where PyTorch refuses (uint16/32/64 mixed with other integral types)."""
    if a is b:
        return a
    wide_unsigned = {DType.UINT16, DType.UINT32, DType.UINT64}
    if (a in wide_unsigned and not b.is_floating) or (b in wide_unsigned and not a.is_floating):
        return None
    if _CATEGORY[a] != _CATEGORY[b]:
        high, low = (a, b) if _CATEGORY[a] > _CATEGORY[b] else (b, a)
        if high is DType.COMPLEX64 and low is DType.DOUBLE:
            return DType.COMPLEX128
        return high
    if a.is_floating:
        if {a, b} == {DType.FLOAT16, DType.BFLOAT16}:
            return DType.FLOAT
        return a if a.itemsize >= b.itemsize else b
    if a.is_complex:
        return DType.COMPLEX128
    result = np.promote_types(a.numpy, b.numpy)
    return next(d for d in DType if d is not DType.BFLOAT16 and d.numpy == result)
