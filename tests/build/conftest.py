"""Fixtures of the build tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spec_list import sample_spec_files


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    """A few of the specs (a bounded sample: these builds must not grow with the spec count)."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for path in sample_spec_files():
        shutil.copy(path, folder)
    return folder
