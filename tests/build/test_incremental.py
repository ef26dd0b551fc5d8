"""Incremental builds: an operator whose spec and generator are unchanged comes from the build cache, one
edited spec re-renders only its operator (and the shared artifacts), and the bytes are the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest

import opgen.build
import opgen.build_cache
from opgen.build import _build_batch, build_operator, build_tree, spec_inputs
from opgen.build_cache import BuildCache, EntryMeta, read_files
from opgen.lang.python_format import FormatterError
from opgen.spec.loader import load_spec_documents

ROOT = Path(__file__).resolve().parents[2]


def _dir_of(spec_file: Path) -> str:
    return load_spec_documents(spec_file)[0].spec.operator.dir


def test_a_second_build_comes_from_the_cache_with_the_same_bytes(specs: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    cold = build_tree(specs, cache=cache, jobs=1)
    warm = build_tree(specs, cache=cache, jobs=1)
    assert cold.cached == 0 and warm.cached == len(cold.operators) > 0
    assert warm.files == cold.files
    assert warm.files == build_tree(specs, cache=BuildCache(enabled=False), jobs=1).files


def test_editing_one_spec_rebuilds_only_that_operator(specs: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    before = build_tree(specs, cache=cache, jobs=1)
    # a spec no other spec's build reads (a forward spec's edit also rebuilds its backward spec: derivative_of)
    forwards = {
        f"{link.forward}.yaml"
        for p in specs.iterdir()
        for d in load_spec_documents(p)
        if (link := d.spec.derivative_of)
    }
    spec = next(p for p in sorted(specs.iterdir()) if p.name not in forwards)
    spec.write_text(spec.read_text(encoding="utf-8").replace("description: ", "description: 改", 1))
    after = build_tree(specs, cache=cache, jobs=1)
    assert after.cached == len(before.operators) - 1
    changed = {rel for rel in after.files if after.files[rel] != before.files.get(rel)}
    assert changed and all(rel.split("/")[0] in (_dir_of(spec), "python") for rel in changed), changed
    assert after.files == build_tree(specs, cache=BuildCache(enabled=False), jobs=1).files


def test_a_changed_generator_rebuilds_everything(specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = BuildCache(tmp_path / "cache")
    build_tree(specs, cache=cache, jobs=1)
    monkeypatch.setattr(opgen.build_cache, "generator_fingerprint", lambda: "another generator")
    assert build_tree(specs, cache=cache, jobs=1).cached == 0


def test_a_damaged_cache_entry_is_rebuilt(specs: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    first = build_tree(specs, cache=cache, jobs=1)
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    again = build_tree(specs, cache=cache, jobs=1)
    assert again.cached == 0 and again.files == first.files


def test_worker_processes_give_the_same_tree(specs: Path, tmp_path: Path) -> None:
    serial = build_tree(specs, cache=BuildCache(enabled=False), jobs=1)
    parallel = build_tree(specs, cache=BuildCache(enabled=False), jobs=2)
    assert parallel.files == serial.files


def test_a_batch_of_operators_is_formatted_in_one_run(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = spec_inputs([specs])
    runs: list[int] = []
    real = opgen.build.format_sources

    def counting(files: dict[str, str]) -> dict[str, str]:
        runs.append(len(files))
        return real(files)

    monkeypatch.setattr(opgen.build, "format_sources", counting)
    outcomes = _build_batch([(item, f"key{i}", tmp_path) for i, item in enumerate(inputs)])
    assert len(runs) == 1 and len(outcomes) == len(inputs) > 1
    for item, outcome in zip(inputs, outcomes, strict=True):
        assert isinstance(outcome, EntryMeta)
        assert read_files(outcome.files_path) == build_operator(item).files  # as if formatted alone


def test_a_formatter_failure_is_reported_for_its_operator_only(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = spec_inputs([specs])
    real = opgen.build.format_sources
    refused = sorted(specs.iterdir())[-1]

    def refusing(files: dict[str, str]) -> dict[str, str]:
        if any(f"/{_dir_of(refused)}/" in f"/{rel}" for rel in files):
            raise FormatterError("cannot parse")
        return real(files)

    monkeypatch.setattr(opgen.build, "format_sources", refusing)
    outcomes = _build_batch([(item, f"key{i}", tmp_path) for i, item in enumerate(inputs)])
    failed = [item.path.name for item, outcome in zip(inputs, outcomes, strict=True) if isinstance(outcome, list)]
    assert failed == [refused.name]
    problem = next(outcome for outcome in outcomes if isinstance(outcome, list))[0]
    assert "internal error" in problem.message and "cannot parse" in problem.message
