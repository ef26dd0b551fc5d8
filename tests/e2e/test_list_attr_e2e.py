"""A ListInt attribute end to end: the softmax family's OpDefs carry dim as ops-nn's `axes` ListInt({-1}), the L0 op
passes a one-element aclIntArray, and the generated host tiling reads it with RuntimeAttrs::GetListInt. Launched here
as an L0 op would (tests/twin/fixtures/programs/list_attr_probe.cpp) with lists an L0 op of opgen never passes: an
empty or absent list reduces the last dim, as ops-nn's SoftmaxV2 tiling reads its axes; two dims are refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from spec_list import GENERATED

pytestmark = [pytest.mark.cxx]

PROBE = Path(__file__).parents[1] / "twin" / "fixtures" / "programs" / "list_attr_probe.cpp"
X = np.arange(6, dtype=np.float64).reshape(2, 3)


def _softmax(axis: int) -> np.ndarray:
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


REFERENCES = {
    "SoftmaxV2": ("softmax_v2", _softmax),
    "LogSoftmaxV2": ("log_softmax_v2", lambda axis: np.log(_softmax(axis))),
}


@pytest.fixture(scope="module", params=list(REFERENCES))
def probe(request: pytest.FixtureRequest, twin_lib) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    op_type = request.param
    directory = REFERENCES[op_type][0]
    program = twin_lib.program(
        f"list_attr_probe_{directory}", [PROBE], ops_dirs=[GENERATED / directory], flags=[f"-DOP_TYPE={op_type}"]
    )
    return program, op_type


def _run(program: Path, axes: str) -> tuple[int, np.ndarray | None]:
    result = subprocess.run([str(program), axes], capture_output=True, text=True, timeout=120, check=True)
    lines = result.stdout.split()
    launched = int(lines[1])
    if launched != 0:
        return launched, None
    assert lines[2:4] == ["run", "0"], result.stdout + result.stderr
    return launched, np.array([float(v) for v in lines[4:]]).reshape(2, 3)


@pytest.mark.parametrize(("axes", "axis"), [("-1", 1), ("1", 1), ("0", 0), ("-2", 0), ("-", 1), ("null", 1)])
def test_the_list_names_the_reduced_dim(probe: tuple[Path, str], axes: str, axis: int) -> None:
    program, op_type = probe
    launched, got = _run(program, axes)
    assert launched == 0
    np.testing.assert_allclose(got, REFERENCES[op_type][1](axis), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("axes", ["0,1", "2", "-3"])
def test_the_tiling_refuses_more_dims_or_one_out_of_range(probe: tuple[Path, str], axes: str) -> None:
    launched, got = _run(probe[0], axes)
    assert launched != 0 and got is None
