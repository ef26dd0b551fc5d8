"""Runtime defects of the CPU twin, each shown by a program that misbehaved before its fix.

1. aclCreateTensor refused ACL_DT_UNDEFINED, so the generated APIs saw a null tensor and returned
   ACLNN_ERR_PARAM_NULLPTR (161001) where CANN (and ops-nn's own unit tests) expect the op's dtype check
   to answer ACLNN_ERR_PARAM_INVALID (161002).
2. A kernel reading global memory past its buffer through a raw pointer (GlobalTensor::GetPhyAddr or the
   kernel's GM_ADDR argument) was not caught: GM buffers now end at a guard page, and the fault becomes a
   twin error naming kernel, core and access.
3. A kernel writing past the end of UB through LocalTensor::GetPhyAddr crashed the process with SIGSEGV;
   each core's UB now ends at a guard page, so the same twin error appears instead.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.programs import CHECK_EXIT_CODE, clean_env, run_program, twin_failure

from opgen.twin.compiler import compile_program

HERE = Path(__file__).parent
PROGRAMS = HERE / "fixtures" / "programs"
KERNELS = HERE / "kernels"
GENERATED = HERE.parents[1] / "generated"

ACL_DT_UNDEFINED = -1
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_INVALID = 161002


# --- 1. ACL_DT_UNDEFINED tensors --------------------------------------------------------------------


@pytest.fixture(scope="module")
def undefined_dtype_run(tmp_path_factory) -> dict[str, list[int]]:
    binary = tmp_path_factory.mktemp("undefined_dtype") / "undefined_dtype_probe"
    compile_program([PROGRAMS / "undefined_dtype_probe.cpp"], binary, ops_dirs=[GENERATED])
    result = subprocess.run([str(binary)], check=False, capture_output=True, text=True, timeout=120, env=clean_env())
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines and lines[-1] == "done", result.stdout + result.stderr
    return {line.split()[0]: [int(v) for v in line.split()[1:]] for line in lines[:-1]}


@pytest.mark.cxx
def test_acl_create_tensor_accepts_undefined_dtype(undefined_dtype_run):
    assert undefined_dtype_run["create_undefined"] == [1]
    assert undefined_dtype_run["get_data_type"] == [ACLNN_SUCCESS, ACL_DT_UNDEFINED]
    assert undefined_dtype_run["keeps_address"] == [1]
    assert undefined_dtype_run["destroy_undefined"] == [ACLNN_SUCCESS]
    assert undefined_dtype_run["data_type_size"] == [0]
    # a value that is no aclDataType at all is still refused
    assert undefined_dtype_run["create_bogus"] == [0]


@pytest.mark.cxx
@pytest.mark.parametrize(
    "case",
    [
        "elu_grad_output",  # ops-nn's aclnnEluBackward unit test: 161002 from the dtype check
        "elu_self_or_result",
        "leaky_backward_grad_output",
        "leaky_backward_self",
        "leaky_self",
    ],
)
def test_op_dtype_check_rejects_undefined_input(undefined_dtype_run, case):
    assert undefined_dtype_run[case] == [ACLNN_ERR_PARAM_INVALID]


@pytest.mark.cxx
@pytest.mark.parametrize("case", ["elu_grad_input", "leaky_backward_out", "leaky_out"])
def test_undefined_output_is_rejected_by_the_cast_check(undefined_dtype_run, case):
    # Nothing casts to an undefined dtype, so the op's own castable row rejects the output.
    assert undefined_dtype_run[case] == [ACLNN_ERR_PARAM_INVALID]


@pytest.mark.cxx
def test_defined_dtypes_still_succeed(undefined_dtype_run):
    assert undefined_dtype_run["elu_float"] == [ACLNN_SUCCESS]
    assert undefined_dtype_run["leaky_backward_float"] == [ACLNN_SUCCESS]


# --- 2. and 3. raw-pointer accesses past GM buffers and UB -------------------------------------------


@pytest.fixture(scope="module")
def raw_pointer(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("raw_pointer") / "raw_pointer_kernels"
    compile_program([KERNELS / "raw_pointer_kernels.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra"])
    return program


# case, check, kernel, core, api, fragments the details must contain
RAW_CASES = [
    (
        "gm_raw_read",
        "GM_OUT_OF_BOUNDS",
        "gm_raw_read_kernel",
        "1",
        "GlobalTensor::GetPhyAddr",
        ["GM read out of bounds via raw pointer", "byte 1036 of the GmAlloc buffer", "(1024 bytes)", "past its end"],
    ),
    (
        "gm_raw_write",
        "GM_OUT_OF_BOUNDS",
        "gm_raw_write_kernel",
        "0",
        "GlobalTensor::GetPhyAddr",
        ["GM write out of bounds via raw pointer", "byte 1024 of the GmAlloc buffer", "0 bytes past its end"],
    ),
    (
        "gm_raw_underflow",
        "GM_OUT_OF_BOUNDS",
        "gm_raw_underflow_kernel",
        "0",
        "GlobalTensor::GetPhyAddr",
        ["GM read out of bounds via raw pointer", "before its start"],
    ),
    (
        "device_raw_read",
        "GM_OUT_OF_BOUNDS",
        "gm_raw_read_kernel",
        "0",
        "GlobalTensor::GetPhyAddr",
        ["GM read out of bounds via raw pointer", "byte 1036 of the registered buffer", "(1024 bytes)"],
    ),
    (
        "ub_raw_write",
        "UB_OUT_OF_BOUNDS",
        "ub_raw_write_kernel",
        "1",
        "LocalTensor::GetPhyAddr",
        ["UB write out of bounds via raw pointer", "UB byte 196608", "0 bytes past the end", "196608-byte UB"],
    ),
    (
        "ub_raw_write_far",
        "UB_OUT_OF_BOUNDS",
        "ub_raw_write_kernel",
        "1",
        "LocalTensor::GetPhyAddr",
        ["UB write out of bounds via raw pointer", "UB byte 204800", "8192 bytes past the end"],
    ),
    (
        "ub_raw_read",
        "UB_OUT_OF_BOUNDS",
        "ub_raw_read_kernel",
        "0",
        "LocalTensor::GetPhyAddr",
        ["UB read out of bounds via raw pointer", "UB byte -8", "before the start"],
    ),
]


@pytest.mark.cxx
@pytest.mark.parametrize("case, check, kernel, core, api, fragments", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_raw_pointer_fault_is_a_twin_error(raw_pointer, case, check, kernel, core, api, fragments):
    found = twin_failure(raw_pointer, case)
    assert (found["check"], found["kernel"], found["core"], found["api"]) == (check, kernel, core, api)
    for fragment in fragments:
        assert fragment in (found["details"] or ""), (fragment, found["details"])


@pytest.mark.cxx
def test_ub_guard_follows_the_soc(raw_pointer):
    # Ascend 950's UB is 256 KB: the guard sits after byte 262144 there.
    result = run_program(raw_pointer, "ub_raw_write", OPGEN_SOC="ascend950")
    assert result.returncode == CHECK_EXIT_CODE, result.stderr
    assert "UB byte 262144" in result.stderr and "262144-byte UB" in result.stderr


@pytest.mark.cxx
def test_raw_pointer_faults_throw_and_the_runtime_recovers(raw_pointer):
    result = run_program(raw_pointer, "throw_mode")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "gm caught check=GM_OUT_OF_BOUNDS kernel=gm_raw_read_kernel core=1 api=GlobalTensor::GetPhyAddr" in out
    assert "recovered 1 2 ok" in out
    # a second and third fault in the same process are caught as well (the signal is not left blocked)
    assert "ub caught check=UB_OUT_OF_BOUNDS kernel=ub_raw_write_kernel core=1 api=LocalTensor::GetPhyAddr" in out
    assert "gm_write caught check=GM_OUT_OF_BOUNDS kernel=gm_raw_write_kernel core=0" in out
    assert "status ok" in out and "finished" in out


@pytest.mark.cxx
def test_other_segfaults_keep_their_default_behaviour(raw_pointer):
    # A null pointer is no guard page: the process still dies of SIGSEGV (and is not turned into a hang).
    result = run_program(raw_pointer, "null_read")
    assert result.returncode == -signal.SIGSEGV, (result.returncode, result.stderr)


@pytest.mark.cxx
def test_guarded_buffers_keep_their_alignment(raw_pointer):
    result = run_program(raw_pointer, "alignment")
    assert result.returncode == 0, result.stderr
    assert "gm_alloc_aligned_64 1" in result.stdout
    # aclrtMalloc guarantees a 64-byte aligned start (CANN docs); the twin keeps that
    device = run_program(raw_pointer, "device_raw_read")
    assert "device_aligned_64 1" in device.stdout


@pytest.mark.cxx
def test_raw_pointer_fault_inside_python_keeps_faulthandler(tmp_path):
    # In-process, as the opgen_ops binding runs kernels: Python's faulthandler owns SIGSEGV (on its own
    # signal stack); the twin borrows it during launches only and hands it back afterwards.
    library = tmp_path / "libraw_pointer.so"
    compile_program([KERNELS / "raw_pointer_library.cpp"], library, ops_dirs=[], flags=["-shared"])
    script = (
        "import ctypes, faulthandler\n"
        "assert faulthandler.is_enabled()\n"
        f"print('caught', ctypes.CDLL({str(library)!r}).run(), flush=True)\n"
        "ctypes.string_at(0)\n"  # a later, unrelated segfault is still faulthandler's
    )
    result = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert "caught 3" in result.stdout, result.stdout + result.stderr
    assert result.stdout.count("GM_OUT_OF_BOUNDS: kernel=raw_write_kernel core=0 api=GlobalTensor::GetPhyAddr") == 3
    assert "byte 1200 of the GmAlloc buffer" in result.stdout
    assert "Fatal Python error: Segmentation fault" in result.stderr
    assert result.returncode == -signal.SIGSEGV


@pytest.mark.cxx
def test_four_threads_call_aclnn_apis_at_once(tmp_path):
    """Before: about one call in ten failed with 561000 ("kernel ... launched while kernel ... runs")."""
    binary = tmp_path / "concurrent_calls"
    compile_program([PROGRAMS / "concurrent_calls.cpp"], binary, ops_dirs=[GENERATED], flags=["-pthread"])
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "0 failed" in run.stdout
