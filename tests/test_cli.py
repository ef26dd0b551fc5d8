"""The command line as a new user meets it: --version, and --help that exits 0 for every command."""

from __future__ import annotations

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
