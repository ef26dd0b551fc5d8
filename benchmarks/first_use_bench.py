"""What the first use of one operator costs, with an empty cache (a fresh OPGEN_CACHE_DIR): in one run,

    binding    `opgen_ops.<function>(...)` in a new process: the twin's core and that operator's package are
               compiled (one shared library each); units compiled and seconds, next to the units of the
               library of every package (what the first call compiled before; counted, not built)
    opgen cc   then the operator's calling example (generated/<op>/examples/*.cpp) with `opgen cc`, same
               cache: only the example (and the registration shim) compile, the rest is the binding's
    start-up   modules `opgen --version` imports beyond the interpreter's own (python -X importtime)

    python benchmarks/first_use_bench.py [--op leaky_relu] [--function leaky_relu] [-j N]

The wall times depend on what else the machine runs (the load is printed); the unit counts do not.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
SUMMARY = re.compile(r"opgen cc: (\d+) compiled, (\d+) cached")


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-4000:])
        raise SystemExit(f"failed: {' '.join(command)}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def _objects(cache: Path) -> int:
    return sum(1 for _ in (cache / "objects").rglob("*.o")) if (cache / "objects").is_dir() else 0


def _every_package_units() -> int:
    """Units of the library of the twin and every package (the binding's OPGEN_OPS_ALL=1 build), counted."""
    from opgen.twin.compiler import Plan, _context, parse_args
    from opgen_ops import _runtime

    plan = Plan(parse_args(_runtime.twin_library_args(Path(tempfile.gettempdir()) / "count.so")))
    return len(plan.build_units(_context(plan).path_map)) + 1  # + the precompiled header


def _imported_modules(code: str) -> int:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True)
    return sum(1 for line in proc.stderr.splitlines() if line.startswith("import time:") and "|" in line) - 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", default="leaky_relu", help="the operator's package (generated/OP)")
    parser.add_argument("--function", default="leaky_relu", help="the opgen_ops function to call")
    parser.add_argument("-j", "--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    packages = sum(1 for path in GENERATED.iterdir() if (path / "op_api").is_dir())
    print(f"{packages} packages in generated/, cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")

    with tempfile.TemporaryDirectory(prefix="opgen-first-use-") as temporary:
        cache = Path(temporary) / "cache"
        env = {**os.environ, "OPGEN_CACHE_DIR": str(cache), "OPGEN_OPS_ALL": "0"}
        call = (
            "import numpy as np, opgen_ops; from opgen_ops import _runtime; "
            f"opgen_ops.{args.function}(np.linspace(-2, 2, 8, dtype=np.float32)); print(*_runtime.loaded_packages())"
        )
        wall, cpu, proc = _run([sys.executable, "-c", call], env)
        units = _objects(cache) + sum(1 for _ in (cache / "pch").glob("*/*.gch"))
        every = _every_package_units()
        print(f"binding, first call of opgen_ops.{args.function} (fresh cache): {wall:.1f} s wall, {cpu:.1f} CPU-s;")
        print(f"  {units} units compiled (libraries loaded: the twin's core, {proc.stdout.strip()});")
        print(f"  the library of every package is {every} units: {units / every:.0%} of them")

        example = sorted((GENERATED / args.op / "examples").glob("*.cpp"))[0]
        output = Path(temporary) / "example"
        command = [
            sys.executable,
            "-m",
            "opgen.twin.compiler",
            str(example),
            "-o",
            str(output),
            "-v",
            "-j",
            str(args.jobs),
        ]
        wall, cpu, proc = _run(command, env)
        match = SUMMARY.search(proc.stderr)
        compiled, cached = (int(match.group(1)), int(match.group(2))) if match else (-1, -1)
        print(f"opgen cc {example.relative_to(ROOT)} (same cache): {wall:.1f} s wall, {cpu:.1f} CPU-s;")
        print(f"  {compiled} units compiled, {cached} from the binding's build")

    base = _imported_modules("pass")
    version = _imported_modules("import sys; from opgen.cli import main; sys.argv = ['opgen', '--version']; main()")
    print(f"start-up: `opgen --version` imports {version - base} modules beyond the interpreter's {base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
