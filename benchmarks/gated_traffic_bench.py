"""GM traffic of the half-split (gated) kernels, from the CPU twin's trace: for every shipped operator with `split:`
and each shape class of its (x, 2, ny) view (tests/support/half_split_runs.py: ny = 1, small ny, a half-row not a
whole number of 32-byte blocks, odd rows along a non-last dim, a negative leading dim, a row past the UB tile, more
rows than one DataCopyPad moves), the generated aclnn API runs in float32 on the twin and the table shows

* GM bytes read / ideal (each input element once) and written / ideal (each output element once): must be 1.00;
* UB bytes per moved element: what the copies' UB blocks took per element (4.00 where they land contiguously;
  more where each row is padded to a whole 32-byte block, e.g. 32.00 for one float per row);
* the GM <-> UB copy instructions issued.

    python benchmarks/gated_traffic_bench.py          # the table; exits 1 if any ratio is not 1.00
    python benchmarks/gated_traffic_bench.py --json   # the same rows as JSON

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

from spec_list import binding, every_operator  # noqa: E402
from support.half_split_runs import SHAPE_CLASSES, run_class, runs_on  # noqa: E402

import opgen_ops  # noqa: E402


def rows() -> list[dict]:
    result = []
    with tempfile.TemporaryDirectory() as scratch:
        for op, spec in every_operator().items():
            if spec.split is None:
                continue
            function = getattr(opgen_ops, binding(spec))
            for index, case in enumerate(SHAPE_CLASSES):
                if not runs_on(spec, case):
                    continue
                traffic = run_class(spec, function, case, index, Path(scratch) / f"{op}-{case}.jsonl").traffic
                result.append(
                    {
                        "operator": spec.api.name,
                        "class": case,
                        "read_ratio": traffic.read_ratio,
                        "written_ratio": traffic.written_ratio,
                        "ub_bytes_per_element": traffic.ub_bytes_per_element,
                        "copies": traffic.copies,
                    }
                )
    return result


def main() -> int:
    data = rows()
    if "--json" in sys.argv:
        print(json.dumps(data, indent=1))
    else:
        print(f"{'operator':22} {'class':24} {'read/ideal':>10} {'written/ideal':>13} {'UB B/elem':>9} {'copies':>7}")
        for row in data:
            print(
                f"{row['operator']:22} {row['class']:24} {row['read_ratio']:>10.2f} {row['written_ratio']:>13.2f} "
                f"{row['ub_bytes_per_element']:>9.2f} {row['copies']:>7}"
            )
    off = [r for r in data if r["read_ratio"] != 1 or r["written_ratio"] != 1]
    for row in off:
        print(f"not ideal: {row['operator']} {row['class']}", file=sys.stderr)
    return 1 if off or not data else 0


if __name__ == "__main__":
    sys.exit(main())
