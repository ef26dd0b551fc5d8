"""A TODO left in any text value of a spec is an error at its line; TODO in YAML comments (shipped specs keep
`# TODO(kind)` notes there) is not a value and passes. Before, TODOs in `function` and `description` passed
`opgen check` and reached the generated docs."""

from __future__ import annotations

import pytest
from support.text import line_of

from opgen.spec.diagnostics import SpecError
from opgen.spec.loader import load_spec_text
from tests.conftest import ROOT

RELU = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")


def _problems(text: str) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_spec_text(text, "leaky_relu.yaml")
    return [str(d) for d in caught.value.diagnostics]


def test_todo_in_function_and_description_is_reported_at_its_line():
    function = RELU.split("  function: ", 1)[1].split("\n", 1)[0]
    description = RELU.split("    description: ", 1)[1].split("\n", 1)[0]
    text = RELU.replace(f"  function: {function}", "  function: 'TODO: 算子功能'", 1)
    text = text.replace(f"    description: {description}", "    description: TODO 参数说明", 1)
    problems = _problems(text)
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"leaky_relu.yaml:{line_of(text, 'function: ')}:")
    assert "operator.function" in problems[0]
    assert problems[1].startswith(f"leaky_relu.yaml:{line_of(text, 'description: TODO')}:")
    assert all("TODO" in p and "write the real value" in p for p in problems)


def test_todo_in_a_list_or_nested_value_is_reported_once():
    row = "  - {soc: ascend910b, supported: true}"
    text = RELU.replace(row, "  - {soc: ascend910b, supported: true, source: TODO(doc)}", 1)
    assert text != RELU
    (problem,) = _problems(text)
    assert f":{line_of(text, 'TODO(doc)')}:" in problem and "socs[2].source" in problem, problem


def test_todo_in_comments_and_inside_words_passes():
    load_spec_text(RELU + "# TODO(kind): a note for the maintainers\n", "leaky_relu.yaml")
    function = RELU.split("  function: ", 1)[1].split("\n", 1)[0]
    load_spec_text(RELU.replace(f"  function: {function}", f"  function: {function}TODOS", 1), "leaky_relu.yaml")
