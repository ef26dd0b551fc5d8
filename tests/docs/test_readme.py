"""The README's Python example runs as written (before, it used names it never defined); the spec reference
names every check kind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from opgen.spec.checks import CHECK_KINDS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.cxx  # the binding builds the twin library on first use
def test_readme_python_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    assert "161002" in capsys.readouterr().out


def test_every_check_kind_is_documented() -> None:
    # a check kind added to the table but not to the spec reference is one users cannot find
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "adding-an-operator.md").read_text(encoding="utf-8")
    for kind in CHECK_KINDS:
        assert f"`{kind.kind}" in readme, kind.kind
        assert f"`{kind.kind}" in guide, kind.kind
