"""Each of the twin's checks, triggered by a small faulty kernel (tests/twin/kernels/faulty_kernels.cpp).

A failed check prints one line `opgen-twin: error: <CHECK>: kernel=<k> core=<i> api=<API> <details>` and
exits with status 3 (never a crash); in throw mode it raises opgen_twin::CheckError instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.programs import CHECK_EXIT_CODE, run_program, twin_failure

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("faulty") / "faulty_kernels"
    compile_program([KERNELS / "faulty_kernels.cpp"], program, ops_dirs=[])
    return program


# case, check, kernel, core, api, fragments the details must contain
CASES = [
    (
        "oversubscribe",
        "UB_OVERSUBSCRIBED",
        "oversubscribe_kernel",
        "0",
        "TPipe::InitBuffer",
        ["VECIN queue", "num=2", "len=96256", "192512 bytes", "188160 usable", "soc=ascend910b"],
    ),
    ("misaligned", "UB_MISALIGNED", "misaligned_kernel", "0", "Adds", ["dst starts at UB offset 6"]),
    (
        "datacopy_length",
        "DATACOPY_LENGTH",
        "datacopy_length_kernel",
        "0",
        "DataCopy",
        ["count=100", "200 bytes", "DataCopyPad"],
    ),
    ("compare_count", "COMPARE_COUNT", "compare_count_kernel", "0", "Compare", ["count=100", "400 bytes", "256-byte"]),
    (
        "gm_read_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_read_oob_kernel",
        "0",
        "DataCopy",
        ["reads bytes [128, 384)", "SetGlobalBuffer size covers 256 bytes", "past its end"],
    ),
    (
        "gm_pad_write_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_pad_write_oob_kernel",
        "0",
        "DataCopyPad",
        ["writes bytes [0, 44)", "covers 40 bytes"],
    ),
    (
        "gm_getvalue_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_getvalue_oob_kernel",
        "0",
        "GlobalTensor::GetValue",
        ["reads bytes [32, 36)", "covers 32 bytes"],
    ),
    (
        "gm_setvalue_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_setvalue_oob_kernel",
        "0",
        "GlobalTensor::SetValue",
        ["writes bytes [-4, 0)", "before its start"],
    ),
    (
        "gm_allocation_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_allocation_oob_kernel",
        "0",
        "DataCopy",
        ["reads bytes [800, 1056)", "allocation covers 1024 bytes"],
    ),
    (
        # the size given to SetGlobalBuffer covers it, the buffer does not (before: an unchecked read far
        # past the buffer's guard page)
        "gm_far_oob",
        "GM_OUT_OF_BOUNDS",
        "gm_far_oob_kernel",
        "0",
        "DataCopy",
        ["reads bytes [1048576, 1048832) of the GmAlloc buffer", "which has only 1024 bytes"],
    ),
    (
        "overlap",
        "GM_WRITE_OVERLAP",
        "overlap_kernel",
        "2",
        "DataCopy",
        ["core 2 and core 0 both write", "bytes [128, 256) of the GmAlloc buffer"],
    ),
    ("deque_empty", "DEQUE_EMPTY", "deque_empty_kernel", "0", "DeQue", ["VECOUT queue is empty"]),
    ("enque_full", "ENQUE_FULL", "enque_full_kernel", "0", "EnQue", ["VECIN queue already holds depth=1"]),
    (
        "live_tensors",
        "LIVE_TENSORS_EXCEEDED",
        "live_tensors_kernel",
        "0",
        "AllocTensor",
        ["8 tensors of position VECIN", "at most 8"],
    ),
    (
        "leak",
        "TENSOR_LEAK",
        "leak_kernel",
        "0",
        "FreeTensor",
        ["1 tensor(s) still allocated when the kernel returned", "VECOUT queue", "enqueued, never dequeued"],
    ),
    (
        "cast_mode",
        "CAST_MODE_ILLEGAL",
        "cast_mode_kernel",
        "0",
        "Cast",
        ["dtype=half->float", "mode=CAST_RINT", "soc=ascend910b", "legal modes are CAST_NONE"],
    ),
    ("dtype", "DTYPE_UNSUPPORTED", "dtype_kernel", "0", "Exp", ["dtype=bfloat16_t", "soc=ascend910b", "half, float"]),
    (
        "wait_without_set",
        "EVENT_UNPAIRED",
        "wait_without_set_kernel",
        "0",
        "WaitFlag",
        ["event=MTE2_V id=1", "without a matching SetFlag"],
    ),
    (
        "set_without_wait",
        "EVENT_UNPAIRED",
        "set_without_wait_kernel",
        "0",
        "SetFlag",
        ["event=V_MTE3 id=2", "never waited"],
    ),
    ("event_id", "EVENT_ID_RANGE", "event_id_kernel", "0", "SetFlag", ["id=8", "0..7"]),
    ("no_free_buffer", "ALLOC_NO_FREE_BUFFER", "no_free_buffer_kernel", "0", "AllocTensor", ["all 2 buffers"]),
    ("use_after_free", "USE_AFTER_FREE", "use_after_free_kernel", "0", "Duplicate", ["freed with FreeTensor"]),
    ("double_free", "FREE_INVALID", "double_free_kernel", "0", "FreeTensor", ["already free"]),
    ("two_pipes", "TPIPE_MISUSE", "two_pipes_kernel", "0", "TPipe", ["one TPipe at a time"]),
    ("ub_range", "UB_OUT_OF_BOUNDS", "ub_range_kernel", "0", "Muls", ["needs bytes [0, 260)", "has 256 bytes"]),
    (
        "tiling_short",
        "GM_OUT_OF_BOUNDS",
        "tiling_kernel",
        "0",
        "GET_TILING_DATA",
        ["tiling=SmallTiling needs 40 bytes", "has 8 bytes"],
    ),
    ("outside_kernel", "NO_ACTIVE_CORE", "-", "-", "GetBlockIdx", ["no kernel is running"]),
    ("unknown_kernel", "UNKNOWN_KERNEL", "-", "-", "LaunchKernel", ["no_such_kernel is not registered"]),
    ("kernel_args", "KERNEL_ARGS", "-", "-", "LaunchKernel", ["takes 1 GM_ADDR arguments, 2 given"]),
    ("unknown_soc", "UNKNOWN_SOC", "-", "-", "SetSoc", ["soc=ascend999", "ascend910b"]),
    ("gm_free_invalid", "GM_FREE_INVALID", "-", "-", "GmFree", ["not returned by GmAlloc"]),
]


@pytest.mark.parametrize("case, check, kernel, core, api, fragments", CASES, ids=[c[0] for c in CASES])
def test_check_fires_with_details(faulty, case, check, kernel, core, api, fragments):
    found = twin_failure(faulty, case)
    assert (found["check"], found["kernel"], found["core"], found["api"]) == (check, kernel, core, api)
    for fragment in fragments:
        assert fragment in (found["details"] or ""), (fragment, found["details"])


def test_ub_limit_follows_the_soc(faulty):
    # 192,512 bytes of queue buffers exceed A2's 188,160 usable bytes but fit Ascend 950's 253,952.
    assert twin_failure(faulty, "oversubscribe")["check"] == "UB_OVERSUBSCRIBED"
    assert run_program(faulty, "oversubscribe", OPGEN_SOC="ascend950").returncode == 0
    details = twin_failure(faulty, "oversubscribe", OPGEN_SOC="ascend910_93")["details"]
    assert "soc=ascend910_93" in details


def test_bf16_arithmetic_allowed_on_ascend950(faulty):
    assert run_program(faulty, "dtype", OPGEN_SOC="ascend950").returncode == 0
    # Without bfloat16 at all, even the Duplicate before Exp is refused.
    found = twin_failure(faulty, "dtype", OPGEN_SOC="ascend310p")
    assert (found["check"], found["api"]) == ("DTYPE_UNSUPPORTED", "Duplicate")


def test_throw_mode_raises_check_error_and_recovers(faulty):
    result = run_program(faulty, "throw_mode")
    assert result.returncode == 0, result.stderr
    assert "caught check=GM_WRITE_OVERLAP kernel=overlap_kernel core=2 api=DataCopy" in result.stdout
    assert "what=opgen-twin: error: GM_WRITE_OVERLAP: kernel=overlap_kernel core=2 api=DataCopy" in result.stdout
    assert "is_runtime_error=1" in result.stdout
    assert "recovered 1 2 ok" in result.stdout
    assert result.stderr == ""


def test_env_selects_throw_mode(faulty):
    result = run_program(faulty, "env_throw_mode", OPGEN_TWIN_ON_ERROR="throw")
    assert result.returncode == 0, result.stderr
    assert "caught check=GM_WRITE_OVERLAP" in result.stdout
    # Without the variable the same program stops at the check.
    assert run_program(faulty, "env_throw_mode").returncode == CHECK_EXIT_CODE
