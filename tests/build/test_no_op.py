"""A no-op `opgen build` parses no spec, reads no build-cache entry and no output file: the whole build is
found by its operator keys (a build summary), the generator fingerprint by its sources' stat, and the output
files by the output record (tests/output/test_output_record.py). Each shortcut gives way to the real work
as soon as what it stands for changes. Reads are observed by instrumenting, not by timing."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from timing import deadline

import opgen.build
import opgen.build_cache
from opgen.build import build_tree
from opgen.build_cache import BuildCache, package_fingerprint
from opgen.cli import main
from opgen.output_tree import LOCK, MANIFEST
from opgen.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def watched(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[str]]]:
    """What is read meanwhile: output files (os.open for reading through a folder descriptor), build-cache
    entries and shared artifacts, and specs parsed."""
    seen: dict[str, list[str]] = {"outputs": [], "entries": [], "parsed": []}
    real_open, real_read_files, real_load = os.open, opgen.build_cache.read_files, opgen.build.load_spec_documents

    def opening(path: object, flags: int, *args: object, **kwargs: object) -> int:
        name = os.fsdecode(path)  # type: ignore[arg-type]
        reading = flags & os.O_ACCMODE == os.O_RDONLY and not flags & os.O_DIRECTORY
        if reading and "dir_fd" in kwargs and name not in (LOCK, MANIFEST):
            seen["outputs"].append(name)
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def reading_entry(path: Path) -> dict[str, str] | None:
        seen["entries"].append(path.name)
        return real_read_files(path)

    def parsing(path: Path, **kwargs: object) -> object:
        seen["parsed"].append(path.name)
        return real_load(path, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", opening)
        patch.setattr(opgen.build_cache, "read_files", reading_entry)
        patch.setattr(opgen.build, "load_spec_documents", parsing)
        yield seen


def wait_for_the_next_tick(folder: Path) -> None:
    newest = max(max(p.lstat().st_mtime_ns, p.lstat().st_ctime_ns) for p in folder.rglob("*"))
    probe = folder.parent / "clock-probe"
    with deadline(30):
        while True:
            probe.write_bytes(b"")
            if probe.stat().st_mtime_ns > newest:
                probe.unlink()
                return
            time.sleep(0.005)


def test_a_no_op_build_reads_no_spec_entry_or_output(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    for _ in range(2):  # the second build reads (and records) what the first wrote in its last clock tick
        assert main(["build", str(specs), "-o", str(out), "-q", "-j", "1"]) == 0
        wait_for_the_next_tick(out)
    with watched(monkeypatch) as seen:
        assert main(["build", str(specs), "-o", str(out), "-q"]) == 0
        assert main(["build", str(specs), "-o", str(out), "--check", "-q"]) == 0
    assert seen == {"outputs": [], "entries": [], "parsed": []}
    with watched(monkeypatch) as seen:  # --no-cache trusts nothing remembered
        assert main(["build", str(specs), "-o", str(out), "-q", "--no-cache", "-j", "1"]) == 0
    generated = {p.name for p in out.rglob("*") if p.is_file() and p.name != MANIFEST}
    assert generated <= set(seen["outputs"]) and len(seen["parsed"]) == len(list(specs.iterdir()))


def test_a_hand_edit_after_a_no_op_build_is_repaired(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    for _ in range(3):
        assert main(["build", str(specs), "-o", str(out), "-q", "-j", "1"]) == 0
        wait_for_the_next_tick(out)
    edited = out / load_spec(sorted(specs.iterdir())[0]).spec.operator.dir / "README.md"
    original = edited.read_bytes()
    before = edited.stat()
    edited.write_bytes(original.replace(b"aclnn", b"ACLNN", 1))  # same size, in place
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    assert (edited.stat().st_size, edited.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert edited.read_bytes() != original
    assert main(["build", str(specs), "-o", str(out), "-j", "1"]) == 0
    assert edited.read_bytes() == original


def test_a_deleted_entry_is_rebuilt_though_a_summary_names_it(specs: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    first = build_tree(specs, cache=cache, jobs=1)
    assert build_tree(specs, cache=cache, jobs=1).cached == len(first.operators)
    next((tmp_path / "cache").rglob("*.files.json")).unlink()
    again = build_tree(specs, cache=cache, jobs=1)
    assert again.cached == len(first.operators) - 1
    assert dict(again.files) == dict(first.files) and again.digests == first.digests


def test_an_unchanged_build_is_found_whole(specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = BuildCache(tmp_path / "cache")
    first = build_tree(specs, cache=cache, jobs=1)
    with watched(monkeypatch) as seen:
        again = build_tree(specs, cache=cache, jobs=1)
    assert seen["entries"] == [] and seen["parsed"] == []
    assert again.operators == first.operators and again.digests == first.digests
    assert dict(again.files) == dict(first.files)


# -- the generator fingerprint, kept by its sources' stat ---------------------------------------------------


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {
        "__init__.py": "",
        "emit/render.py": "A = 1\n",
        "templates/x.j2": "{{ x }}\n",
        "twin/runtime.py": "B = 2\n",  # the twin runs generated code; it generates none
        "__pycache__/render.py": "",
        "notes.txt": "",  # in the folder, but no package data: the generator cannot read it
        "spec/schemas.txt": "f(Tensor x) -> Tensor\n",  # package data the generator reads
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-data]\npkg = ["templates/**/*", "twin/src/**/*", "spec/schemas.txt"]\n',
        encoding="utf-8",
    )
    return root


@contextmanager
def sources_read(monkeypatch: pytest.MonkeyPatch, root: Path) -> Iterator[list[str]]:
    names: list[str] = []
    real = Path.read_bytes

    def reading(path: Path) -> bytes:
        if root in path.parents:
            names.append(path.relative_to(root).as_posix())
        return real(path)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", reading)
        yield names


def test_the_fingerprint_is_kept_while_the_sources_stat_is_the_same(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "fingerprint.json"
    monkeypatch.setattr(opgen.build_cache, "SETTLE_NS", 0)
    wait_for_the_next_tick(package)
    with sources_read(monkeypatch, package) as read:
        first = package_fingerprint(package, record)
    assert sorted(read) == ["__init__.py", "emit/render.py", "spec/schemas.txt", "templates/x.j2"]
    with sources_read(monkeypatch, package) as read:
        assert package_fingerprint(package, record) == first
    assert read == []
    (package / "emit/render.py").write_text("A = 2\n", encoding="utf-8")  # same size
    changed = package_fingerprint(package, record)
    assert changed != first and changed == package_fingerprint(package, None)
    (package / "twin/runtime.py").write_text("B = 3\n", encoding="utf-8")
    assert package_fingerprint(package, None) == changed


def test_a_just_changed_source_is_hashed_again_next_time(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sources changed less than SETTLE_NS ago could change again without their stat showing it."""
    record = tmp_path / "fingerprint.json"
    first = package_fingerprint(package, record)
    with sources_read(monkeypatch, package) as read:
        assert package_fingerprint(package, record) == first
    assert sorted(read) == ["__init__.py", "emit/render.py", "spec/schemas.txt", "templates/x.j2"]


def test_a_package_data_file_the_generator_reads_is_in_the_fingerprint(package: Path) -> None:
    # Before: only *.py and *.j2 were hashed, so an edit of opgen/spec/aten_schemas.txt (which `opgen new` and the
    # aten checks read) left every cached operator in place.
    first = package_fingerprint(package, None)
    (package / "spec/schemas.txt").write_text("f(Tensor y) -> Tensor\n", encoding="utf-8")
    assert package_fingerprint(package, None) != first
    second = package_fingerprint(package, None)
    (package / "notes.txt").write_text("not package data\n", encoding="utf-8")
    assert package_fingerprint(package, None) == second


def test_the_real_fingerprint_covers_the_declared_package_data() -> None:
    covered = {rel for rel, _ in opgen.build_cache._generator_sources(Path(opgen.__file__).resolve().parent)}
    assert "spec/aten_schemas.txt" in covered and "templates/op/op_host/def.cpp.j2" in covered
    assert not any(rel.startswith("twin/") for rel in covered)
