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
