"""The cost of an operator is paid when it is used: the binding's first call of a function compiles the twin's
core and that operator's package (one library each), however many packages there are; `opgen cc` compiles only
the packages a program includes, with the same object keys as the binding and the test session, so what one
built the other reuses. Assertions are on the units planned, compiled and cached, never on timings
(benchmarks/first_use_bench.py measures the seconds)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from opgen.twin import SOURCE_DIR
from opgen.twin.compiler import Plan, compile_objects, parse_args

_runtime = pytest.importorskip("opgen_ops._runtime")

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"


def _package_sources(root: Path) -> set[Path]:
    return {path.resolve() for sub in ("op_api", "op_host", "op_kernel") for path in (root / sub).rglob("*.cpp")}


def _planned(args: list[str]) -> set[Path]:
    return {unit.source.resolve() for unit in Plan(parse_args(args)).units()}


def _first_use_units(tmp_path: Path, package: str) -> set[Path]:
    core = tmp_path / "libcore.so"
    core.write_bytes(b"")  # the plan only needs it to exist
    return _planned(_runtime.core_library_args(tmp_path / "core.so")) | _planned(
        _runtime.package_library_args(tmp_path / "package.so", package, core)
    )


def test_first_use_plans_the_twin_core_and_that_package_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    twin = {path.resolve() for path in SOURCE_DIR.rglob("*.cpp")}
    units = _first_use_units(tmp_path, "leaky_relu")
    package = _package_sources(GENERATED / "leaky_relu")
    library = units & (twin | package)
    assert library == twin | package, "the twin's sources and leaky_relu's, and no other package's"
    generated = units - library  # the anchor, the SoC default, the kernels' registration: one of each
    assert len(generated) == 3 and not any(str(GENERATED) in str(path) for path in generated), generated

    # independent of how many packages there are: the same units with two more packages beside it
    ops = tmp_path / "ops"
    for name in ("leaky_relu", "elu", "gelu"):
        shutil.copytree(GENERATED / name, ops / name)
    monkeypatch.setattr(_runtime, "GENERATED", ops)
    fewer = _first_use_units(tmp_path, "leaky_relu")
    assert len(fewer) == len(units)
    assert {path for path in fewer if path.is_relative_to(ops)} == _package_sources(ops / "leaky_relu")


_PROBE = """
import json, numpy as np, opgen_ops
from opgen_ops import _runtime
x = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
first = opgen_ops.leaky_relu(x, 0.25).tolist()
after_first = _runtime.loaded_packages()
second = opgen_ops.elu(x).tolist()
maps = open("/proc/self/maps").read()
print(json.dumps({"first": first, "after_first": after_first, "second": second,
                  "after_second": _runtime.loaded_packages(), "every": "libopgen_ops-" in maps}))
"""


@pytest.mark.cxx
@pytest.mark.slow
def test_each_package_is_loaded_by_its_first_call() -> None:
    env = {**os.environ, "OPGEN_OPS_ALL": "0"}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["first"] == [-0.5, -0.125, 0.0, 3.0]
    assert seen["after_first"] == ["leaky_relu"], "the first call loads its own package only"
    assert seen["second"][3] == 3.0 and seen["second"][0] == pytest.approx(-0.8646647, rel=1e-6)
    assert seen["after_second"] == ["elu", "leaky_relu"]
    assert not seen["every"], "the library of every package is not loaded"


@pytest.mark.cxx
def test_opgen_cc_reuses_what_the_test_session_built(twin_lib, tmp_path: Path) -> None:
    """The session's library (the binding's recipe) and then a program with `opgen cc`, defaults only: nothing
    of the twin or the package compiles again (before, -O1 against the binding's -O2 recompiled all)."""
    session, session_objects = compile_objects(parse_args(_runtime.twin_library_args(twin_lib.path)))
    assert not session.compiled, "the session's library is built"
    source = tmp_path / "program.cpp"
    source.write_text(
        '#include "aclnnop/aclnn_leaky_relu.h"\n'
        f'int main() {{ return sizeof("{uuid.uuid4().hex}") == 33 ? 0 : 1; }}  // code the cache has never seen\n'
    )
    argv = [str(source), "-o", str(tmp_path / "program"), "--ops-dir", str(GENERATED)]
    result, objects = compile_objects(parse_args(argv))
    library = {path.resolve() for path in SOURCE_DIR.rglob("*.cpp")} | _package_sources(GENERATED / "leaky_relu")
    assert library <= {path.resolve() for path in result.cached}, "the twin and the package come from the cache"
    shims = [path for path in result.compiled if path.name.startswith("register_")]
    assert sorted(result.compiled) == sorted([source, *shims]) and len(shims) <= 1, result.compiled
    # ... and they are the session's very objects (same keys), not others cached by an earlier build
    # (the shim registering leaky_relu's kernels alone is not the session's, which registers every package's)
    assert len(set(objects) - set(session_objects)) == 2, "only the program's object and the shim's are new"
