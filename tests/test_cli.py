"""The command line as a new user meets it: --version, and --help that exits 0 for every command."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from opgen import __version__
from opgen.cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"opgen {__version__}"


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["build", "--help"], ["schema", "--help"]])
def test_help_exits_zero(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_cc_help_exits_zero(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cc", flag]) == 0
    assert capsys.readouterr().out.startswith("usage: opgen cc")


ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_build_one_spec_file(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["build", str(ROOT / "specs" / "leaky_relu.yaml"), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert (out / "leaky_relu" / "op_kernel" / "leaky_relu.cpp").is_file()
    assert not (out / "elu_grad_v2").exists()


def test_only_writes_one_package_and_leaves_the_others(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["build", str(ROOT / "specs"), "-o", str(out), "-q"]) == 0
    kept = out / "elu_grad_v2" / "README.md"
    kept.write_text("edited by hand\n", encoding="utf-8")  # a generated file: --only leaves it as it is
    assert main(["build", str(ROOT / "specs"), "-o", str(out), "--only", "leaky_relu"]) == 0
    assert kept.read_text(encoding="utf-8") == "edited by hand\n"
    assert main(["build", str(ROOT / "specs"), "-o", str(out), "--only", "no_such_op"]) == 1
    assert "no operator no_such_op" in capsys.readouterr().err


def test_diagnostics_name_the_spec_relative_to_the_working_directory(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "deep" / "specs"
    folder.mkdir(parents=True)
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8").replace("[FLOAT,", "[FLAOT,", 1)
    (folder / "leaky_relu.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "deep/specs"]) == 1
    assert capsys.readouterr().err.startswith("deep/specs/leaky_relu.yaml:")


_HEAVY = (
    "opgen.build",
    "opgen.spec",
    "opgen.plan",
    "opgen.emit",
    "opgen.formula",
    "numpy",
    "pydantic",
    "yaml",
    "jinja2",
)


def _modules_imported_by(code: str) -> list[str]:
    probe = f"import json, sys\nbefore = set(sys.modules)\n{code}\nprint(json.dumps(sorted(set(sys.modules) - before)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.splitlines()[-1])


def test_version_imports_none_of_the_generator() -> None:
    """`opgen --version` starts without the generator's layers (numpy, pydantic, YAML, templates): it imports a
    small fraction of the modules a build needs (counted, not timed)."""
    version = _modules_imported_by(
        "from opgen.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    )
    build = _modules_imported_by("import opgen.build")
    assert not [name for name in version if name.startswith(_HEAVY)], version
    assert len(version) * 10 < len(build), (len(version), len(build))


@pytest.mark.slow
def test_opgen_test_selects_one_operators_tests(capfd: pytest.CaptureFixture[str]) -> None:
    """`opgen test leaky_relu` collects leaky_relu's golden tests, its C++ unit test programs and its binding
    tests, and none of another operator's (leaky_relu_grad's ids contain "leaky_relu" too)."""
    assert main(["test", "leaky_relu", "--collect-only", "-n", "0", "-p", "no:cacheprovider"]) == 0
    ids = [line for line in capfd.readouterr().out.splitlines() if "::" in line]
    parts = [set(re.split(r"[-+/\[\], ]", test_id.split("::", 1)[1])) for test_id in ids]
    assert ids and all(
        test_id.startswith("generated/leaky_relu/") or "leaky_relu" in part
        for test_id, part in zip(ids, parts, strict=True)
    ), [test_id for test_id, part in zip(ids, parts, strict=True) if "leaky_relu" not in part]
    assert not [test_id for test_id in ids if test_id.startswith("generated/leaky_relu_grad/")]
    assert any(test_id.startswith("generated/leaky_relu/tests/test_golden_leaky_relu.py::") for test_id in ids)
    assert any(test_id.startswith("tests/generated/test_generated_cpp_tests.py::") for test_id in ids)
    assert any(test_id.startswith("tests/e2e/test_aclnn_errors.py::") for test_id in ids)


def test_opgen_test_refuses_an_unknown_operator(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "no_such_op"]) == 1
    assert "no generated package no_such_op" in capfd.readouterr().err
