"""`opgen build` and `opgen check`: specs -> plans -> the complete generated tree, as bytes in memory.

Each spec is loaded and validated once (`opgen.spec`), planned once (`opgen.plan`), and every emitter
(`opgen.emit`) renders its artifact from that plan. An operator whose spec and generator are unchanged comes
from the build cache (`opgen.build_cache`) without any of that; the others are built in worker processes
(`jobs`), and all their Python is formatted in one formatter run. This module gathers the emitters' files
under each operator's directory and combines the shared artifacts from the operators' fragments, so the
tree is deterministic and can be compared or written in one go.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from opgen.build_cache import (
    BuildCache,
    BuildSummary,
    EntryFiles,
    EntryMeta,
    OperatorArtifacts,
    operator_key,
    shared_key,
    summary_key,
)
from opgen.emit.aicpu import render_aicpu
from opgen.emit.clang_format import render_style_file
from opgen.emit.cmake import render_cmake, render_cmake_directory
from opgen.emit.docs import render_docs
from opgen.emit.example import render_example
from opgen.emit.golden_tests import render_golden_tests
from opgen.emit.host import render_host
from opgen.emit.kernel import render_kernel
from opgen.emit.op_api import render_op_api, render_shared_header
from opgen.emit.python import python_fragment, render_python
from opgen.emit.tests import render_tests
from opgen.emit.torch_npu import render_torch_npu, torch_npu_fragment
from opgen.lang.source_format import format_sources
from opgen.output_tree import content_digest, safe_relative
from opgen.plan.operator import OperatorPlan, PlanError, plan_operator
from opgen.spec.backward import forward_dependency, unlinked_backwards
from opgen.spec.diagnostics import Diagnostic, Location, SpecError
from opgen.spec.loader import LoadedSpec, load_spec_documents, load_spec_text
from opgen.spec.names import SHARED_KINDS, claimed_names
from opgen.spec.yaml_source import MAX_SPEC_BYTES

SPEC_SUFFIXES = (".yaml", ".yml")


# ---------------------------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class SpecInput:
    path: Path
    notice: str  # how generated files name the spec: "<spec folder>/<file>", whatever the working directory
    shown: str  # how diagnostics name it: relative to the working directory


def spec_inputs(paths: Iterable[Path]) -> list[SpecInput]:
    """Every spec named: a folder stands for its *.yaml / *.yml files, a file for itself."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            folder = path.resolve()  # once: a spec in it that is no link resolves to folder / name
            with os.scandir(folder) as entries:
                specs = [e for e in entries if os.path.splitext(e.name)[1] in SPEC_SUFFIXES and e.is_file()]
            for entry in sorted(specs, key=lambda e: e.name):
                found.append(Path(entry.path).resolve() if entry.is_symlink() else folder / entry.name)
        elif path.is_file():
            found.append(path.resolve())
        else:
            raise FileNotFoundError(f"no spec file or directory: {path}")
    inputs = []
    for path in dict.fromkeys(found):
        try:
            shown = os.path.relpath(path)
        except ValueError:  # another drive (Windows): the absolute path
            shown = str(path)
        inputs.append(SpecInput(path, f"{path.parent.name}/{path.name}", shown))
    return inputs


# ---------------------------------------------------------------------------------------------- one operator


def emit_example(plan: OperatorPlan) -> dict[str, str]:
    return {plan.example.path: render_example(plan)}


def emit_op_kernel(plan: OperatorPlan) -> dict[str, str]:
    if plan.runs is not None:  # it runs another operator's kernel
        return {}
    return {**render_kernel(plan), **render_aicpu(plan)}


# One entry per artifact of an operator package; each is a pure function of the plan. The docs are not among
# them: they quote the calling example as formatted, so they are rendered after the formatter (render_docs_of).
EMITTERS: list[Callable[[OperatorPlan], dict[str, str]]] = [
    emit_example,
    render_host,
    emit_op_kernel,
    render_op_api,
    render_golden_tests,
    render_tests,
    render_cmake,
]


def render_operator(plan: OperatorPlan) -> dict[str, str]:
    """Every file of one operator package but its docs, by path relative to the output tree (not yet formatted)."""
    files: dict[str, str] = {}
    for emitter in EMITTERS:
        for rel, text in emitter(plan).items():
            path = safe_relative(f"{plan.op}/{rel}")
            if path in files:
                raise AssertionError(f"two emitters produce {path}")
            files[path] = text
    return files


