"""Runs the generated golden tests of every operator and prints cases per op and wall time.

python benchmarks/golden_suite.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    files = sorted((ROOT / "generated").glob("*/tests/test_golden_*.py"))
    total_cases, total_seconds, failed = 0, 0.0, False
    print(f"{'operator':18} {'cases':>6} {'passed':>7} {'seconds':>8}")
    for path in files:
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        seconds = time.perf_counter() - start
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", summary)) else 0
        failures = int(m.group(1)) if (m := re.search(r"(\d+) failed", summary)) else 0
        cases = passed + failures
        failed |= proc.returncode != 0
        total_cases += cases
        total_seconds += seconds
        print(f"{path.parent.parent.name:18} {cases:>6} {passed:>7} {seconds:>8.1f}")
    print(f"{'total':18} {total_cases:>6} {'':>7} {total_seconds:>8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
