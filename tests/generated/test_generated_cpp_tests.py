"""The generated C++ unit tests of every package (tests/ut/op_api/test_aclnn_*.cpp, tests/ut/op_host/
test_*_tiling.cpp) compile warning-free and pass on the twin (ascend910b): every error-table row's case ran,
returned its status and logged its message; every dtype's success case ran; every SoC x variant tiling case ran.

Each test file is compiled with -Wall -Wextra -Werror and linked against the session's twin library (the twin
and every package, compiled once: `opgen cc --twin-lib`), so the flags stay off the package and twin sources.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from spec_list import GENERATED, loaded, specs

from opgen.plan.cases import empty_return_soc_calls, negative_calls
from opgen.plan.kernel import kernel_plan
from opgen.plan.operator import kernel_socs
from opgen.plan.signature import signatures
from opgen.spec.model import OpSpec, snake_case
from opgen.twin import INCLUDE_DIR

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)


def _expected_files(op: str, spec: OpSpec) -> list[Path]:
    tests = GENERATED / op / "tests" / "ut"
    files = [tests / "op_api" / f"test_aclnn_{snake_case(sig.name[len('aclnn') :])}.cpp" for sig in signatures(spec)]
    if spec.kernel.runs is not None:  # it runs another operator's kernel: no tiling of its own to test
        return files
    return files + [tests / "op_host" / f"test_{spec.operator.file_stem}_tiling.cpp"]


# every operator of every spec file: a directory's later operators (Silu, AddRelu, LogSigmoidForward) too
SPEC_OF = {path: spec for _, spec in loaded() for path in _expected_files(spec.operator.dir, spec)}
PROGRAMS = [(spec.operator.dir, path) for path, spec in SPEC_OF.items()]


def _build(op: str, source: Path, twin_lib) -> Path:
    name = f"{op}-{source.stem}"
    return twin_lib.program(name, [source], ops_dirs=[GENERATED / op], flags=["-Wall", "-Wextra", "-Werror"])


def _run(program: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(program)], capture_output=True, text=True, timeout=300)


def _passed_cases(stdout: str) -> set[str]:
    return set(re.findall(r"^\[       OK \] (\S+)$", stdout, re.M))


def _expected_api_cases(spec: OpSpec, sig) -> tuple[str, dict[str, str]]:
    """(suite, {case name: error message or ""}) the API's test must run."""
    suite = f"l2_{snake_case(sig.name[len('aclnn') :])}_test"
    cases = {}
    for call in negative_calls(spec):
        replaced = [call.args[name] for name in sig.replaced]
        # the in-place API can only express rows whose replaced params are one tensor (or a null)
        if sig.inplace and not (any(a.kind == "null" for a in replaced) or all(a == replaced[0] for a in replaced)):
            continue
        # a null workspaceSize/executor is refused by the DFX phase-one check before the row's own check runs
        cases[call.name] = "" if call.null_outputs else call.message
    # an empty tensor on each SoC where the empty return's place differs: success, or the row's status and message
    for soc_call in empty_return_soc_calls(spec):
        cases[soc_call.call.name] = soc_call.call.message
    for dtype in spec.tensor_inputs[0].dtypes:
        if sig.inplace and spec.result_dtype(dtype) is not dtype:
            continue  # an in-place integer tensor cannot hold erfinv's FLOAT result (kernel.integers_as)
        cases[f"valid_{dtype.value.lower()}"] = ""
    return suite, cases


def test_every_package_has_its_test_files():
    for path in SPEC_OF:
        assert path.is_file(), path


def test_packages_share_the_twins_gtest_stand_in_instead_of_a_copy():
    # ops-nn's own tests include "gtest/gtest.h": in its tree that is real gtest, on the twin the stand-in
    stand_in = INCLUDE_DIR / "gtest" / "gtest.h"
    assert stand_in.is_file()
    for op in specs():
        assert not list((GENERATED / op).rglob("opgen_ut.h")), op
    for path in SPEC_OF:
        includes = re.findall(r'^#include "([^"]+)"', path.read_text(encoding="utf-8"), re.M)
        assert "gtest/gtest.h" in includes and not any(i.endswith("opgen_ut.h") for i in includes), path


@pytest.mark.parametrize("op,source", PROGRAMS, ids=[f"{op}-{path.stem}" for op, path in PROGRAMS])
def test_generated_cpp_test_passes_on_the_twin(op, source, twin_lib):
    spec = SPEC_OF[source]
    result = _run(_build(op, source, twin_lib))
    summary = SUMMARY.findall(result.stdout)
    assert summary, result.stdout[-2000:] + result.stderr[-2000:]
    passed, failed = map(int, summary[-1])
    assert failed == 0 and result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    ran = _passed_cases(result.stdout)
    assert len(ran) == passed

    if source.parent.name == "op_host":
        plan = kernel_plan(spec)
        expected = {
            f"{spec.operator.type}TilingTest.{soc}_{variant.name}"
            for soc in kernel_socs(spec)
            for variant in plan.variants
        }
        expected.add(f"{spec.operator.type}TilingTest.refuses_what_it_cannot_plan")
        assert expected <= ran, expected - ran
        return

    sig = next(s for s in signatures(spec) if source.stem == f"test_aclnn_{snake_case(s.name[len('aclnn') :])}")
    suite, cases = _expected_api_cases(spec, sig)
    missing = {name for name in cases if f"{suite}.{name}" not in ran}
    assert not missing, missing
    # each error row's case logged the row's message (the API checked what the row states)
    for name, message in cases.items():
        if message:
            assert message in result.stderr, (name, message)
    if not sig.inplace:
        assert {c.row for c in negative_calls(spec)} == set(range(len(spec.errors)))