def plan_loaded(item: LoadedSpec, notice: str, loaded: Sequence[LoadedSpec] = ()) -> OperatorPlan:
    """Plan one validated spec (`loaded`: the specs loaded with it; those of its file are its siblings); raise
    SpecError with the plan's problems at their spec fields."""
    siblings = [other.spec for other in loaded if other.path == item.path]
    try:
        return plan_operator(item.spec, notice, siblings)
    except PlanError as exc:
        raise SpecError(
            [Diagnostic(item.source.location_of(p.path), p.path, p.message, p.kind) for p in exc.problems]
        ) from None


def render_directory(plans: list[OperatorPlan]) -> dict[str, str]:
    """Every file of an operator directory but its docs: each operator's, and the directory's own files combined."""
    if len(plans) == 1:
        return render_operator(plans[0])
    directory = plans[0].op
    files: dict[str, str] = {}
    by_header: dict[str, list[OperatorPlan]] = {}
    for plan in plans:
        by_header.setdefault(plan.spec.api.header_name, []).append(plan)
    shared: dict[str, str] = {}
    for group in by_header.values():
        if len(group) > 1:
            shared.update((f"{directory}/{rel}", text) for rel, text in render_shared_header(group).items())
    for plan in plans:
        for path, text in render_operator(plan).items():
            if path in shared:
                continue
            if path in files and files[path] != text and path != f"{directory}/CMakeLists.txt":
                raise AssertionError(f"two operators of {directory}/ produce {path}")
            files.setdefault(path, text)
    files.update(shared)
    files.update((f"{directory}/{rel}", text) for rel, text in render_cmake_directory(plans).items())
    return files


def render_docs_of(plans: list[OperatorPlan], files: Mapping[str, str]) -> dict[str, str]:
    """The docs of an operator directory, quoting each operator's calling example as `files` (formatted) hold it.
    One README: the first operator's, then each other's sections (their notice line dropped)."""
    directory = plans[0].op
    docs: dict[str, str] = {}
    readmes: list[str] = []
    for plan in plans:
        path = plan.example.path
        body = files[f"{directory}/{path}"].split("\n", 1)[1]  # the doc shows it without the generated-file notice
        for rel, text in render_docs(plan, body, path).items():
            if rel == "README.md":
                readmes.append(text)
            else:
                docs[safe_relative(f"{directory}/{rel}")] = text
    docs[f"{directory}/README.md"] = readmes[0] + "".join("\n" + text.split("\n", 1)[1] for text in readmes[1:])
    return docs


def render_spec(item: SpecInput) -> tuple[OperatorArtifacts, list[OperatorPlan]]:
    """Load, validate, plan and render one spec file: every operator it describes, in one directory, but their
    docs (files not yet formatted), and the plans the docs are rendered from; SpecError with every problem."""
    loaded = load_spec_documents(item.path, display_name=item.shown)
    plans = plan_specs_of(loaded, item.notice)
    python, torch_npu = python_fragment(plans[0]), torch_npu_fragment(plans[0])
    for plan in plans[1:]:
        python, torch_npu = python + python_fragment(plan), torch_npu + torch_npu_fragment(plan)
    artifacts = OperatorArtifacts(
        op=plans[0].op,
        files=render_directory(plans),
        python=python,
        torch_npu=torch_npu,
        names=tuple(name for item in loaded for name in claimed_names(item.spec, item.source)),
    )
    return artifacts, plans


def with_docs(artifacts: OperatorArtifacts, plans: list[OperatorPlan], formatted: dict[str, str]) -> OperatorArtifacts:
    """The finished artifacts: the formatted files and the docs quoting them."""
    return replace(artifacts, files={**formatted, **render_docs_of(plans, formatted)})


def plan_specs_of(loaded: list[LoadedSpec], notice: str) -> list[OperatorPlan]:
    """Plan a spec file's operators; one SpecError with the problems of all of them."""
    plans: list[OperatorPlan] = []
    problems: list[Diagnostic] = []
    for item in loaded:
        try:
            plans.append(plan_loaded(item, notice, loaded))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SpecError(problems)
    return plans


def build_operator(item: SpecInput) -> OperatorArtifacts:
    """One spec's artifacts, formatted."""
    artifacts, plans = render_spec(item)
    return with_docs(artifacts, plans, format_sources(artifacts.files))


# Operators a worker renders before formatting all their sources in one run of each formatter: starting a
# formatter cost as much as rendering, and a few packages' text in memory at a time is little.
BATCH_SIZE = 8

_Task = tuple[SpecInput, str, Path]  # the spec, its cache key, the cache folder to stage the entry in
_Outcome = EntryMeta | list[Diagnostic]


