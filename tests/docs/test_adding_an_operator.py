"""docs/adding-an-operator.md stays true: its finished spec is the skeleton `opgen new` writes with the TODOs
filled in, it checks and builds, the files the guide names are generated, and the generated golden tests pass on
the twin through the generated binding (in a fresh output tree, so the real specs are not involved)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from opgen.build import check_spec_text
from opgen.cli import main
from opgen.spec_skeleton import render_skeleton

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adding-an-operator.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def _finished_spec() -> str:
    (spec,) = _blocks("yaml")
    return spec


def _keys(node: object, prefix: str = "") -> set[str]:
    if isinstance(node, dict):
        return {f"{prefix}{key}" for key in node} | {
            path for key, value in node.items() for path in _keys(value, f"{prefix}{key}.")
        }
    if isinstance(node, list):
        return {path for index, value in enumerate(node) for path in _keys(value, f"{prefix}{index}.")}
    return set()


def test_the_finished_spec_fills_the_skeleton():
    command = next(line for block in _blocks("sh") for line in block.splitlines() if line.startswith("opgen new"))
    args = command.split()[2:]
    op_type, aten = args[0], args[args.index("--aten") + 1]
    skeleton = yaml.safe_load(render_skeleton(op_type, aten_name=aten))
    finished = yaml.safe_load(_finished_spec())
    assert "TODO" not in _finished_spec()
    skeleton_errors, finished_errors = skeleton.pop("errors"), finished.pop("errors")
    assert _keys(skeleton) <= _keys(finished)
    # the skeleton's rows stay, in order; the guide adds the doc's castable row between them
    kinds = [next(iter(row["check"])) for row in finished_errors]
    positions = [kinds.index(next(iter(row["check"]))) for row in skeleton_errors]
    assert positions == sorted(positions)
    assert [p["name"] for p in skeleton["params"]] == [p["name"] for p in finished["params"]]
    assert skeleton["api"] == finished["api"]
    check_spec_text(_finished_spec(), "specs/relu6.yaml")


def test_every_command_of_the_guide_exists():
    commands = [line.split("#")[0].strip() for block in _blocks("sh") for line in block.splitlines() if line.strip()]
    subcommands = {c.split()[1] for c in commands if c.startswith("opgen ")}
    assert subcommands == {"new", "check", "build", "cc"}
    for sub in subcommands:
        with pytest.raises(SystemExit) as exited:
            main([sub, "--help"]) if sub != "cc" else sys.exit(main([sub, "--help"]))
        assert exited.value.code == 0


@pytest.mark.cxx
@pytest.mark.slow
def test_the_guides_operator_builds_and_passes_its_tests(tmp_path, twin_lib):
    # twin_lib: the session's library first, so the twin's objects are in the cache and this tree's own binding
    # library compiles only its package (racing the session's build, both would compile the twin)
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "relu6.yaml").write_text(_finished_spec(), encoding="utf-8")
    out = tmp_path / "generated"
    assert main(["check", str(specs), "-q"]) == 0
    assert main(["build", str(specs), "-o", str(out), "-q"]) == 0
    guide = GUIDE.read_text(encoding="utf-8")
    for named in re.findall(r"`(generated/relu6/[^`\s]+)`", guide):
        assert (tmp_path / named).exists(), named
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out / "python"), str(ROOT)])}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out / "relu6")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert re.search(r"^(\d+) passed", ran.stdout.splitlines()[-1]), ran.stdout[-500:]
