"""Every generated C++ file compiles warning-free (-Wall -Wextra) with the flags `opgen cc` uses, and every
generated calling example builds with `opgen cc --twin-lib` (-Werror) and prints the numbers its comments promise."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from spec_list import GENERATED, ROOT, loaded, operators


def _sources() -> list[Path]:
    found = []
    for op in operators():
        for path in sorted((GENERATED / op).rglob("*.cpp")):
            if "tests" not in path.relative_to(GENERATED / op).parts:
                found.append(path)
    return found


def test_every_generated_cpp_file_compiles_warning_free(twin_lib):
    sources = _sources()
    # per op: op_api (L2 + L0), op_host (def, infershape, tiling), the kernel, the example (+ the AICPU kernel);
    # an operator running another's kernel (kernel.runs) has its L2 API and example only
    expected = sum(2 if spec.kernel.runs else 7 + bool(spec.routing.aicpu) for _, spec in loaded())
    assert len(sources) == expected  # every operator of a file
    # the packages' sources, from the session's library (compiled with -Wall -Wextra; a full compile, not
    # -fsyntax-only: some warnings, e.g. unused functions, need code generation); the examples are compiled
    # with -Werror by the test below
    packaged = [path for path in sources if path.parent.name != "examples"]
    missing = [str(path.relative_to(ROOT)) for path in packaged if path.resolve() not in twin_lib.warnings]
    assert not missing, f"not compiled into the twin library: {missing}"
    warned = [
        f"{path.relative_to(ROOT)}:\n{twin_lib.warnings[path.resolve()][-1500:]}"
        for path in packaged
        if twin_lib.warnings[path.resolve()]
    ]
    assert not warned, "\n".join(warned)


@pytest.mark.parametrize("op", operators())
def test_example_prints_the_numbers_its_comments_promise(op, twin_lib):
    example = next((GENERATED / op / "examples").glob("test_aclnn_*.cpp"))
    binary = twin_lib.program(f"example_{op}", [example], ops_dirs=[GENERATED], flags=["-Wall", "-Wextra", "-Werror"])
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # result[i] of the first output; each further computed output under its own name (gradWeight[i])
    promised = re.findall(r"//\s+(\w+\[\d+\] is: -?[\d.]+)", example.read_text(encoding="utf-8"))
    printed = [line.strip() for line in proc.stdout.splitlines() if re.match(r"\w+\[\d+\] is: ", line)]
    assert promised and printed == promised
