"""The twin's aclCreateTensor accepts what CANN's accepts; the ops' own checks answer; memory faults on access.

Replaying ops-nn's op_api unit tests through the generated APIs, four cases returned 161001 (a null tensor:
the twin's constructor had refused it) where ops-nn's tests expect the op's 161002: a tensor of dtype
ACL_STRING, negative view dims ([-1, -1]), and a rank-9 storage of ~95 GB described over a small
aclrtMalloc block. CANN's constructor checks none of these. Memory a storage lacks is now a fault where a
kernel or a host copy touches it, in phase 2 (561000 with a GM_OUT_OF_BOUNDS message), and only then.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PROGRAM = HERE / "fixtures" / "programs" / "acl_constructor_probe.cpp"
GENERATED = HERE.parents[1] / "generated"

ACL_STRING = 13
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_NULLPTR = 561103
REFUSED_CLEANLY = 1  # workspaceSize and executor left as they were


@pytest.fixture(scope="module")
def probe(twin_lib) -> dict[str, str]:
    binary = twin_lib.program("acl_constructor_probe", [PROGRAM], ops_dirs=[GENERATED], flags=["-Wall", "-Wextra"])
    result = subprocess.run([str(binary)], check=False, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines and lines[-1] == "done", result.stdout[-3000:] + result.stderr[-3000:]
    return dict(line.split(" ", 1) for line in lines[:-1])


def status(probe: dict[str, str], case: str) -> list[int]:
    return [int(value) for value in probe[case].split()]


@pytest.mark.cxx
def test_create_tensor_takes_what_cann_takes(probe):
    assert status(probe, "create_string") == [1, ACL_STRING]
    assert status(probe, "create_negative_dims") == [1, -1, -1]
    assert status(probe, "create_rank9_over_block") == [1]  # 94.9 GB described over 64 bytes
    assert status(probe, "create_bogus_dtype") == [0]  # a value that is no aclDataType at all


@pytest.mark.cxx
@pytest.mark.parametrize(
    "case",
    [
        # ACL_STRING: the dtype rows (aclnnLeakyRelu: self's dtype; aclnnGeluV2: y's dtype equals x's, then x's
        # dtype; aclnnEluBackward: gradOutput's dtype)
        "leaky_relu_string_self",
        "gelu_v2_string",
        "gelu_v2_string_y",
        "elu_backward_string_grad",
        # [-1, -1]: the shape rows (out's shape equals self's; broadcastable inputs; same shape as gradOutput)
        "leaky_relu_negative_self",
        "leaky_relu_negative_out",
        "gelu_v2_negative_x",
        "leaky_relu_backward_negative_grad",
        "elu_backward_negative_self",
        # rank 9 of ~95 GB over a 64-byte block: the rank rows (at most 8 dims)
        "leaky_relu_rank9_over_block",
        "leaky_relu_rank9_float",
        "leaky_relu_backward_rank9",
        "elu_backward_rank9",
    ],
)
def test_the_ops_own_checks_refuse(probe, case):
    assert status(probe, case) == [ACLNN_ERR_PARAM_INVALID, REFUSED_CLEANLY]


@pytest.mark.cxx
@pytest.mark.parametrize("case", ["leaky_relu_negative_both", "leaky_relu_count_beyond_int64"])
def test_shapes_the_checks_pass_fail_cleanly_in_phase_one(probe, case):
    # No error row speaks of unknown dims or element counts beyond int64_t; such a tensor passes the checks,
    # and the L0 op cannot plan a launch for it (CANN's infershape/tiling would fail likewise): an inner
    # error, without overflow or allocation.
    assert status(probe, case) == [ACLNN_ERR_INNER_NULLPTR, REFUSED_CLEANLY]


@pytest.mark.cxx
def test_refusals_allocate_nothing_of_what_huge_shapes_describe(probe):
    assert int(probe["max_rss_mib"]) < 1024


@pytest.mark.cxx
def test_a_storage_that_fits_runs(probe):
    assert status(probe, "run_fits") == [ACLNN_SUCCESS, ACLNN_SUCCESS]
    assert probe["run_fits_message"] == "-"


@pytest.mark.cxx
@pytest.mark.parametrize(
    "case, fragment",
    [
        ("run_kernel_reads_past_block", "GM_OUT_OF_BOUNDS: kernel leaky_relu reads bytes [0, 16384)"),
        ("run_contiguous_reads_past_block", "GM_OUT_OF_BOUNDS: Contiguous reads bytes [0, 16384)"),
        ("run_view_copy_writes_past_block", "GM_OUT_OF_BOUNDS: ViewCopy writes bytes [0, 16384)"),
        ("run_strided_view_copy_writes_past_block", "GM_OUT_OF_BOUNDS: ViewCopy writes bytes [0, 16384)"),
        ("run_aicpu_reads_past_block", "GM_OUT_OF_BOUNDS: AICPU kernel reads bytes [0, 32768)"),
    ],
)
def test_memory_a_storage_lacks_faults_where_it_is_touched(probe, case, fragment):
    # Phase one plans the call (the constructor and the checks do not look at memory); phase two's launch
    # or copy that would touch bytes the 256-byte block lacks fails, naming them.
    assert status(probe, case) == [ACLNN_SUCCESS, ACLNN_ERR_INNER]
    message = probe[f"{case}_message"]
    assert fragment in message, message
    assert "which has only 256 bytes" in message, message
