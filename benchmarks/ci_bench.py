"""Does the test suite stay within budget as operators are added? Cold CI and warm pytest with N operators.

    python benchmarks/ci_bench.py [--ops 60] [--base-ops 0] [--keep DIR]

Copies this checkout (its files, without generated/) into a temporary folder, puts N specs in its specs/ (the
real ones and renamed copies of them, as `build_bench.py` makes them) and, in that copy, with fresh caches:

- cold: what `.ci/run` does after its `pip install` steps (the packages are already installed here):
  `opgen build specs/`, `opgen build specs/ --check`, `python -m pytest -q`; target <= 15 minutes;
- warm: `python -m pytest -q` again; target <= 3 minutes.

With `--base-ops M` (e.g. 3: the real specs alone) it measures the same for M operators, and prints the
marginal cost of one operator, cold and warm: (T(N) - T(M)) / (N - M).

The copies carry no aten op (their renamed aten names do not exist in torch), so their comparisons with
torch.ops.aten do not run; the real specs' do. The machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_bench import synthetic_specs

ROOT = Path(__file__).resolve().parents[1]
COLD_TARGET_S = 15 * 60
WARM_TARGET_S = 3 * 60
CORES = os.cpu_count() or 1


@dataclass
class Run:
    ops: int
    build_s: float
    check_s: float
    cold_pytest_s: float
    warm_pytest_s: float
    cold_summary: str
    warm_summary: str
    cold_cpu_s: float  # CPU of build, check and the cold pytest (all processes)
    warm_cpu_s: float

    @property
    def cold_s(self) -> float:
        return self.build_s + self.check_s + self.cold_pytest_s


def copy_checkout(target: Path) -> None:
    """The checkout's files (tracked and untracked, not ignored), without generated/."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        if rel.startswith("generated/") or not (ROOT / rel).is_file():
            continue
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target / rel)


def make_specs(specs: Path, count: int) -> None:
    """`count` specs: the real ones, then renamed copies without an aten op."""
    real = sorted(specs.glob("*.yaml"))
    if count < len(real):
        raise SystemExit(f"--ops {count}: at least the {len(real)} real specs")
    copies = specs.parent / ".copies"
    for path in synthetic_specs(count - len(real), copies):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data["api"].pop("aten", None)
        if data["api"].get("inplace"):
            data["api"]["inplace"].pop("aten", None)
        (specs / path.name).write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    shutil.rmtree(copies)


CPU = {"s": 0.0}  # CPU seconds of the last timed command and everything it started


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[float, str]:
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    CPU["s"] = _children_cpu() - cpu
    log.write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        print(f"{' '.join(command)} failed ({proc.returncode}), log {log}:\n{tail}", file=sys.stderr)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    return seconds, (lines[-1] if lines else "")


def measure(ops: int, work: Path) -> Run:
    tree, cache = work / f"tree{ops}", work / f"cache{ops}"
    copy_checkout(tree)
    make_specs(tree / "specs", ops)
    env = {
        **os.environ,
        "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'generated' / 'python'}",
        "OPGEN_CACHE_DIR": str(cache),
    }
    python = sys.executable
    pytest = [python, "-m", "pytest", "-q", "--durations=25"]
    build_s, _ = timed([python, "-m", "opgen.cli", "build", "specs/", "-q"], tree, env, work / f"build{ops}.log")
    cold_cpu = CPU["s"]
    check_s, _ = timed([python, "-m", "opgen.cli", "build", "specs/", "--check"], tree, env, work / f"check{ops}.log")
    cold_cpu += CPU["s"]
    cold_s, cold = timed(pytest, tree, env, work / f"cold{ops}.log")
    cold_cpu += CPU["s"]
    warm_s, warm = timed(pytest, tree, env, work / f"warm{ops}.log")
    return Run(ops, build_s, check_s, cold_s, warm_s, cold, warm, cold_cpu, CPU["s"])


def report(run: Run) -> list[str]:
    lines = [
        f"{run.ops} operators: cold CI {run.cold_s:.0f} s (build {run.build_s:.0f} s, --check {run.check_s:.0f} s, "
        f"pytest {run.cold_pytest_s:.0f} s: {run.cold_summary}); warm pytest {run.warm_pytest_s:.0f} s "
        f"({run.warm_summary}); CPU: cold {run.cold_cpu_s:.0f} s, warm {run.warm_cpu_s:.0f} s "
        f"(on {CORES} idle cores at least {run.cold_cpu_s / CORES / 60:.1f} and {run.warm_cpu_s / CORES / 60:.1f} min)"
    ]
    for name, seconds, target in (
        ("cold .ci/run", run.cold_s, COLD_TARGET_S),
        ("warm pytest", run.warm_pytest_s, WARM_TARGET_S),
    ):
        met = seconds <= target
        why = "" if met else f" (over by {seconds - target:.0f} s; see the slowest tests in the log)"
        lines.append(f"{'met    ' if met else 'NOT MET'}  {name} <= {target / 60:.0f} min: {seconds / 60:.1f} min{why}")
    for name, summary in (("cold", run.cold_summary), ("warm", run.warm_summary)):
        if " failed" in summary or "error" in summary:
            lines.append(f"NOT MET  {name} pytest is green: {summary}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=60)
    parser.add_argument("--base-ops", type=int, default=0, help="also measure this many operators (marginal cost)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (trees, caches, logs)")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="opgen-ci-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        runs = [measure(args.ops, work)]
        for line in report(runs[0]):
            print(line, flush=True)
        if args.base_ops:
            base = measure(args.base_ops, work)
            runs.append(base)
            for line in report(base):
                print(line)
            extra = args.ops - args.base_ops
            print(
                f"marginal cost per operator: cold {(runs[0].cold_s - base.cold_s) / extra:.1f} s, "
                f"warm {(runs[0].warm_pytest_s - base.warm_pytest_s) / extra:.2f} s; in CPU: cold "
                f"{(runs[0].cold_cpu_s - base.cold_cpu_s) / extra:.1f} s, "
                f"warm {(runs[0].warm_cpu_s - base.warm_cpu_s) / extra:.2f} s"
            )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
