"""Build throughput, incrementality and memory of `opgen build`, with torchgen as the anchor, in one run.

    python benchmarks/build_bench.py [--ops 60] [--no-torchgen]

Makes N synthetic specs (the real ones, renamed copy by copy) in a temporary folder and measures, in this run
on this machine (every target is a ratio or a rate from the same run; the machine may be shared):

- a cold build (empty build cache, empty OUT, all cores): operators/s and generated files/s, against
  torchgen's schemas/s for its own full code generation (`python -m torchgen.gen` over the packaged
  native_functions.yaml, all its outputs) run right after;
- no-op rebuilds (three; the slowest counts) as a fraction of the cold build;
- a rebuild after editing one description: how many operators were rendered again and which files changed
  (only that operator's package and the shared python/ and torch_npu/ artifacts may);
- peak memory of a serial cold build of N/3 and of N operators (separate processes): MiB per operator;
- where a cold build's CPU goes per operator (load, of which YAML; plan; render; format), measured in this
  process on a few specs, so a target that is not met comes with what it would take.

Every target is printed as `met` or `NOT MET`, with the measured figures it was judged on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED_TOPS = ("python", "torch_npu")  # artifacts made from every operator's fragments
NOOP_TARGET = 0.05
MIB_PER_OP_TARGET = 0.1
SUMMARY = re.compile(r"in ([0-9.]+) s, (\d+) from the build cache")
DIFF_LINE = re.compile(r"^(added|changed|removed) +(\S+)$")


def synthetic_specs(count: int, folder: Path) -> list[Path]:
    """`count` valid specs: the real ones in turn, each copy with its own names (type, dir, APIs, aten ops)."""
    # the spec files of one operator (a file of several documents is a directory's: not copied)
    sources = [p for p in sorted((ROOT / "specs").glob("*.yaml")) if "\n---" not in p.read_text(encoding="utf-8")]
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for index in range(count):
        data = yaml.safe_load(sources[index % len(sources)].read_text(encoding="utf-8"))
        # a copy's forward spec is another copy (or none): its derivative check is the real spec's; its header is
        # derived from its renamed API
        data.pop("derivative_of", None)
        data["api"].pop("header", None)
        tag = f"S{index}"
        operator, api = data["operator"], data["api"]
        operator["type"] += tag
        operator["dir"] += f"_s{index}"
        api["name"] += tag
        if api.get("aten"):
            api["aten"] += f"_s{index}"
        if api.get("doc_name"):
            api["doc_name"] = api["name"]
        if api.get("binding"):  # a binding named apart from the aten op (gelu_tanh)
            api["binding"] += f"_s{index}"
        if api.pop("aten_form", None) and not api.get("aten"):  # aten's named form (gelu over GeluV2): none renamed
            data.get("golden", {}).pop("differs_from_torch", None)  # and so no torch op to differ from
        if api.get("inplace"):
            api["inplace"]["name"] += tag
            if api["inplace"].get("aten"):
                api["inplace"]["aten"] = api["inplace"]["aten"].rstrip("_") + f"_s{index}_"
        path = folder / f"{operator['dir']}.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        made.append(path)
    return made


@dataclass
class Build:
    seconds: float  # `opgen build` in its process, imports excluded
    cpu_s: float  # CPU time of that build: its process, its workers and the formatter runs
    rendered: int  # operators not from the build cache
    changed: list[str]  # files added, changed or removed


def _build(specs: Path, out: Path, cache: Path, operators: int) -> Build:
    """One `opgen build -v` in a fresh process, timed inside it (interpreter start-up and imports excluded)."""
    code = (
        # the CLI imports the generator when a build runs: imported here, so the timing excludes imports as before
        "import resource, sys, time; import opgen.build; from opgen.cli import main\n"
        "def cpu():\n"
        "    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime\n"
        "c, t = cpu(), time.perf_counter(); rc = main(['build', sys.argv[1], '-o', sys.argv[2], '-v'])\n"
        "print(f'seconds {time.perf_counter() - t} {cpu() - c}'); sys.exit(rc)\n"
    )
    env = {**os.environ, "OPGEN_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(specs), str(out)], check=True, env=env, capture_output=True, text=True
    )
    lines = proc.stdout.splitlines()
    seconds, cpu = (float(figure) for figure in lines[-1].split()[1:])
    summary = SUMMARY.search(proc.stdout)
    assert summary, proc.stdout[-2000:]
    changed = [match[2] for line in lines if (match := DIFF_LINE.match(line))]
    return Build(seconds, cpu, operators - int(summary[2]), changed)


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


def torchgen_run(work: Path) -> tuple[int, float, float]:
    """torchgen's schemas, and the seconds and CPU seconds its full code generation takes."""
    import torchgen

    aten = Path(torchgen.__file__).parent / "packaged" / "ATen"
    schemas = sum(1 for line in (aten / "native" / "native_functions.yaml").open() if line.startswith("- func:"))
    started, cpu = time.perf_counter(), _cpu_of_children()
    subprocess.run(  # in `work`: torchgen writes some outputs relative to its working directory
        [sys.executable, "-m", "torchgen.gen", "-s", str(aten), "-d", str(work / "torchgen")],
        check=True,
        capture_output=True,
        cwd=work,
    )
    return schemas, time.perf_counter() - started, _cpu_of_children() - cpu


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_with_children() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def phase_costs(specs: list[Path]) -> dict[str, float]:
    """CPU milliseconds per operator of each step of a cold build, in this process, on `specs`; also the
    YAML composition alone, and the same composition on libyaml's events (what the loader would cost on
    the C parser: opgen/spec/yaml_source.py composes in Python to bound nesting and record aliases)."""
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    from opgen.build import plan_loaded, render_operator, spec_inputs
    from opgen.lang.source_format import format_sources
    from opgen.spec.loader import load_spec

    inputs = spec_inputs(specs)
    texts = [item.path.read_text(encoding="utf-8") for item in inputs]
    costs = dict.fromkeys(("load", "plan", "render", "format", "yaml", "yaml_on_libyaml"), 0.0)
    rendered: dict[str, str] = {}
    for item in inputs:
        started = time.process_time()
        loaded = load_spec(item.path, display_name=item.shown)
        costs["load"] += time.process_time() - started
        started = time.process_time()
        plan = plan_loaded(loaded, item.notice)
        costs["plan"] += time.process_time() - started
        started = time.process_time()
        rendered.update(render_operator(plan))
        costs["render"] += time.process_time() - started
    started = _cpu_with_children()
    format_sources(rendered)  # one batch, as a worker formats (ruff format, then clang-format)
    costs["format"] = _cpu_with_children() - started
    for text in texts:
        started = time.process_time()
        yaml.SafeLoader(text).get_single_node()
        costs["yaml"] += time.process_time() - started
    if getattr(yaml, "__with_libyaml__", False):
        from yaml._yaml import CParser

        class EventsFromLibyaml(CParser, Composer, SafeConstructor, Resolver):
            def __init__(self, text: str) -> None:
                CParser.__init__(self, text)
                Composer.__init__(self)
                SafeConstructor.__init__(self)
                Resolver.__init__(self)

        for text in texts:
            started = time.process_time()
            EventsFromLibyaml(text).get_single_node()
            costs["yaml_on_libyaml"] += time.process_time() - started
    return {name: round(1000 * seconds / len(inputs), 1) for name, seconds in costs.items()}


