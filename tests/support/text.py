"""Positions in spec texts, and the one-place edits tests make to copies of specs."""

from __future__ import annotations

import shutil
from pathlib import Path


def line_of(text: str, marker: str, occurrence: int = 1) -> int:
    """1-based line of the `occurrence`-th `marker` in `text` (ValueError when there are fewer)."""
    index = -1
    for _ in range(occurrence):
        index = text.index(marker, index + 1)
    return text.count("\n", 0, index) + 1


def edit_once(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in the file at `path` with `new`; fails when `old` is absent, so a spec that changes
    under a test makes it fail rather than test an unedited copy."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def copy_specs(folder: Path, target: Path, *names: str) -> Path:
    """Copy `folder`'s `<name>.yaml` for each name into `target` (for a test to edit); returns the last copy."""
    for name in names:
        shutil.copy(folder / f"{name}.yaml", target / f"{name}.yaml")
    return target / f"{names[-1]}.yaml"
