"""opgen.spec.dtypes as plain data for the emitters: the one table the generated files' dtype enums and
promotion tables are rendered from (the runtime's ACL_DTYPE and _PROMOTED, the op_api unit-test helper's
dtype cases), so none writes an enum value of its own."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.spec.dtypes import DType, promote_types


@dataclass(frozen=True)
class DtypeRow:
    name: str  # as the aclnn docs name it: FLOAT16
    numpy: str  # numpy's name of the dtype: float16 (bfloat16 is ml_dtypes')
    acl_enum: str  # its aclDataType enumerator
    acl_value: int
    host_cpp_type: str  # a host program's element type (half/bf16 as bits, BOOL as a byte)
    itemsize: int
    is_complex: bool
    is_integral: bool


def dtype_rows() -> tuple[DtypeRow, ...]:
    """Every dtype, in aclDataType order."""
    return tuple(
        DtypeRow(
            d.value, d.numpy.name, d.acl_enum, d.acl_value, d.host_cpp_type, d.itemsize, d.is_complex, d.is_integral
        )
        for d in sorted(DType, key=lambda d: d.acl_value)
    )


def promotions() -> tuple[tuple[str, str, str], ...]:
    """(dtype, other dtype, promoted dtype) by numpy name for each pair of distinct dtypes (in aclDataType order)
    that PyTorch promotes; a pair it refuses is absent."""
    ordered = sorted(DType, key=lambda d: d.acl_value)
    rows = []
    for index, a in enumerate(ordered):
        for b in ordered[index + 1 :]:
            promoted = promote_types(a, b)
            if promoted is not None:
                rows.append((a.numpy.name, b.numpy.name, promoted.numpy.name))
    return tuple(rows)
