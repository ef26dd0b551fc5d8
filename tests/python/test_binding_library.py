"""The binding's twin library is built once however many processes (xdist workers) ask for it first: the build
holds a file lock and the others wait for its result. Before, each built its own copy of the same library."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import opgen.twin.compiler

_runtime = pytest.importorskip("opgen_ops._runtime")


def test_concurrent_first_uses_build_the_library_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[list[str]] = []

    def slow_cc(argv: list[str]) -> int:
        builds.append(argv)
        time.sleep(0.5)  # long enough for the other caller to find no library yet
        Path(argv[argv.index("-o") + 1]).write_bytes(b"library")
        return 0

    monkeypatch.setattr(_runtime, "_library_dir", lambda: tmp_path / "lib")
    monkeypatch.setattr(opgen.twin.compiler, "main", slow_cc)
    found: list[Path] = []
    callers = [threading.Thread(target=lambda: found.append(_runtime.twin_library())) for _ in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert len(builds) == 1, builds
    assert len(set(found)) == 1 and found[0].read_bytes() == b"library"
    # what it was built with is what `twin_library_args` states (tests link programs against the same build)
    assert builds[0][builds[0].index("-o") + 2 :] == _runtime.twin_library_args(found[0])[3:]