def _internal_error(item: SpecInput, exc: Exception) -> list[Diagnostic]:
    message = f"internal error while generating this spec: {type(exc).__name__}: {exc}"
    return [Diagnostic(Location(item.shown, 1, 1), (), message, "internal")]


def _format_together(rendered: list[OperatorArtifacts]) -> list[dict[str, str]]:
    """Each operator's files formatted, by one run of each formatter for them all."""
    together = {f"{i}/{rel}": text for i, artifacts in enumerate(rendered) for rel, text in artifacts.files.items()}
    formatted = format_sources(together)
    return [{rel: formatted[f"{index}/{rel}"] for rel in artifacts.files} for index, artifacts in enumerate(rendered)]


def _build_batch(tasks: list[_Task]) -> list[_Outcome]:
    """Worker: build a few operators and stage each as a cache entry."""
    outcomes: list[_Outcome | None] = [None] * len(tasks)
    rendered: list[tuple[int, OperatorArtifacts, list[OperatorPlan]]] = []
    for index, (item, _, _) in enumerate(tasks):
        try:
            rendered.append((index, *render_spec(item)))
        except SpecError as exc:
            outcomes[index] = list(exc.diagnostics)
        except Exception as exc:
            outcomes[index] = _internal_error(item, exc)
    try:
        formatted = _format_together([artifacts for _, artifacts, _ in rendered])
    except Exception:  # a formatter refused something: find out whose it was, one operator at a time
        formatted = []
        for index, artifacts, _ in rendered:
            try:
                formatted.append(format_sources(artifacts.files))
            except Exception as exc:
                outcomes[index] = _internal_error(tasks[index][0], exc)
                formatted.append({})
    for (index, artifacts, plans), files in zip(rendered, formatted, strict=True):
        if outcomes[index] is None:
            _, key, root = tasks[index]
            try:
                finished = with_docs(artifacts, plans, files)
            except Exception as exc:
                outcomes[index] = _internal_error(tasks[index][0], exc)
                continue
            outcomes[index] = BuildCache(root).put(key, finished)
    return [outcome for outcome in outcomes if outcome is not None]


def _key(item: SpecInput) -> str | None:
    """The operator's cache key, or None for a spec too large to be one (the loader reports it)."""
    with item.path.open("rb") as handle:
        data = handle.read(MAX_SPEC_BYTES + 1)
    if len(data) > MAX_SPEC_BYTES:
        return None
    return operator_key(data + forward_dependency(item.path, data), item.notice)


# ---------------------------------------------------------------------------------------------- all of them


@dataclass(frozen=True)
class BuildResult:
    operators: list[str]  # operator directories, in spec order
    files: Mapping[str, bytes]  # path in the output tree -> bytes, read from the staged entries when asked
    cached: int = 0  # operators that came from the build cache
    cache: BuildCache | None = None  # keeps a build's staging folder alive while `files` is read
    digests: Mapping[str, str] = field(default_factory=dict)  # path -> content_digest of its bytes (without reading)


def _duplicates(inputs: list[SpecInput], summaries: list[EntryMeta]) -> list[Diagnostic]:
    owners: dict[tuple[str, str], SpecInput] = {}
    problems = []
    for item, summary in zip(inputs, summaries, strict=True):
        seen: set[tuple[str, str]] = set()
        for name in summary.names:
            if name.kind in SHARED_KINDS:
                continue
            key = (name.kind, name.value)
            if key in seen:
                continue
            seen.add(key)
            first = owners.setdefault(key, item)
            if first is not item:
                message = f"{name.kind} '{name.value}' is already generated by {first.shown}"
                location = Location(item.shown, name.line, name.column)
                problems.append(Diagnostic(location, name.path, message, "duplicate-name"))
    return problems


