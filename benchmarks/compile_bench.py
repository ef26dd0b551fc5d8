"""Measures `opgen cc` building the twin library of the generated packages (what `import opgen_ops` builds on
first use), in one run with a temporary cache dir, and prints whether the targets are met (no asserts):

    cold       empty cache: the twin runtime + every package in generated/ + link      target <= 30 s
    warm       the same build again: nothing to compile or link
    add one    a new operator package next to them (leaky_relu's spec with renamed type, dir and APIs,
               built with `opgen build` into a temporary dir), warm cache               target <= 25% of cold
    moved      the checkout (opgen/ and the packages) copied to another path, built from there: objects
               are reused, nothing compiles
    45 ops     estimate for ~45 packages: cold + 42 x the add-one cost                  target <= 10 min

    python benchmarks/compile_bench.py [-j N] [--no-pch] [--flags "-O1"]

Each build is a fresh `python -m opgen.twin.compiler` process, timed from start to exit (wall) and by the
CPU it and the compilers used; the wall times depend on what else the machine is running (load shown).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
SPEC = ROOT / "specs" / "leaky_relu.yaml"
FUTURE_PACKAGES = 45
COLD_TARGET = 30.0
ADD_RATIO_TARGET = 0.25
FUTURE_TARGET = 600.0
SUMMARY = re.compile(r"opgen cc: (\d+) compiled, (\d+) cached")


@dataclass
class Timing:
    wall: float
    cpu: float
    compiled: int
    cached: int


def _cc(args: list[str], cache: Path, jobs: int, env: dict[str, str], cwd: Path) -> Timing:
    command = [sys.executable, "-m", "opgen.twin.compiler", *args, "--cache-dir", str(cache), "-j", str(jobs), "-v"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"build failed: {' '.join(command)}")
    match = SUMMARY.search(proc.stderr)
    compiled, cached = (int(match.group(1)), int(match.group(2))) if match else (-1, -1)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, compiled, cached)


def _binding_flags() -> list[str]:
    """The flags `opgen_ops` builds its twin library with (-O1 if the binding does not say)."""
    try:
        from opgen_ops import _runtime
    except ImportError:
        return ["-O1"]
    return list(getattr(_runtime, "_BUILD_FLAGS", ("-O1",)))


def _renamed_spec(directory: Path) -> Path:
    """leaky_relu's spec as a new operator: LeakyReluBench in leaky_relu_bench, aclnn*LeakyReluBench APIs."""
    text = SPEC.read_text(encoding="utf-8")
    text = text.replace("type: LeakyRelu\n", "type: LeakyReluBench\n").replace(
        "dir: leaky_relu\n", "dir: leaky_relu_bench\n"
    )
    text = re.sub(r"aclnn(Inplace)?LeakyRelu\b", lambda match: match.group(0) + "Bench", text)
    directory.mkdir(parents=True)
    (directory / "leaky_relu_bench.yaml").write_text(text, encoding="utf-8")
    return directory


def _copy_packages(source: Path, target: Path) -> None:
    for package in sorted(source.iterdir()):
        if (package / "op_api").is_dir() or (package / "op_kernel").is_dir():
            shutil.copytree(package, target / package.name, copy_function=shutil.copy)


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--no-pch", action="store_true", help="without the precompiled standard headers")
    parser.add_argument("--flags", help="compile flags (default: those of the opgen_ops binding, e.g. -O2)")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.no_pch:
        env["OPGEN_CC_PCH"] = "0"
    flags = args.flags.split() if args.flags else _binding_flags()
    load = os.getloadavg()[0]
    print(f"flags {' '.join(flags)}, jobs {args.jobs}, cores {os.cpu_count()}, load average {load:.2f} before the run")

    with tempfile.TemporaryDirectory(prefix="opgen-compile-bench-") as temporary:
        tmp = Path(temporary)
        cache = tmp / "cache"
        stub = tmp / "opgen_ops_entry.cpp"
        stub.write_text("// The aclnn APIs come from the generated packages; this unit only anchors the link.\n")
        ops = tmp / "checkout" / "generated"
        _copy_packages(GENERATED, ops)
        library = ["-shared", *flags, str(stub), "-o", str(tmp / "libopgen_ops.so")]
        build = [*library, "--ops-dir", str(ops)]

        cold = _cc(build, cache, args.jobs, env, ROOT)
        warm = _cc(build, cache, args.jobs, env, ROOT)

        extra = tmp / "extra"
        generated = subprocess.run(
            [sys.executable, "-m", "opgen.cli", "build", str(_renamed_spec(tmp / "specs")), "-o", str(extra)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if generated.returncode != 0:
            sys.stderr.write(generated.stdout + generated.stderr)
            raise SystemExit("opgen build of the renamed spec failed")
        add = _cc([*build, "--ops-dir", str(extra / "leaky_relu_bench")], cache, args.jobs, env, ROOT)

        # The checkout at another path: opgen/ (the twin) and the packages, run from there.
        moved_root = tmp / "moved"
        shutil.copytree(ROOT / "opgen", moved_root / "opgen", copy_function=shutil.copy)
        _copy_packages(ops, moved_root / "generated")
        moved_env = dict(env, PYTHONPATH=str(moved_root))
        moved = _cc([*library, "--ops-dir", str(moved_root / "generated")], cache, args.jobs, moved_env, moved_root)

    packages = len([p for p in GENERATED.iterdir() if (p / "op_api").is_dir()])
    per_package_wall = max(add.wall - warm.wall, 0.0)
    future_wall = cold.wall + (FUTURE_PACKAGES - packages) * per_package_wall
    future_cpu = (cold.cpu + (FUTURE_PACKAGES - packages) * add.cpu) / max(args.jobs, 1)
    ratio = add.wall / cold.wall if cold.wall else 0.0

    print(f"{'build':34} {'wall s':>8} {'cpu s':>8} {'compiled':>9} {'cached':>7}")
    for name, timing in (
        (f"cold ({packages} operators, empty cache)", cold),
        ("warm no-op", warm),
        ("add one operator", add),
        ("moved checkout", moved),
    ):
        print(f"{name:34} {timing.wall:8.2f} {timing.cpu:8.2f} {timing.compiled:9d} {timing.cached:7d}")
    print()
    print(f"cold <= {COLD_TARGET:.0f} s: {cold.wall:.1f} s -> {_verdict(cold.wall <= COLD_TARGET)}")
    print(f"add one / cold <= {ADD_RATIO_TARGET:.0%}: {ratio:.0%} -> {_verdict(ratio <= ADD_RATIO_TARGET)}")
    print(f"warm no-op / cold: {warm.wall / cold.wall:.1%}")
    print(f"moved checkout compiled nothing: {moved.compiled == 0} -> {_verdict(moved.compiled == 0)}")
    print(
        f"{FUTURE_PACKAGES} operators cold, estimated: {future_wall:.0f} s wall "
        f"(cold + {FUTURE_PACKAGES - packages} x {per_package_wall:.1f} s per package; "
        f"by CPU: {future_cpu:.0f} s on {args.jobs} jobs) <= {FUTURE_TARGET:.0f} s -> "
        f"{_verdict(max(future_wall, future_cpu) <= FUTURE_TARGET)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
