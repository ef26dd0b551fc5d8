"""The output record: a build that finds every output file with the stat recorded after the last build
reads none of them, and nothing a hand edit can do slips past it. An edit changes a file's ctime (or its
inode), and a stat is recorded only once the file-system clock has moved past the file's last change, so
even an edit made while a build runs, in the timestamp tick of that build's own write, is caught.

Reads are observed at the os.open level (every file opgen reads in OUT is opened through a folder
descriptor), not timed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from timing import deadline

from opgen import output_tree
from opgen.output_tree import LOCK, MANIFEST, write_tree

FILES = {
    "p/a.txt": b"generated a\n",
    "p/b.txt": b"generated b\n",
    "p/deep/c.txt": b"generated c\n",
    "q/d.txt": b"generated d\n",
    "top.txt": b"generated top\n",
}


@contextmanager
def opened_files() -> Iterator[list[str]]:
    """Names of the files (not folders) os.open opens for reading meanwhile, opgen's lock and manifest left out."""
    names: list[str] = []
    real = os.open

    def watching(path: object, flags: int, *args: object, **kwargs: object) -> int:
        name = os.fsdecode(path)  # type: ignore[arg-type]
        reading = flags & os.O_ACCMODE == os.O_RDONLY and not flags & os.O_DIRECTORY
        if reading and name not in (LOCK, MANIFEST):
            names.append(name)
        return real(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    os.open = watching  # type: ignore[assignment]
    try:
        yield names
    finally:
        os.open = real


def wait_for_the_next_tick(folder: Path) -> None:
    """Until a file made now gets a later timestamp than every file below `folder` last changed at."""
    newest = max(max(p.lstat().st_mtime_ns, p.lstat().st_ctime_ns) for p in folder.rglob("*"))
    probe = folder.parent / "clock-probe"
    with deadline(30):
        while True:
            probe.write_bytes(b"")
            if probe.stat().st_mtime_ns > newest:
                probe.unlink()
                return
            time.sleep(0.005)


def settled(out: Path, records: Path, files: dict[str, bytes] = FILES) -> None:
    """OUT built and its record complete: files written in the last clock tick of a build are read (and
    recorded) by the next one."""
    write_tree(files, out, record_dir=records)
    wait_for_the_next_tick(out)
    write_tree(files, out, record_dir=records)
    wait_for_the_next_tick(out)


def build(out: Path, records: Path) -> tuple[list[str], list[str]]:
    """One build with a record: the files it read, and those it reported changed."""
    with opened_files() as names:
        diff = write_tree(FILES, out, record_dir=records)
    return sorted(set(names)), diff.changed


def test_a_no_op_build_reads_no_output_file(tmp_path: Path) -> None:
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    assert build(out, records) == ([], [])
    with opened_files() as names:  # the same build without a record reads everything
        write_tree(FILES, out)
    assert sorted(names) == sorted(rel.rpartition("/")[2] for rel in FILES)


def test_check_uses_the_record_too(tmp_path: Path) -> None:
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    with opened_files() as names:
        assert output_tree.diff_tree(FILES, out, record_dir=records).clean
    assert names == []
    (out / "p/a.txt").write_bytes(b"edited by hand\n")
    assert output_tree.diff_tree(FILES, out, record_dir=records).changed == ["p/a.txt"]


def _same_size_edit_keeping_mtime(path: Path) -> None:
    before = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.upper())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns


def _replaced_by_a_copy_keeping_mtime(path: Path) -> None:
    before = path.stat()
    other = path.with_name("replacement")
    other.write_bytes(path.read_bytes().upper())
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)


def _rewritten_longer(path: Path) -> None:
    path.write_bytes(b"a hand edit of another length\n")


@pytest.mark.parametrize("edit", [_same_size_edit_keeping_mtime, _replaced_by_a_copy_keeping_mtime, _rewritten_longer])
def test_a_hand_edit_after_a_no_op_build_is_repaired(tmp_path: Path, edit: Callable[[Path], None]) -> None:
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    assert build(out, records) == ([], [])
    edit(out / "p/deep/c.txt")
    assert build(out, records) == (["c.txt"], ["p/deep/c.txt"])
    assert (out / "p/deep/c.txt").read_bytes() == FILES["p/deep/c.txt"]


