"""benchmarks/reduce_traffic_bench.py on a selection of its runs (tests/support/reduce_runs.py: every reduce_dim
operator in FLOAT on the classes at the tiling model's boundaries, FLOAT16 on two): the path each class is meant for
is the one the tiling model plans, and the twin's trace shows each input read once per element where rows or
columns fit, at most levels + 1 times in chunks, each output written once, the launch on the model's cores within
the SoC's UB. The bench finds every spec on the reduce_dim schedule, and its bound check sees a crossing."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from spec_list import every_operator
from support.reduce_runs import (
    CLASSES,
    COLUMN_CHUNKS,
    FITTING_PATHS,
    ROW_CHUNKS,
    ROWS_FIT,
    ReduceRun,
    classes,
    problems,
    reduce_operators,
)

from opgen.spec.dtypes import DType

pytest.importorskip("opgen_ops")

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "reduce_traffic_bench.py"
BOUNDARY_CLASSES = (
    "rows_of_one",
    "longest_fitting_row",
    "one_element_more",
    "most_fitting_column_rows",
    "one_column_row_more",
    "more_rows_than_one_copy",
)


def _bench() -> ModuleType:
    found = importlib.util.spec_from_file_location("reduce_traffic_bench", BENCH)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    sys.modules.setdefault(found.name, module)
    found.loader.exec_module(module)
    return module


def test_the_bench_runs_every_reduce_dim_spec_on_every_class():
    reducing = {stem for stem, spec in every_operator().items() if spec.reduce_dim is not None and not spec.kernel.runs}
    assert reducing and set(reduce_operators()) == reducing
    chosen = _bench().selection()
    assert {stem for stem, _, _ in chosen} == reducing
    assert {case for _, _, case in chosen} == set(CLASSES)
    assert {dtype for _, dtype, _ in chosen} == {DType.FLOAT, DType.FLOAT16}


@pytest.mark.parametrize("op", list(reduce_operators()))
def test_reads_and_writes_stay_within_the_bounds(op):
    taken = classes(reduce_operators()[op])
    chosen = [(op, DType.FLOAT, case) for case in BOUNDARY_CLASSES if case in taken]
    chosen += [(op, DType.FLOAT16, case) for case in ("one_element_more", "one_column_row_more") if case in taken]
    data = _bench().rows(chosen)
    assert [(row["dtype"], row["class"]) for row in data] == [(dtype.name, case) for _, dtype, case in chosen]
    for row in data:
        where = f"{row['dtype']} {row['class']} {row['shape']} dim {row['dim']}"
        assert row["problems"] == [], where
        assert row["path"] == CLASSES[row["class"]], where
        assert row["written_per_element"] == 1, where
        if row["path"] in FITTING_PATHS:
            assert row["read_per_element"] == 1, where
        else:
            assert 1 < row["read_per_element"] <= row["read_bound"] <= row["levels"] + 1, where
        assert 0 < row["ub_high_water"] <= row["ub_bytes"] and row["cores"] >= 1, where


def test_the_bound_check_sees_a_crossing():
    """A run within every bound passes; each bound broken alone is named."""
    fine = ReduceRun(
        "aclnnX", DType.FLOAT, "one_element_more", (3, 9217), -1, ROW_CHUNKS, 2, 3, 3, 3, 3.0, 1.0, 100, 200
    )
    assert fine.read_bound == 3 and problems(fine) == []
    # two inputs, one of them read by one pass of three: 2 loads per element at most
    assert dataclasses.replace(fine, passes=2.0, read_per_element=2.0).read_bound == 2
    (over,) = problems(dataclasses.replace(fine, passes=2.0, read_per_element=3.0))
    assert "read 3.00 per element in row chunks (at most 2" in over, over
    broken = {
        "read 4.00": dataclasses.replace(fine, read_per_element=4.0),
        "read 2.00 per element where the rows fit": dataclasses.replace(
            fine, case="longest_fitting_row", path=ROWS_FIT, read_per_element=2.0
        ),
        "written 2.00": dataclasses.replace(fine, written_per_element=2.0),
        "the tiling model plans column chunks": dataclasses.replace(fine, path=COLUMN_CHUNKS),
        "the tiling model's 3": dataclasses.replace(fine, cores=5),
        "UB high-water 300": dataclasses.replace(fine, ub_high_water=300),
    }
    for message, run in broken.items():
        (found,) = problems(run)
        assert message in found, found
