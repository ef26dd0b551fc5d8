"""Local names (formula.let) in the generated package: the docs' 计算公式 shows the formula with the names and then
each definition it uses (per mode, only those the mode's formula uses), and the generated numpy references compute
each name once, into a local variable (tests/fixtures/let/square_plus.yaml; a copy of specs/gelu_grad_v2.yaml
written with names for the modes)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from opgen.cli import main
from opgen.emit.golden_tests import reference_source
from opgen.plan.documentation import formula_blocks
from opgen.plan.formulas import formula_plan
from opgen.plan.schedules import schedule_for
from opgen.spec.formula_binding import evaluate_reference, let_local, parsed_formula
from opgen.spec.loader import load_spec, load_spec_text_documents
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "let"
GELU_GRAD = ROOT / "specs" / "gelu_grad_v2.yaml"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("let") / "generated"
    assert main(["build", str(FIXTURES), "-o", str(out), "-q", "-j", "1"]) == 0
    return out / "square_plus"


def _math_blocks(markdown: str) -> list[str]:
    return [block.strip() for block in re.findall(r"\$\$\n(.*?)\n\s*\$\$", markdown, re.S)]


def test_the_docs_show_the_formula_with_its_names_then_each_definition(package: Path) -> None:
    for doc in (package / "README.md", package / "docs" / "aclnnSquarePlus.md"):
        text = doc.read_text(encoding="utf-8")
        section = text[text.index("计算公式") : text.index("## 参数说明") if "## 参数说明" in text else None]
        blocks = _math_blocks(section)
        assert blocks[0].startswith("out = ") and "h - " in blocks[0], blocks[0]
        assert "其中" in section and section.index("其中") > section.index(blocks[0])
        assert [b.split(" = ", 1)[0] for b in blocks[1:4]] == ["a", "m", "h"], blocks
        assert blocks[3] == r"h = \frac{m}{2}*\sqrt{\left(\frac{a}{m}\right)^{2} + \frac{b}{m*m}}"
        assert "38" not in blocks[0] and r"\sqrt" not in blocks[0]  # the output formula stays short


def test_the_generated_references_compute_each_name_once(package: Path) -> None:
    for path in (package / "tests" / "test_golden_square_plus.py", package / "tests" / "golden" / "gen_data.py"):
        text = path.read_text(encoding="utf-8")
        body = text[text.index("def reference(") :]
        body = body[: body.index("\ndef ", 1)]
        for name in ("a", "m", "h"):
            assert len(re.findall(rf"^\s+{let_local(name)} = ", body, re.M)) == 1, body
        returned = re.search(r"return (.*)", body, re.S)  # one expression, or a list of them (golden tests)
        assert returned and let_local("h") in returned[1] and "sqrt" not in returned[1], body


def test_the_aicpu_kernel_computes_each_name_once_per_element(package: Path) -> None:
    text = (package / "op_kernel" / "aicpu" / "square_plus_aicpu.cpp").read_text(encoding="utf-8")
    loop = text[text.index("for (int64_t i = 0; i < count; ++i) {") :]
    loop = loop[: loop.index("outData[i] = ")]
    assert [re.search(rf"const double {let_local(n)} = ", loop) is not None for n in ("a", "m", "h")] == [True] * 3
    assert text.count("std::sqrt") == 1, text


def test_the_reference_source_computes_what_the_reference_evaluates() -> None:
    spec = load_spec(FIXTURES / "square_plus.yaml").spec
    formulas = formula_plan(spec)
    source = reference_source(formulas, formulas.python_names)
    x = np.linspace(-50, 50, 101)
    scope = {"np": np, "self": x, "b": 0.5}
    exec(  # the generated text, run as the generated file runs it (names of helpers it calls)
        "\n".join(
            ["from opgen.formula.functions import _maximum, _minimum"]
            + [f"{name} = {expr}" for name, expr in source.locals]
            + [f"result = {source.outputs['out']}"]
        ),
        scope,
    )
    np.testing.assert_array_equal(scope["result"], evaluate_reference(spec, {"self": x, "b": 0.5}, None))


GELU_TANH = (
    "    gradOutput * (sigmoid(2 * sqrt(2 / pi) * (self + 0.044715 * self * self * self))\n"
    "    + 2 * self * sigmoid(2 * sqrt(2 / pi) * (self + 0.044715 * self * self * self))\n"
    "    * sigmoid(-2 * sqrt(2 / pi) * (self + 0.044715 * self * self * self))\n"
)


def test_each_modes_block_defines_the_names_its_formula_uses() -> None:
    text = GELU_GRAD.read_text(encoding="utf-8")
    assert GELU_TANH in text, "specs/gelu_grad_v2.yaml changed: update the test's edit"
    text = text.replace(
        "  expr: >-\n    where(approximate",
        "  let:\n    u: 2 * sqrt(2 / pi) * (self + 0.044715 * self * self * self)\n  expr: >-\n    where(approximate",
        1,
    ).replace(GELU_TANH, "    gradOutput * (sigmoid(u) + 2 * self * sigmoid(u) * sigmoid(-u)\n", 1)
    (loaded,) = load_spec_text_documents(text, "specs/gelu_grad_v2.yaml", GELU_GRAD)  # derivative_of still holds
    blocks = formula_blocks(loaded.spec, schedule_for(loaded.spec), parsed_formula(loaded.spec))
    by_mode = {str(b.title): b for b in blocks}
    assert set(by_mode) == {'当approximate是"none"时：', '当approximate是"tanh"时：'}
    tanh, none = by_mode['当approximate是"tanh"时：'], by_mode['当approximate是"none"时：']
    assert [str(d).split(" = ")[0] for d in tanh.lets] == ["u"] and "sigmoid(u)" in str(tanh.latex)
    assert none.lets == () and "erf" in str(none.latex)
