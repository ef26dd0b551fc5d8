"""Incremental builds: an operator whose spec and generator are unchanged comes from the build cache, one
edited spec re-renders only its operator (and the shared artifacts), and the bytes are the same either way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import opgen.build_cache
from opgen.build import build_tree
from opgen.build_cache import BuildCache

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", folder)
    return folder


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
    spec = specs / "leaky_relu.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("表示LeakyRelu的输入。", "表示LeakyRelu的输入（改）。"))
    after = build_tree(specs, cache=cache, jobs=1)
    assert after.cached == len(before.operators) - 1
    changed = {rel for rel in after.files if after.files[rel] != before.files.get(rel)}
    assert changed and all(rel.split("/")[0] in ("leaky_relu", "python") for rel in changed), changed
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
