"""Build throughput, incrementality and memory of `opgen build`, with torchgen as the anchor, in one run.

    python benchmarks/build_bench.py [--ops 60] [--no-torchgen]

Makes N synthetic specs (the real ones, renamed copy by copy) in a temporary folder and measures:
- a cold build (empty build cache, all cores): operators/s and generated files/s, against torchgen's
  schemas/s for its own full code generation (`python -m torchgen.gen` over the packaged
  native_functions.yaml) on the same machine in the same run;
- a no-op rebuild and a rebuild after editing one description, as fractions of the cold build;
- peak memory of a cold build of N/3 and of N operators (separate processes), as MiB per operator.
Every figure is a ratio or a rate from this run; targets are printed with whether they are met.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def synthetic_specs(count: int, folder: Path) -> list[Path]:
    """`count` valid specs: the real ones in turn, each copy with its own names (type, dir, APIs, aten ops)."""
    sources = sorted((ROOT / "specs").glob("*.yaml"))
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for index in range(count):
        data = yaml.safe_load(sources[index % len(sources)].read_text(encoding="utf-8"))
        tag = f"S{index}"
        operator, api = data["operator"], data["api"]
        operator["type"] += tag
        operator["dir"] += f"_s{index}"
        api["name"] += tag
        if api.get("aten"):
            api["aten"] += f"_s{index}"
        if api.get("doc_name"):
            api["doc_name"] = api["name"]
        if api.get("inplace"):
            api["inplace"]["name"] += tag
            if api["inplace"].get("aten"):
                api["inplace"]["aten"] = api["inplace"]["aten"].rstrip("_") + f"_s{index}_"
        path = folder / f"{operator['dir']}.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        made.append(path)
    return made


def _in_process_build(specs: Path, out: Path, cache: Path) -> float:
    """Seconds of one `opgen build` in this process (no interpreter start-up or imports in the figure)."""
    code = (
        "import sys, time; from pathlib import Path; from opgen.cli import main\n"
        "t = time.perf_counter(); rc = main(['build', sys.argv[1], '-o', sys.argv[2], '-q'])\n"
        "print(time.perf_counter() - t); sys.exit(rc)\n"
    )
    env = {**os.environ, "OPGEN_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(specs), str(out)], check=True, env=env, capture_output=True, text=True
    )
    return float(proc.stdout.strip().splitlines()[-1])


def _peak_rss_mib(specs: Path, out: Path, cache: Path) -> float:
    code = (
        "import resource, sys; from opgen.cli import main\n"
        "rc = main(['build', sys.argv[1], '-o', sys.argv[2], '-q', '--no-cache', '-j', '1'])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    env = {**os.environ, "OPGEN_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(specs), str(out)], check=True, env=env, capture_output=True, text=True
    )
    return float(proc.stdout.strip().splitlines()[-1])


def torchgen_rate(work: Path) -> tuple[float, int, float]:
    import torchgen

    aten = Path(torchgen.__file__).parent / "packaged" / "ATen"
    schemas = sum(1 for line in (aten / "native" / "native_functions.yaml").open() if line.startswith("- func:"))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "torchgen.gen", "-s", str(aten), "-d", str(work / "torchgen")],
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - started
    return schemas / seconds, schemas, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=60)
    parser.add_argument("--no-torchgen", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, object] = {"ops": args.ops, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        work = Path(tmp)
        specs = work / "specs"
        synthetic_specs(args.ops, specs)
        cache, out = work / "cache", work / "out"
        cold = _in_process_build(specs, out, cache)
        files = sum(1 for p in out.rglob("*") if p.is_file() and not p.name.startswith("."))
        noop = _in_process_build(specs, out, cache)
        edited = specs / sorted(os.listdir(specs))[0]
        edited.write_text(edited.read_text(encoding="utf-8").replace("description:", "description: 改", 1))
        edit = _in_process_build(specs, out, cache)
        results.update(
            cold_s=round(cold, 3),
            ops_per_s=round(args.ops / cold, 1),
            files=files,
            files_per_s=round(files / cold, 1),
            noop_fraction=round(noop / cold, 4),
            edit_fraction=round(edit / cold, 4),
        )
        small = work / "small"
        synthetic_specs(max(1, args.ops // 3), small)
        rss_small = _peak_rss_mib(small, work / "out_small", work / "cache_small")
        rss_large = _peak_rss_mib(specs, work / "out_large", work / "cache_large")
        per_op = (rss_large - rss_small) / (args.ops - max(1, args.ops // 3))
        results.update(peak_rss_mib=round(rss_large, 1), mib_per_operator=round(per_op, 3))
        if not args.no_torchgen:
            rate, schemas, seconds = torchgen_rate(work)
            results.update(
                torchgen_schemas=schemas, torchgen_s=round(seconds, 2), torchgen_schemas_per_s=round(rate, 1)
            )
        shutil.rmtree(work / "torchgen", ignore_errors=True)
    print(json.dumps(results, indent=2))
    targets = [
        ("no-op rebuild <= 5% of a cold build", results["noop_fraction"] <= 0.05),  # type: ignore[operator]
        ("memory growth <= 0.1 MiB per operator", results["mib_per_operator"] <= 0.1),  # type: ignore[operator]
    ]
    if "torchgen_schemas_per_s" in results:
        anchor = results["torchgen_schemas_per_s"]
        targets += [
            ("generated files/s >= torchgen schemas/s", results["files_per_s"] >= anchor),  # type: ignore[operator]
            ("operators/s >= torchgen schemas/s (aim)", results["ops_per_s"] >= anchor),  # type: ignore[operator]
        ]
    for name, met in targets:
        print(f"{'met    ' if met else 'NOT MET'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
