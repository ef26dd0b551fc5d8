"""opgen.spec.dtypes must agree with PyTorch's promotion and castability tables for every pair."""

import itertools

import pytest

from opgen.spec.dtypes import DType, can_cast, promote_types

torch = pytest.importorskip("torch")

TORCH = {
    DType.FLOAT: torch.float32,
    DType.FLOAT16: torch.float16,
    DType.BFLOAT16: torch.bfloat16,
    DType.DOUBLE: torch.float64,
    DType.INT8: torch.int8,
    DType.INT16: torch.int16,
    DType.INT32: torch.int32,
    DType.INT64: torch.int64,
    DType.UINT8: torch.uint8,
    DType.UINT16: torch.uint16,
    DType.UINT32: torch.uint32,
    DType.UINT64: torch.uint64,
    DType.BOOL: torch.bool,
    DType.COMPLEX64: torch.complex64,
    DType.COMPLEX128: torch.complex128,
}

PAIRS = list(itertools.product(DType, DType))


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a.value}-{b.value}" for a, b in PAIRS])
def test_promotion_and_cast_match_torch(a, b):
    try:
        expected = torch.promote_types(TORCH[a], TORCH[b])
    except RuntimeError:
        expected = None
    got = promote_types(a, b)
    assert (TORCH[got] if got is not None else None) == expected
    assert can_cast(a, b) == torch.can_cast(TORCH[a], TORCH[b])


def test_acl_enum_values_are_the_real_ones():
    assert [DType.FLOAT.acl_value, DType.FLOAT16.acl_value, DType.DOUBLE.acl_value, DType.BFLOAT16.acl_value] == [
        0,
        1,
        11,
        27,
    ]
    assert DType.BFLOAT16.acl_enum == "ACL_BF16" and DType.FLOAT16.acl_enum == "ACL_FLOAT16"
