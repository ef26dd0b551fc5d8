"""The ACL dtype enum and PyTorch's promotion are written once, in opgen.spec.dtypes: the generated runtime's
tables, the op_api unit-test helper's dtype cases and the twin's aclDataType all agree with that table, and no
template or emitter spells an enum value of its own.

Before: the enum was written in opgen.spec.dtypes, in _runtime.py.j2 and in op_api_ut.h.j2 (which read back
11 of the 15 dtypes), and the runtime's own promotion took a complex input with a float one as the float
(float32 with complex64 gave float32; PyTorch gives complex64) and an int32 with complex64 as complex128.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from opgen.spec.dtypes import DType, promote_types

ROOT = Path(__file__).resolve().parents[2]
OPGEN = ROOT / "opgen"
ACL_NAMES = "|".join(sorted(re.escape(d.acl_enum) for d in DType))


def test_runtime_acl_dtype_is_the_table() -> None:
    runtime = pytest.importorskip("opgen_ops._runtime")
    assert {d.numpy: d.acl_value for d in DType} == runtime.ACL_DTYPE


@pytest.mark.parametrize("a,b", list(itertools.product(DType, DType)))
def test_runtime_promotion_is_the_table(a: DType, b: DType) -> None:
    runtime = pytest.importorskip("opgen_ops._runtime")
    got = runtime.result_dtype(np.empty(0, a.numpy), np.empty(0, b.numpy))
    promoted = promote_types(a, b)
    # a pair PyTorch refuses gets numpy's promotion (the API reports the mismatch)
    assert got == (promoted.numpy if promoted is not None else np.promote_types(a.numpy, b.numpy))


def test_the_twin_header_enum_is_the_table() -> None:
    header = (OPGEN / "twin/include/acl/acl_base.h").read_text()
    enum = {name: int(value) for name, value in re.findall(r"^\s*(ACL_\w+) = (-?\d+),?$", header, re.MULTILINE)}
    assert {d.acl_enum: enum.get(d.acl_enum) for d in DType} == {d.acl_enum: d.acl_value for d in DType}


def test_the_ut_helper_reads_back_every_dtype_of_the_table() -> None:
    header = (ROOT / "generated/relu/tests/ut/op_api/op_api_ut.h").read_text()  # `opgen build --check` keeps it
    assert re.findall(r"case (ACL_\w+):", header) == [d.acl_enum for d in sorted(DType, key=lambda d: d.acl_value)]


def _generator_sources() -> list[Path]:
    sources = [*OPGEN.glob("templates/**/*.j2"), *OPGEN.glob("emit/*.py"), *OPGEN.glob("plan/**/*.py")]
    return [path for path in sources if path.is_file()]


@pytest.mark.parametrize("path", _generator_sources(), ids=lambda p: str(p.relative_to(OPGEN)))
def test_no_generator_source_spells_the_enum(path: Path) -> None:
    text = path.read_text()
    assert not re.findall(rf"\b({ACL_NAMES})\b", text), "an aclDataType name: take it from opgen.spec.dtypes"
    numpy_to_int = r"(np\.\w+|ml_dtypes\.\w+|np\.dtype\([^)]*\))\)?\s*:\s*\d+\s*,"
    assert not re.findall(numpy_to_int, text), "a numpy dtype -> number table: render it from opgen.spec.dtypes"
