"""Every generated C++ file compiles warning-free (-Wall -Wextra -Werror) with the flags `opgen cc` uses,
and every generated calling example builds with `opgen cc` and prints the numbers its comments promise."""

from __future__ import annotations

import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from opgen.spec.loader import load_spec
from opgen.twin.compiler import main as cc_main

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
OPS = ["leaky_relu_grad", "elu_grad_v2", "leaky_relu"]


def _cc_flags() -> list[str]:
    proc = subprocess.run(
        ["python", "-m", "opgen.twin.compiler", "--print-flags", "--ops-dir", str(GENERATED)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return shlex.split(proc.stdout.strip().splitlines()[-1])


def _sources() -> list[Path]:
    found = []
    for op in OPS:
        for path in sorted((GENERATED / op).rglob("*.cpp")):
            if "tests" not in path.relative_to(GENERATED / op).parts:
                found.append(path)
    return found


def test_every_generated_cpp_file_compiles_warning_free():
    flags = _cc_flags()
    sources = _sources()
    # per op: op_api (L2 + L0), op_host (def, infershape, tiling), the kernel, the example (+ the AICPU kernel)
    specs = [load_spec(ROOT / "specs" / f"{op}.yaml").spec for op in OPS]
    assert len(sources) == sum(7 + bool(spec.routing.aicpu) for spec in specs)

    def compile_one(path: Path) -> tuple[Path, int, str]:
        # a full compile (not -fsyntax-only): some warnings, e.g. unused functions, need code generation
        cmd = ["g++", *flags, "-Wall", "-Wextra", "-Werror", "-c", "-o", "/dev/null", "-I", str(path.parent), str(path)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        return path, proc.returncode, proc.stderr

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(compile_one, sources))
    failed = [f"{p.relative_to(ROOT)}:\n{err[-1500:]}" for p, code, err in results if code != 0]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("op", OPS)
def test_example_prints_the_numbers_its_comments_promise(op, tmp_path):
    example = next((GENERATED / op / "examples").glob("test_aclnn_*.cpp"))
    binary = tmp_path / op
    # the packages are compiled with the user's warning flags too
    assert cc_main([str(example), "-o", str(binary), "--ops-dir", str(GENERATED), "-Wall", "-Wextra", "-Werror"]) == 0
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    promised = re.findall(r"//\s+(result\[\d+\] is: -?[\d.]+)", example.read_text(encoding="utf-8"))
    printed = [line.strip() for line in proc.stdout.splitlines() if line.startswith("result[")]
    assert promised and printed == promised
