"""A formula written with local names (formula.let) end to end: tests/fixtures/let/square_plus.yaml (SquarePlus,
(x + sqrt(x^2 + b)) / 2 written overflow-safely with three names; no torch op exists) is built into a fresh tree,
its generated golden tests run on the twin against its reference (the AI Core kernel and, for DOUBLE, the AICPU
kernel), and its binding is compared with SquarePlus computed independently (in long double where the naive form
neither overflows nor cancels, by its limits beyond)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "let"

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("let") / "generated"
    assert main(["check", str(FIXTURES), "-q"]) == 0
    assert main(["build", str(FIXTURES), "-o", str(out), "-q"]) == 0
    return out


def _run(tree: Path, args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "python"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=tree.parent, env=env, timeout=1800
    )


def test_generated_golden_tests_pass_on_the_twin(tree: Path) -> None:
    ran = _run(tree, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tree / "square_plus")])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert " passed" in ran.stdout.splitlines()[-1] and "skipped" not in ran.stdout.splitlines()[-1], ran.stdout


def test_the_kernel_computes_squareplus_without_overflow(tree: Path) -> None:
    source = """
        import numpy as np
        import opgen_ops

        for dtype, rtol in ((np.float32, 2e-6), (np.float16, 2e-3), (np.float64, 1e-13)):  # DOUBLE: the AICPU kernel
            x = np.linspace(-60, 60, 4097).astype(dtype)
            for b in (4.0, 0.5, 0.0):
                wide = x.astype(np.longdouble)
                want = (wide + np.sqrt(wide * wide + b)) / 2
                # the naive form cancels for x < 0: there it is b / (2 * (sqrt(x^2 + b) - x))
                want = np.where(x < 0, b / (2 * (np.sqrt(wide * wide + b) - wide)), want)
                got = opgen_ops.square_plus(x, b)
                assert got.dtype == dtype
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=0)
        # beyond sqrt(FLOAT max), x^2 overflows: SquarePlus is x there, b / (4|x|) below, and the limits at +-inf
        big = np.finfo(np.float32).max
        x = np.array([1e30, -1e30, 3e38, big, -1e37, np.inf, -np.inf, np.nan], np.float32)
        got = opgen_ops.square_plus(x, 4.0)
        np.testing.assert_allclose(got[:5], [1e30, 1e-30, 3e38, big, 1e-37], rtol=1e-6)
        assert got[5] == np.inf and got[6] == 0 and np.isnan(got[7]), got
        print("ok")
    """
    ran = _run(tree, ["-c", textwrap.dedent(source)])
    assert ran.returncode == 0 and ran.stdout.strip() == "ok", ran.stdout[-3000:] + ran.stderr[-3000:]
