"""Shared test fixtures and markers.

Markers (see pyproject.toml): `cxx` compiles C++ (the twin or generated sources), `slow` takes more than a few
seconds. `pytest -m "not cxx"` runs the pure-Python layers alone; `pytest tests/spec` one layer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The binding builds one library of the twin and every package (not one per package as they are first called):
# the session's C++ test programs link against that library (tests/twin_session.py), and one link serves all.
# `OPGEN_OPS_ALL=0 pytest ...` runs the binding's tests on the per-package libraries instead.
os.environ.setdefault("OPGEN_OPS_ALL", "1")

ROOT = Path(__file__).resolve().parents[1]
# The workplace keeps the source documents beside the project; a user's clone has none.
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """`../shared`, or a clean skip where it does not exist (a user's clone)."""
    if not SHARED.is_dir():
        pytest.skip(f"needs the workplace's shared documents at {SHARED}, which a user's clone does not have")
    return SHARED


@pytest.fixture(scope="session")
def torch():  # type: ignore[no-untyped-def]
    """torch, for the tests that compare with it; they skip where it is not installed (tests/test_tree.py runs
    the formula and spec layers without it)."""
    return pytest.importorskip("torch")


@pytest.fixture(scope="session")
def twin_lib():  # type: ignore[no-untyped-def]
    """The twin and every generated package compiled once per session (see tests/twin_session.py)."""
    from twin_session import build_twin_library

    return build_twin_library()
