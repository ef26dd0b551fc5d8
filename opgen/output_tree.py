"""Writing a generated tree: deterministic, only what changed, never half-written, never outside OUT.

All files are rendered in memory first; then every changed file is written to a temporary file beside its
target and moved into place with an atomic rename. Files that an earlier build generated (listed in the
manifest) and that are no longer produced are removed.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MANIFEST = ".opgen-manifest"


class UnsafePathError(ValueError):
    pass


@dataclass
class TreeDiff:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def lines(self) -> list[str]:
        return (
            [f"added    {p}" for p in self.added]
            + [f"changed  {p}" for p in self.changed]
            + [f"removed  {p}" for p in self.removed]
        )


def safe_relative(path: str) -> str:
    """Reject paths that could escape the output directory, whatever a spec says."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or not pure.parts or any(part in ("..", "") for part in pure.parts) or "\\" in path:
        raise UnsafePathError(f"refusing to write outside the output directory: {path!r}")
    return str(pure)


def _previous(out: Path) -> list[str]:
    manifest = out / MANIFEST
    if not manifest.is_file():
        return []
    return [line for line in manifest.read_text(encoding="utf-8").splitlines() if line]


def diff_tree(files: dict[str, bytes], out: Path) -> TreeDiff:
    diff = TreeDiff()
    for rel in sorted(files):
        target = out / safe_relative(rel)
        if not target.is_file():
            diff.added.append(rel)
        elif target.read_bytes() != files[rel]:
            diff.changed.append(rel)
    for rel in _previous(out):
        if rel not in files and (out / safe_relative(rel)).exists():
            diff.removed.append(rel)
    return diff


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_tree(files: dict[str, bytes], out: Path) -> TreeDiff:
    """Bring `out` in line with `files`; returns what changed."""
    for rel in files:
        safe_relative(rel)
    out_resolved = out.resolve()
    diff = diff_tree(files, out)
    for rel in diff.added + diff.changed:
        target = out / rel
        if out_resolved not in target.resolve().parents:
            raise UnsafePathError(f"refusing to write through a link outside the output directory: {rel!r}")
        _atomic_write(target, files[rel])
    for rel in diff.removed:
        (out / rel).unlink()
        parent = (out / rel).parent
        while parent != out and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    manifest = "".join(f"{rel}\n" for rel in sorted(files)).encode()
    if not (out / MANIFEST).is_file() or (out / MANIFEST).read_bytes() != manifest:
        _atomic_write(out / MANIFEST, manifest)
    return diff