def test_an_edit_made_while_the_build_runs_is_not_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edited right after the build wrote it, before the record is made: the stat the build sees afterwards is
    the edited file's, so only reading the file back (as the build does) keeps it out of the record."""
    out, records = tmp_path / "out", tmp_path / "records"
    real_apply = output_tree._apply

    def apply_then_edit(*args: object) -> None:
        real_apply(*args)  # type: ignore[arg-type]
        _same_size_edit_keeping_mtime(out / "q/d.txt")
        wait_for_the_next_tick(out)  # so the record could not skip it for being too recent

    monkeypatch.setattr(output_tree, "_apply", apply_then_edit)
    write_tree(FILES, out, record_dir=records)
    monkeypatch.setattr(output_tree, "_apply", real_apply)
    assert build(out, records)[1] == ["q/d.txt"]
    assert (out / "q/d.txt").read_bytes() == FILES["q/d.txt"]


def test_a_file_changed_in_the_tick_of_the_clock_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose last change is not older than the build's clock reading may yet change within that tick
    without its stat showing it: it is compared, but not recorded."""
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    touched = out / "p/b.txt"
    touched.write_bytes(FILES["p/b.txt"])  # same bytes, a new stat
    changed_at = touched.stat()
    same_tick = SimpleNamespace(st_dev=changed_at.st_dev, st_mtime_ns=changed_at.st_ctime_ns)
    monkeypatch.setattr(output_tree, "_clock", lambda lock_fd: same_tick)
    assert build(out, records) == (["b.txt"], [])
    monkeypatch.undo()
    assert build(out, records) == (["b.txt"], [])  # read again, and now recorded
    assert build(out, records) == ([], [])


def test_a_folder_that_gained_a_temporary_is_cleaned(tmp_path: Path) -> None:
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    listed: list[str] = []
    real_listdir = os.listdir

    def listing(path: object) -> list[str]:
        listed.append(str(path))
        return real_listdir(path)  # type: ignore[arg-type]

    os.listdir = listing  # type: ignore[assignment]
    try:
        write_tree(FILES, out, record_dir=records)
        assert len(listed) == 1  # OUT itself (each build's lock changes it); its folders are unchanged
        debris = out / "p/deep/.c.txt.abcdefgh.tmp"  # as a killed build leaves it
        debris.write_bytes(b"half written")
        write_tree(FILES, out, record_dir=records)
    finally:
        os.listdir = real_listdir
    assert not debris.exists()


def test_a_lost_or_damaged_record_only_costs_reads(tmp_path: Path) -> None:
    out, records = tmp_path / "out", tmp_path / "records"
    settled(out, records)
    (record,) = records.iterdir()
    record.write_text('{"format": 2, "out": "elsewhere", "files": []}', encoding="utf-8")
    (out / "top.txt").write_bytes(b"edited\n")
    names, changed = build(out, records)
    assert changed == ["top.txt"] and sorted(names) == sorted(rel.rpartition("/")[2] for rel in FILES)
    record.unlink()
    assert build(out, records)[1] == []


def test_a_build_keeps_few_folders_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"pkg{i}/sub{j}/f.txt": f"{i} {j}\n".encode() for i in range(6) for j in range(4)}
    monkeypatch.setattr(output_tree, "_OPEN_DIRS", 3)
    open_now: set[int] = set()
    most = 0
    real_open, real_close = os.open, os.close

    def opening(path: object, flags: int, *args: object, **kwargs: object) -> int:
        nonlocal most
        fd = real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]
        if flags == output_tree._DIR_FLAGS:
            open_now.add(fd)
            most = max(most, len(open_now))
        return fd

    def closing(fd: int) -> None:
        open_now.discard(fd)
        real_close(fd)

    monkeypatch.setattr(os, "open", opening)
    monkeypatch.setattr(os, "close", closing)
    out = tmp_path / "out"
    write_tree(files, out)
    files["pkg5/sub3/f.txt"] = b"changed\n"
    assert write_tree(files, out).changed == ["pkg5/sub3/f.txt"]
    monkeypatch.undo()
    assert 0 < most <= 4  # _OPEN_DIRS, and the one being opened
    assert {rel: (out / rel).read_bytes() for rel in files} == files
