"""A one-element tensor read as a scalar (`shape: {one_element: true}`, as ops-nn's aclnnFatreluMul takes its
threshold) end to end, on tests/fixtures/one_element/fatrelu.yaml (out = where(self > threshold, self, 0)): built
into a fresh tree, its generated golden tests, C++ unit tests and calling example run on the twin (the AI Core
kernel reads the value from GM, the AICPU kernel computes DOUBLE), and its binding is compared with torch for
thresholds of NaN and +-inf and the shapes [], [1], [1, 1], and driven through the refusals (two elements, none,
another dtype: 161002; a null pointer: 161001)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main
from opgen.twin.compiler import Plan, compile_program, compiler, parse_args
from opgen.twin.compiler import main as cc_main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "one_element"
SOC = "ascend910b"

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("one_element") / "generated"
    assert main(["check", str(FIXTURES), "-q"]) == 0
    assert main(["build", str(FIXTURES), "-o", str(out), "-q"]) == 0
    return out


def _python(tree: Path, args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "python"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=tree.parent, env=env, timeout=1800
    )


def test_generated_golden_tests_pass_on_the_twin(tree: Path) -> None:
    ran = _python(tree, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tree / "fatrelu")])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    last = ran.stdout.splitlines()[-1]
    passed = re.search(r"(\d+) passed", last)
    # four dtypes' golden tests and every error row, the one_element row among them
    assert passed and int(passed.group(1)) >= 10 and "skipped" not in last, ran.stdout
    golden = (tree / "fatrelu" / "tests" / "test_golden_fatrelu.py").read_text(encoding="utf-8")
    assert '"threshold": [0.5, -1.0, 0.0, math.nan, math.inf, -math.inf]' in golden
    assert "row3_oneelement" in golden


def test_generated_cpp_unit_tests_pass(tree: Path, tmp_path: Path) -> None:
    package = tree / "fatrelu"
    sources = sorted((package / "tests" / "ut").rglob("*.cpp"))
    assert sources
    flags = Plan(parse_args(["--print-flags", "--soc", SOC, "--ops-dir", str(package)])).user_flags()
    for source in sources:
        obj = tmp_path / (source.stem + ".o")
        compiled = subprocess.run(
            [compiler(), *flags, "-Wall", "-Wextra", "-Werror", "-c", str(source), "-o", str(obj)],
            capture_output=True,
            text=True,
        )
        assert compiled.returncode == 0, compiled.stderr[-4000:]
        program = tmp_path / source.stem
        compile_program([obj], program, soc=SOC, ops_dirs=[package])
        ran = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        summary = re.search(r"^(\d+) passed, (\d+) failed$", ran.stdout, re.M)
        assert summary and int(summary.group(1)) > 0 and summary.group(2) == "0", ran.stdout[-2000:]


def test_example_prints_the_numbers_its_comments_promise(tree: Path, tmp_path: Path) -> None:
    example = next((tree / "fatrelu" / "examples").glob("test_aclnn_*.cpp"))
    binary = tmp_path / "fatrelu"
    assert cc_main([str(example), "-o", str(binary), "--ops-dir", str(tree), "-Wall", "-Wextra", "-Werror"]) == 0
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    promised = re.findall(r"//\s+(result\[\d+\] is: -?[\d.]+)", example.read_text(encoding="utf-8"))
    printed = [line.strip() for line in proc.stdout.splitlines() if line.startswith("result[")]
    assert promised and printed == promised


def test_the_kernels_read_the_one_element_as_torch_does(tree: Path) -> None:
    """The threshold is one element of self's dtype in any shape; torch gets it as the 0-d tensor it is."""
    pytest.importorskip("torch")
    source = """
        import numpy as np
        import torch
        import opgen_ops
        from opgen_ops import golden

        specials = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, np.inf, -np.inf, np.nan]
        values = np.concatenate([np.linspace(-3, 3, 1031), specials])
        checked = 0
        for dtype in ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"):  # DOUBLE: the AICPU kernel
            x = values.astype(np.float32 if dtype != "DOUBLE" else np.float64).astype(golden.DTYPES[dtype])
            for threshold in (0.5, -1.0, 0.0, -0.0, 2.9, np.nan, np.inf, -np.inf):
                for shape in ((), (1,), (1, 1), (1, 1, 1, 1, 1, 1, 1, 1)):
                    held = np.full(shape, threshold).astype(x.dtype)
                    got = opgen_ops.fatrelu(x, held)
                    assert got.dtype == x.dtype and got.shape == x.shape, (dtype, shape)
                    tx = torch.from_numpy(x.astype(np.float64))
                    tt = torch.from_numpy(held.astype(np.float64)).reshape(())
                    want = torch.where(tx > tt, tx, torch.zeros(()))
                    what = f"{dtype} {threshold} {shape}"
                    np.testing.assert_array_equal(got.astype(np.float64), want.numpy(), err_msg=what)
                    checked += 1
            # a 0-d self with a [1, 1] threshold: out keeps self's shape
            zero_d = np.asarray(2.0).astype(x.dtype)
            assert opgen_ops.fatrelu(zero_d, np.full((1, 1), 1.0).astype(x.dtype)).shape == ()
            # F.threshold keeps x where x > threshold (it keeps a NaN x, which where(x > t, x, 0) zeroes)
            finite = x[~np.isnan(x.astype(np.float64))]
            th = torch.nn.functional.threshold(torch.from_numpy(finite.astype(np.float64)), 0.5, 0.0).numpy()
            got = opgen_ops.fatrelu(finite, np.full((1,), 0.5).astype(x.dtype))
            np.testing.assert_array_equal(got.astype(np.float64), th)

        def status(call):
            try:
                call()
            except opgen_ops.AclnnError as error:
                return error.status
            return 0

        x = values.astype(np.float32)
        print("two", status(lambda: opgen_ops.fatrelu(x, np.array([0.5, 1.0], np.float32))))
        print("none", status(lambda: opgen_ops.fatrelu(x, np.zeros((0,), np.float32))))
        print("two-by-one", status(lambda: opgen_ops.fatrelu(x, np.zeros((2, 1), np.float32))))
        print("dtype", status(lambda: opgen_ops.fatrelu(x, np.array([0.5], np.float16))))
        print("null", status(lambda: opgen_ops.fatrelu(x, None)))
        print("checked", checked)
    """
    ran = _python(tree, ["-c", textwrap.dedent(source)])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    lines = ran.stdout.splitlines()
    for line in ("two 161002", "none 161002", "two-by-one 161002", "dtype 161002", "null 161001", "checked 128"):
        assert line in lines, ran.stdout[-2000:]


def test_gen_data_writes_the_one_element_its_option_gives(tree: Path, tmp_path: Path) -> None:
    import numpy as np

    script = tree / "fatrelu" / "tests" / "golden" / "gen_data.py"
    command = [sys.executable, str(script), "--dtype", "FLOAT16", "--shape", "4,33", "--out-dir", str(tmp_path)]
    subprocess.run([*command, "--reference", "numpy", "--threshold", "0.25"], check=True, capture_output=True)
    x = np.fromfile(tmp_path / "input_self.bin", np.float16).astype(np.float64)
    threshold = np.fromfile(tmp_path / "input_threshold.bin", np.float16)
    out = np.fromfile(tmp_path / "golden_out.bin", np.float16).astype(np.float64)
    assert threshold.tolist() == [0.25] and x.size == out.size == 4 * 33
    np.testing.assert_array_equal(out, np.where(x > 0.25, x, 0.0))