@dataclass
class Figures:
    ops: int
    cores: int
    load_average: float  # of the machine when the run started (it may be shared)
    cold_s: float
    cold_cpu_s: float
    files: int
    noop_s: list[float]
    noop_changed: int  # files a no-op rebuild changed (0)
    edit_s: float
    edit_rendered: int  # operators rendered again after one spec's edit
    edit_changed: list[str]  # files that edit changed
    edited_dir: str
    peak_rss_mib: float
    mib_per_operator: float
    cpu_ms_per_operator: dict[str, float]
    torchgen_schemas: int = 0
    torchgen_s: float = 0.0
    torchgen_cpu_s: float = 0.0

    @property
    def ops_per_s(self) -> float:
        return self.ops / self.cold_s

    @property
    def files_per_s(self) -> float:
        return self.files / self.cold_s

    @property
    def noop_fraction(self) -> float:
        return max(self.noop_s) / self.cold_s

    def report(self) -> dict[str, object]:
        figures = {name: value for name, value in vars(self).items() if name != "edit_changed"}
        figures.update(
            ops_per_s=round(self.ops_per_s, 1),
            files_per_s=round(self.files_per_s, 1),
            noop_fraction=round(self.noop_fraction, 4),
            edit_fraction=round(self.edit_s / self.cold_s, 4),
            edit_changed=len(self.edit_changed),
        )
        if self.torchgen_s:
            figures["torchgen_schemas_per_s"] = round(self.torchgen_schemas / self.torchgen_s, 1)
        else:
            del figures["torchgen_schemas"], figures["torchgen_s"], figures["torchgen_cpu_s"]
        return figures

    def targets(self) -> list[tuple[bool, str]]:
        """Each target of the build, judged on this run's figures, with the figures."""
        outside = sorted(p for p in self.edit_changed if p.split("/")[0] not in (self.edited_dir, *SHARED_TOPS))
        judged = [
            (
                self.noop_fraction <= NOOP_TARGET,
                f"no-op rebuild <= {NOOP_TARGET:.0%} of a cold build: the slowest of three took"
                f" {max(self.noop_s):.3f} s = {self.noop_fraction:.1%} of {self.cold_s:.2f} s"
                f" ({self.noop_changed} files changed)",
            ),
            (
                self.mib_per_operator <= MIB_PER_OP_TARGET,
                f"memory growth <= {MIB_PER_OP_TARGET} MiB per operator: {self.mib_per_operator:.3f} MiB/operator"
                f" (peak {self.peak_rss_mib:.1f} MiB for {self.ops} operators, serial, no cache)",
            ),
            (
                self.edit_rendered == 1 and not outside,
                f"one-spec edit re-renders only that operator (+ shared {'/, '.join(SHARED_TOPS)}/):"
                f" {self.edit_rendered} operator(s) rendered, {len(self.edit_changed)} files changed, "
                + (f"{len(outside)} outside them: {', '.join(outside[:5])}" if outside else "none outside them")
                + f"; {self.edit_s / self.cold_s:.1%} of a cold build",
            ),
        ]
        if not self.torchgen_s:
            return judged
        anchor = self.torchgen_schemas / self.torchgen_s
        torchgen = f"torchgen's {anchor:.1f} schemas/s ({self.torchgen_schemas} in {self.torchgen_s:.1f} s)"
        # By CPU time too: less bent by other work on a shared machine (torchgen runs on one core).
        by_cpu = (
            f"; by CPU time {self.ops / self.cold_cpu_s:.1f} operators and {self.files / self.cold_cpu_s:.0f} files"
            f" per CPU-second, torchgen {self.torchgen_schemas / self.torchgen_cpu_s:.1f} schemas per CPU-second"
        )
        judged.append(
            (
                self.files_per_s >= anchor,
                f"generated files/s >= torchgen schemas/s: {self.files_per_s:.1f} files/s ({self.files} files in"
                f" {self.cold_s:.2f} s) = {self.files_per_s / anchor:.2f}x {torchgen}{by_cpu}",
            )
        )
        line = f"operators/s >= torchgen schemas/s (aim): {self.ops_per_s:.1f} operators/s = "
        line += f"{self.ops_per_s / anchor:.2f}x {torchgen}{by_cpu}"
        if self.ops_per_s < anchor:
            costs = self.cpu_ms_per_operator
            per_op = sum(costs[k] for k in ("load", "plan", "render", "format"))
            line += (
                f"; it would take <= {self.ops / anchor:.2f} s for {self.ops} operators, i.e. <="
                f" {1000 * self.cores / anchor:.0f} ms of CPU per operator on {self.cores} idle cores; measured"
                f" {per_op:.0f} ms: load {costs['load']} (of which YAML {costs['yaml']}, {costs['yaml_on_libyaml']}"
                f" on libyaml's events), plan {costs['plan']}, render {costs['render']}, format {costs['format']}"
                " (one ruff and one clang-format run per batch)"
            )
        judged.append((self.ops_per_s >= anchor, line))
        return judged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=60)
    parser.add_argument("--no-torchgen", action="store_true")
    args = parser.parse_args(argv)
    ops = args.ops
    load_average = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        work = Path(tmp)
        specs = work / "specs"
        made = synthetic_specs(ops, specs)
        cache, out = work / "cache", work / "out"
        cold = _build(specs, out, cache, ops)
        files = sum(1 for p in out.rglob("*") if p.is_file() and not p.name.startswith("."))
        noops = [_build(specs, out, cache, ops) for _ in range(3)]
        edited = made[0]
        edited.write_text(edited.read_text(encoding="utf-8").replace("description:", "description: 改", 1))
        edit = _build(specs, out, cache, ops)
        small = work / "small"
        synthetic_specs(max(1, ops // 3), small)
        rss_small = _peak_rss_mib(small, work / "out_small", work / "cache_small")
        rss_large = _peak_rss_mib(specs, work / "out_large", work / "cache_large")
        figures = Figures(
            ops=ops,
            cores=os.cpu_count() or 1,
            load_average=load_average,
            cold_s=cold.seconds,
            cold_cpu_s=cold.cpu_s,
            files=files,
            noop_s=[round(b.seconds, 3) for b in noops],
            noop_changed=sum(len(b.changed) for b in noops),
            edit_s=edit.seconds,
            edit_rendered=edit.rendered,
            edit_changed=edit.changed,
            edited_dir=yaml.safe_load(edited.read_text(encoding="utf-8"))["operator"]["dir"],
            peak_rss_mib=rss_large,
            mib_per_operator=round((rss_large - rss_small) / (ops - max(1, ops // 3)), 3),
            cpu_ms_per_operator=phase_costs(made[: 2 * len(list((ROOT / "specs").glob("*.yaml")))]),
        )
        if not args.no_torchgen:
            figures.torchgen_schemas, figures.torchgen_s, figures.torchgen_cpu_s = torchgen_run(work)
    print(json.dumps(figures.report(), indent=2, ensure_ascii=False))
    for met, line in figures.targets():
        print(f"{'met    ' if met else 'NOT MET'}  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