def build_operators(
    inputs: list[SpecInput],
    *,
    jobs: int | None = None,
    cache: BuildCache | None = None,
    keys: list[str | None] | None = None,
) -> tuple[list[EntryMeta], int]:
    """Every operator staged as a cache entry (found or built), or one SpecError for all problems."""
    cache = cache if cache is not None else BuildCache()
    keys = keys if keys is not None else [_key(item) for item in inputs]
    results: list[EntryMeta | list[Diagnostic] | None] = [cache.get(key) if key else None for key in keys]
    cached = sum(r is not None for r in results)
    missing = [i for i, r in enumerate(results) if r is None]
    tasks = [(inputs[i], keys[i] or "uncacheable", cache.root) for i in missing]
    workers = min(len(missing), jobs or os.cpu_count() or 1)
    # Two batches or more per worker, so that one slow batch does not leave the other workers idle at the end.
    size = max(1, min(BATCH_SIZE, -(-len(tasks) // (2 * workers)))) if tasks else 1
    batches = [tasks[start : start + size] for start in range(0, len(tasks), size)]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            outcomes = [outcome for batch in pool.map(_build_batch, batches) for outcome in batch]
    else:
        outcomes = [outcome for batch in batches for outcome in _build_batch(batch)]
    for index, outcome in zip(missing, outcomes, strict=True):
        results[index] = outcome
    problems = [d for r in results if isinstance(r, list) for d in r]
    if problems:
        raise SpecError(problems)
    summaries = [r for r in results if isinstance(r, EntryMeta)]
    duplicates = _duplicates(inputs, summaries)
    if duplicates:
        raise SpecError(duplicates)
    return summaries, cached


def build_files(inputs: list[SpecInput], *, jobs: int | None = None, cache: BuildCache | None = None) -> BuildResult:
    cache = cache if cache is not None else BuildCache()
    keys = [_key(item) for item in inputs]
    whole = summary_key([key for key in keys if key]) if all(keys) else None
    done = cache.get_summary(whole) if whole else None
    if done is not None:  # the very same specs and generator as a finished build: no entry is read
        return BuildResult(done.operators, EntryFiles(done.where, {}), len(inputs), cache, done.digests)
    summaries, cached = build_operators(inputs, jobs=jobs, cache=cache, keys=keys)
    key = shared_key(summaries)
    shared = cache.get_shared(key)
    stored = shared is not None
    if shared is None:
        rendered = {
            **render_python([s.python for s in summaries]),
            **render_torch_npu([s.torch_npu for s in summaries]),
            **render_style_file(tuple(s.python.source for s in summaries)),
        }
        shared = format_sources(rendered)
        with contextlib.suppress(OSError):  # a cache that cannot be written costs only the next build
            cache.put_shared(key, shared)
            stored = True
    shared_files = {safe_relative(rel): text.encode("utf-8") for rel, text in shared.items()}
    where = {rel: s.files_path for s in summaries for rel in s.file_names}
    digests = {rel: d for s in summaries for rel, d in zip(s.file_names, s.file_digests, strict=True)}
    digests.update((rel, content_digest(data)) for rel, data in shared_files.items())
    operators = [s.op for s in summaries]
    if whole and stored:
        shared_where = dict.fromkeys(shared_files, cache.shared_path(key))
        cache.put_summary(whole, BuildSummary(operators, {**where, **shared_where}, digests))
    return BuildResult(operators, EntryFiles(where, shared_files), cached, cache, digests)


def build_tree(*spec_paths: Path, jobs: int | None = None, cache: BuildCache | None = None) -> BuildResult:
    """The generated tree of the specs in these folders / files."""
    return build_files(spec_inputs(spec_paths), jobs=jobs, cache=cache)


def check_specs(*spec_paths: Path, jobs: int | None = None) -> list[str]:
    """What `opgen check` runs: every spec loaded, validated and planned (or cached), or one SpecError."""
    return check_report(*spec_paths, jobs=jobs)[0]


def check_report(*spec_paths: Path, jobs: int | None = None) -> tuple[list[str], list[Diagnostic]]:
    """check_specs, and the warnings across specs: what `opgen check` prints without failing."""
    inputs = spec_inputs(spec_paths)
    summaries, _ = build_operators(inputs, jobs=jobs)
    specs = [(item.path, item.shown, summary.names) for item, summary in zip(inputs, summaries, strict=True)]
    return [s.op for s in summaries], unlinked_backwards(specs)


# ---------------------------------------------------------------------------------------------- for tools and tests


def plan_specs(loaded: list[LoadedSpec]) -> list[OperatorPlan]:
    """Plan loaded specs (no cache); one SpecError with the problems of all of them."""
    plans: list[OperatorPlan] = []
    problems: list[Diagnostic] = []
    for item in loaded:
        try:
            plans.append(plan_loaded(item, item.source.file, loaded))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SpecError(problems)
    return plans


def plan_spec_files(*paths: Path) -> list[OperatorPlan]:
    """Every operator of these spec files, planned (no cache), named in notices as `specs/<file>`."""
    plans: list[OperatorPlan] = []
    for path in paths:
        plans += plan_specs_of(load_spec_documents(path, f"specs/{path.name}"), f"specs/{path.name}")
    return plans


def check_spec_text(text: str, name: str, folder: Path | None = None) -> OperatorPlan:
    """One spec's text loaded, validated and planned, or a SpecError; `folder` is where it would be (a spec
    with derivative_of finds its forward spec there)."""
    path = folder / Path(name).name if folder is not None else None
    return plan_specs([load_spec_text(text, name, path)])[0]
