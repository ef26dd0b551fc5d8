"""A wheel of opgen works on its own: built from the tree, installed into a fresh virtual environment, its
`opgen build` generates the same packages from `specs/` as the checkout does (templates and twin sources are
package data, not files found next to the source tree)."""

from __future__ import annotations

import filecmp
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    [built] = dist.glob("opgen-*.whl")
    return built


def test_wheel_ships_templates_and_twin_sources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "opgen/templates/op/op_kernel/kernel.cpp.j2" in names
    assert "opgen/twin/include/kernel_operator.h" in names
    assert any(n.startswith("opgen/twin/src/") and n.endswith(".cpp") for n in names)
    assert not any(n.startswith("templates/") for n in names)


def test_installed_wheel_builds_the_specs(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # The dependencies come from this environment (no download); opgen itself only from the wheel. A venv made
    # with --system-site-packages from inside a venv would see the base interpreter's packages, not this
    # environment's: its site folders are added as plain paths instead, so their .pth hooks (an editable install
    # of the checkout) do not run.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    [venv_site] = (venv / "lib").glob("python*/site-packages")
    (venv_site / "opgen_test_deps.pth").write_text("".join(f"{p}\n" for p in site.getsitepackages()))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(venv_site),
            str(wheel),
        ],
        check=True,
    )
    out = tmp_path / "out"
    # Run from a directory with no checkout in sight, with editable-install hooks of the checkout disabled.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    probe = subprocess.run(
        [str(python), "-c", "import opgen, sys; print(opgen.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr
    if not probe.stdout.strip().startswith(str(venv)):
        pytest.skip(f"an editable install of the checkout shadows the wheel here ({probe.stdout.strip()})")
    build = subprocess.run(
        [str(python), "-m", "opgen.cli", "build", str(ROOT / "specs"), "-o", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    generated = ROOT / "generated"
    # every file the checkout's build made (its manifest), not what running the tests leaves beside them
    # (__pycache__ of the generated golden tests, written while this test runs)
    made = (generated / ".opgen-manifest").read_text(encoding="utf-8").split()
    assert made
    for rel in made:
        assert filecmp.cmp(generated / rel, out / rel, shallow=False), rel
