"""The twin's ACL runtime subset: correct use works, misuse returns CANN's aclError codes and logs.

The expected codes are AscendCL's documented values (acl_base.h / rt_error_codes.h), not the twin's
own output.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opgen.twin.compiler import compile_program

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"

ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_UNINITIALIZE = 100001
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_INVALID_FILE = 100003
ACL_ERROR_REPEAT_FINALIZE = 100037
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001
ACL_ERROR_RT_CONTEXT_NULL = 107002

EXPECTED_CODES = {
    "set_device_before_init": ACL_ERROR_UNINITIALIZE,
    "malloc_before_init": ACL_ERROR_UNINITIALIZE,
    "finalize_before_init": ACL_ERROR_UNINITIALIZE,
    "init_missing_config": ACL_ERROR_INVALID_FILE,
    "init": ACL_SUCCESS,
    "init_again": ACL_ERROR_REPEAT_INITIALIZE,
    "malloc_before_set_device": ACL_ERROR_RT_CONTEXT_NULL,
    "create_stream_before_set_device": ACL_ERROR_RT_CONTEXT_NULL,
    "set_device_bad_id": ACL_ERROR_RT_INVALID_DEVICEID,
    "set_device_out_of_range": ACL_ERROR_RT_INVALID_DEVICEID,
    "set_device": ACL_SUCCESS,
    "create_stream": ACL_SUCCESS,
    "create_stream_null": ACL_ERROR_INVALID_PARAM,
    "malloc_zero": ACL_ERROR_INVALID_PARAM,
    "malloc_null_out": ACL_ERROR_INVALID_PARAM,
    "malloc": ACL_SUCCESS,
    "memcpy_h2d": ACL_SUCCESS,
    "memcpy_count_over_dest_max": ACL_ERROR_INVALID_PARAM,
    "memcpy_past_allocation": ACL_ERROR_RT_PARAM_INVALID,
    "memcpy_interior_past_end": ACL_ERROR_RT_PARAM_INVALID,
    "memcpy_host_as_device": ACL_ERROR_RT_PARAM_INVALID,
    "memcpy_device_as_host": ACL_ERROR_RT_PARAM_INVALID,
    "memcpy_bad_kind": ACL_ERROR_INVALID_PARAM,
    "memcpy_null": ACL_ERROR_INVALID_PARAM,
    "memcpy_d2h": ACL_SUCCESS,
    "memset": ACL_SUCCESS,
    "memset_count_over_max": ACL_ERROR_INVALID_PARAM,
    "memset_past_allocation": ACL_ERROR_RT_PARAM_INVALID,
    "memcpy_d2h_after_memset": ACL_SUCCESS,
    "free_interior": ACL_ERROR_RT_PARAM_INVALID,
    "free_host_pointer": ACL_ERROR_RT_PARAM_INVALID,
    "free_null": ACL_ERROR_INVALID_PARAM,
    "free": ACL_SUCCESS,
    "free_twice": ACL_ERROR_RT_PARAM_INVALID,
    "synchronize_stream": ACL_SUCCESS,
    "destroy_stream": ACL_SUCCESS,
    "destroy_stream_twice": ACL_ERROR_RT_PARAM_INVALID,
    "synchronize_destroyed_stream": ACL_ERROR_RT_PARAM_INVALID,
    "reset_unset_device": ACL_ERROR_RT_INVALID_DEVICEID,
    "reset_device": ACL_SUCCESS,
    "malloc_after_reset": ACL_ERROR_RT_CONTEXT_NULL,
    "finalize": ACL_SUCCESS,
    "finalize_again": ACL_ERROR_REPEAT_FINALIZE,
}


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory) -> subprocess.CompletedProcess:
    binary = tmp_path_factory.mktemp("acl_probe") / "acl_probe"
    compile_program([PROGRAMS / "acl_probe.cpp"], binary, ops_dirs=[])
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)


def _values(run: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in run.stdout.splitlines())


def test_probe_runs_to_the_end_without_crashing(probe_run):
    assert probe_run.returncode == 0, probe_run.stderr
    assert "dtype_size_bf16" in _values(probe_run)


def test_each_call_returns_the_documented_acl_error(probe_run):
    values = _values(probe_run)
    actual = {step: int(values[step]) for step in EXPECTED_CODES}
    assert actual == EXPECTED_CODES


def test_device_memory_round_trips_and_memset_fills(probe_run):
    values = _values(probe_run)
    assert values["roundtrip_equal"] == "1"
    assert values["memset_byte"] == "3"


def test_every_failing_call_logs_one_error_line_with_its_code(probe_run):
    failing = [code for code in EXPECTED_CODES.values() if code != ACL_SUCCESS]
    error_lines = [line for line in probe_run.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(error_lines) == len(failing)
    logged = sorted(int(m.group(1)) for line in error_lines for m in [re.search(r"aclError\[(\d+)\]", line)] if m)
    assert logged == sorted(failing)


def test_float16_helpers_match_ieee_half(probe_run):
    values = _values(probe_run)
    assert float(values["float16_roundtrip"]) == pytest.approx(float(np.float16(0.333251953125)), abs=1e-6)
    assert values["dtype_size_bf16"] == "2"


def test_seed_example_compiles_against_the_twin_headers(tmp_path, shared_dir):
    """The aclnn calling example from the seed doc builds with the twin's acl headers unchanged."""
    seed = shared_dir / "seeds" / "001_04824549464a80c7.txt"
    text = seed.read_text(encoding="utf-8")
    code = re.search(r"```Cpp\n(#include <iostream>.*?)```", text, re.S).group(1)
    (tmp_path / "example.cpp").write_text(code, encoding="utf-8")
    # The operator package is generated elsewhere; declare its API so only the ACL side is checked.
    header = tmp_path / "aclnnop" / "aclnn_leaky_relu_backward.h"
    header.parent.mkdir()
    header.write_text(
        '#include "aclnn/aclnn_base.h"\n'
        'extern "C" aclnnStatus aclnnLeakyReluBackwardGetWorkspaceSize(const aclTensor*, const aclTensor*,\n'
        "    const aclScalar*, bool, aclTensor*, uint64_t*, aclOpExecutor**);\n"
        'extern "C" aclnnStatus aclnnLeakyReluBackward(void*, uint64_t, aclOpExecutor*, aclrtStream);\n',
        encoding="utf-8",
    )
    from opgen.twin import INCLUDE_DIR

    result = subprocess.run(
        [
            "g++",
            "-std=c++17",
            "-fsyntax-only",
            "-isystem",
            str(INCLUDE_DIR),
            "-I",
            str(tmp_path),
            str(tmp_path / "example.cpp"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
