"""A spec file may describe several operators of one ops-nn directory, one YAML document each (relu/ holds Relu
and AddRelu): each is validated on its own, at its own lines, and the file's operators must fit one directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec, load_spec_documents

ROOT = Path(__file__).resolve().parents[2]
FIRST = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
SECOND_EDITS = {
    "type: LeakyRelu\n": "type: LeakyReluTwin\n  stem: leaky_relu_twin\n",
    "name: aclnnLeakyRelu\n": "name: aclnnLeakyReluTwin\n",
    "  aten: leaky_relu\n": "",
    "name: aclnnInplaceLeakyRelu\n": "name: aclnnInplaceLeakyReluTwin\n",
    "    aten: leaky_relu_\n": "",
    "  doc_name: aclnnLeakyRelu&aclnnInplaceLeakyRelu\n": "",
}


def _second(**extra: str) -> str:
    text = FIRST
    for old, new in {**SECOND_EDITS, **extra}.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def _write(tmp_path: Path, *documents: str) -> Path:
    path = tmp_path / "leaky_relu.yaml"
    path.write_text("\n---\n".join(documents), encoding="utf-8")
    return path


def _problems(path: Path) -> str:
    with pytest.raises(SpecError) as caught:
        load_spec_documents(path)
    return str(caught.value)


def test_two_operators_of_one_directory_load_in_order(tmp_path: Path) -> None:
    first, second = load_spec_documents(_write(tmp_path, FIRST, _second()))
    assert (first.spec.operator.file_stem, second.spec.operator.file_stem) == ("leaky_relu", "leaky_relu_twin")
    assert first.spec.operator.dir == second.spec.operator.dir == "leaky_relu"
    assert second.spec.api.name == "aclnnLeakyReluTwin"
    with pytest.raises(SpecError, match="the spec describes 2 operators"):
        load_spec(tmp_path / "leaky_relu.yaml")


def test_a_problem_in_the_second_document_is_at_its_line_of_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, FIRST, _second(**{"category: activation": "categry: activation"}))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "categry" in text)
    assert f"leaky_relu.yaml:{line}:3: operator.categry: unknown key 'categry'" in _problems(path)


def test_the_operators_share_the_directory_and_not_their_stems_or_names(tmp_path: Path) -> None:
    other_dir = _second(**{"dir: leaky_relu\n": "dir: other\n"})
    assert "every operator of a spec file is in one directory: 'leaky_relu'" in _problems(
        _write(tmp_path, FIRST, other_dir)
    )
    same_stem = _second(**{"stem: leaky_relu_twin": "stem: leaky_relu"})
    assert "operator 2 needs its own stem" in _problems(_write(tmp_path, FIRST, same_stem))
    no_stem = _second(**{"  stem: leaky_relu_twin\n": ""})
    assert "operator 2 needs its own stem" in _problems(_write(tmp_path, FIRST, no_stem))
    same_api = _second(**{"name: aclnnLeakyReluTwin\n": "name: aclnnLeakyRelu\n"})
    assert "aclnn API 'aclnnLeakyRelu' is already operator 1's in this file" in _problems(
        _write(tmp_path, FIRST, same_api)
    )
    renamed_first = FIRST.replace("type: LeakyRelu\n", "type: LeakyRelu\n  stem: first\n", 1)
    assert "the first operator of a directory keeps the directory's name" in _problems(
        _write(tmp_path, renamed_first, _second())
    )
