"""The twin refuses a kernel that hands data between the vector pipe and the scalar unit through UB without
the synchronisation hardware needs (tests/twin/kernels/sync_kernels.cpp): a scalar GetValue of a vector result
with no SetFlag/WaitFlag<HardEvent::V_S> (or PipeBarrier<PIPE_ALL>) after the vector instruction, a scalar
SetValue into a buffer the vector pipe may still be reading, and a vector instruction reading a scalar
SetValue with no SetFlag/WaitFlag<HardEvent::S_V> before it. The same hand-offs with the flags run."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.programs import run_program, twin_failure

from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"
X = [float((i * 37) % 61) - 20.0 for i in range(64)]  # the x main() writes


@pytest.fixture(scope="module")
def sync(tmp_path_factory) -> Path:
    program = tmp_path_factory.mktemp("sync_kernels") / "sync_kernels"
    compile_program([KERNELS / "sync_kernels.cpp"], program, ops_dirs=[], flags=["-Wall", "-Wextra", "-Werror"])
    return program


def _value(program: Path, case: str) -> float:
    stdout = run_program(program, case, check=True).stdout
    (line,) = [entry for entry in stdout.splitlines() if entry.startswith("value=")]
    return float(line.removeprefix("value="))


@pytest.mark.parametrize(
    "case, expected",
    [
        ("max_synced", max(X)),
        ("max_barrier", max(X)),
        ("max_other_buffer", 5.0),
        ("set_synced", 3.0),
        ("set_other_buffer", X[0] + 1.0),
        ("queue_recycled", 3.0),
        ("max_synced_loop", max(X) + max(X[:56])),
    ],
)
def test_synchronised_hand_offs_run(sync, case, expected):
    assert _value(sync, case) == expected


@pytest.mark.parametrize("case", ["max_unsynced", "max_wrong_event", "max_flag_too_early"])
def test_scalar_read_of_a_vector_result_without_v_s_is_refused(sync, case):
    failure = twin_failure(sync, case)
    assert failure["check"] == "PIPE_SYNC_MISSING"
    assert failure["kernel"] == "sync_case" and failure["core"] == "0"
    assert failure["api"] == "LocalTensor::GetValue"
    details = failure["details"]
    assert "ReduceMax" in details  # who wrote it
    assert "bytes [0, 4) of the VECCALC TBuf at UB offset 512" in details  # the element read (after the queues)
    assert "SetFlag/WaitFlag<HardEvent::V_S>" in details and "PipeBarrier<PIPE_ALL>" in details


def test_scalar_write_into_a_buffer_the_vector_pipe_reads_is_refused(sync):
    failure = twin_failure(sync, "set_over_vector_read")
    assert (failure["check"], failure["api"]) == ("PIPE_SYNC_MISSING", "LocalTensor::SetValue")
    assert "Adds" in failure["details"] and "SetFlag/WaitFlag<HardEvent::V_S>" in failure["details"]


def test_vector_read_of_a_scalar_write_without_s_v_is_refused(sync):
    failure = twin_failure(sync, "set_unsynced")
    assert (failure["check"], failure["api"]) == ("PIPE_SYNC_MISSING", "Adds")
    details = failure["details"]
    assert details.startswith("src:") and "LocalTensor::SetValue" in details
    assert "bytes [0, 4) of the VECCALC TBuf at UB offset 512" in details  # what SetValue wrote, not all Adds reads
    assert "SetFlag/WaitFlag<HardEvent::S_V>" in details and "PipeBarrier<PIPE_ALL>" in details


def test_only_the_bytes_a_vector_instruction_writes_are_in_flight(sync):
    """Adds writes floats [8, 16) of a buffer whose earlier contents were synchronised: floats 0 and 7 read
    fine, float 8 is refused, and the message names its bytes within the TBuf."""
    result = run_program(sync, "partial_overlap")
    assert "untouched=2" in result.stdout  # 1.0 + 1.0 from the synchronised Duplicate
    failure = twin_failure(sync, "partial_overlap")
    assert (failure["check"], failure["api"]) == ("PIPE_SYNC_MISSING", "LocalTensor::GetValue")
    assert "bytes [32, 36) of the VECCALC TBuf at UB offset 576" in failure["details"]
    assert "Adds" in failure["details"]


def test_reference_to_a_vector_result_without_v_s_is_refused(sync):
    failure = twin_failure(sync, "ref_unsynced")
    assert (failure["check"], failure["api"]) == ("PIPE_SYNC_MISSING", "LocalTensor::operator()")
    assert "bytes [12, 16) of the VECCALC TBuf at UB offset 576" in failure["details"]


def test_ub_to_ub_data_copy_is_a_vector_read(sync):
    """A LocalTensor -> LocalTensor DataCopy runs on the vector pipe, so it needs S_V after a SetValue."""
    failure = twin_failure(sync, "set_then_local_copy")
    assert (failure["check"], failure["api"]) == ("PIPE_SYNC_MISSING", "DataCopy")
    assert failure["details"].startswith("src:") and "SetFlag/WaitFlag<HardEvent::S_V>" in failure["details"]


@pytest.mark.parametrize(
    "case, writer, where",
    [("inner_write_left", "Adds", "bytes [32, 36)"), ("inner_write_right", "Duplicate", "bytes [80, 84)")],
)
def test_a_write_inside_an_earlier_one_splits_it(sync, case, writer, where):
    """Duplicate writes the whole buffer, then Adds floats [8, 16): a read names the last writer of its bytes."""
    failure = twin_failure(sync, case)
    assert failure["check"] == "PIPE_SYNC_MISSING"
    assert f"{where} of the VECCALC TBuf at UB offset 576 written by {writer} on the vector pipe" in failure["details"]
