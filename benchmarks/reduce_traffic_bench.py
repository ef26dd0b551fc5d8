"""GM traffic and UB use of the reduce_dim kernels (the softmax family), from the CPU twin's trace: every shipped
operator on the reduce_dim schedule, in FLOAT and FLOAT16, on each row-length class of tests/support/reduce_runs.py,
found with the tiling model (opgen/plan/reduce_dim_tiling.py) for that operator and dtype: rows of one element, short
rows, the longest row that fits in a tile and one element more, a row of 100,000 elements; along a non-last dim,
columns that fit (few and many columns, the most rows that fit), one row more and more rows than one copy moves
(column chunks). The table shows per run the path the tiling model plans and

* GM bytes read per input element: 1.00 where rows or columns fit, at most levels + 1 in chunks (each reduction
  level's pass, then the outputs': 3.00 for softmax's max and sum, 2.00 for the backwards' one sum);
* GM bytes written per output element: 1.00;
* the cores the launch ran on (the tiling model's) and the UB high-water mark in bytes (the most any core allocated).

    python benchmarks/reduce_traffic_bench.py          # the table; exits 1 if a run breaks a bound
    python benchmarks/reduce_traffic_bench.py --json   # the same rows as JSON

The first run builds the twin's operator library (cached in ~/.cache/opgen or $OPGEN_CACHE_DIR).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "tests", ROOT / "generated" / "python", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from spec_list import binding  # noqa: E402
from support.reduce_runs import classes, dtypes, problems, reduce_operators, run_class  # noqa: E402

import opgen_ops  # noqa: E402
from opgen.spec.dtypes import DType  # noqa: E402


def selection() -> list[tuple[str, DType, str]]:
    """Every run: (operator's file stem, dtype, class) of each reduce_dim operator, FLOAT and FLOAT16, each class it
    can take."""
    return [
        (stem, dtype, case)
        for stem, spec in reduce_operators().items()
        for dtype in dtypes(spec)
        for case in classes(spec)
    ]


def rows(chosen: list[tuple[str, DType, str]] | None = None) -> list[dict]:
    """The runs `chosen` (default: `selection()`), one dict each; "problems" lists the bounds a run breaks."""
    result = []
    with tempfile.TemporaryDirectory() as scratch:
        for stem, dtype, case in selection() if chosen is None else chosen:
            function = getattr(opgen_ops, binding(reduce_operators()[stem]))
            run = run_class(stem, function, dtype, case, Path(scratch) / f"{stem}-{dtype.name}-{case}.jsonl")
            result.append(
                {
                    "spec": stem,
                    "operator": run.operator,
                    "dtype": dtype.name,
                    "class": case,
                    "shape": list(run.shape),
                    "dim": run.dim,
                    "path": run.path,
                    "cores": run.cores,
                    "read_per_element": run.read_per_element,
                    "read_bound": run.read_bound,
                    "levels": run.levels,
                    "written_per_element": run.written_per_element,
                    "ub_high_water": run.ub_high_water,
                    "ub_bytes": run.ub_bytes,
                    "problems": problems(run),
                }
            )
    return result


def main() -> int:
    data = rows()
    if "--json" in sys.argv:
        print(json.dumps(data, indent=1))
    else:
        print(
            f"{'spec':16} {'dtype':7} {'shape':16} {'dim':>3} {'path':13} {'cores':>5} {'read/elem':>9} "
            f"{'bound':>5} {'written/elem':>12} {'UB high-water':>13} {'of UB':>6}"
        )
        for row in data:
            shape = "x".join(map(str, row["shape"]))
            print(
                f"{row['spec']:16} {row['dtype']:7} {shape:16} {row['dim']:>3} {row['path']:13} {row['cores']:>5} "
                f"{row['read_per_element']:>9.2f} {row['read_bound']:>5.2f} {row['written_per_element']:>12.2f} "
                f"{row['ub_high_water']:>13,} {row['ub_high_water'] / row['ub_bytes']:>6.1%}"
            )
    off = [row for row in data if row["problems"]]
    for row in off:
        print(
            f"out of bounds: {row['spec']} {row['dtype']} {row['class']}: {'; '.join(row['problems'])}", file=sys.stderr
        )
    return 1 if off or not data else 0


if __name__ == "__main__":
    sys.exit(main())
