"""The one-process formatter of generated Python gives black's layout: every Python file a build of the real
specs produces (the committed generated/, which `opgen build specs/ --check` keeps equal to a build), and of the
hostile-text variant, is unchanged by black (which stays only as this check)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.lang.python_format import format_python

black = pytest.importorskip("black")
ROOT = Path(__file__).resolve().parents[2]


def _black(rel: str, text: str) -> str:
    mode = black.Mode(line_length=120, target_versions={black.TargetVersion.PY311}, is_pyi=rel.endswith(".pyi"))
    return black.format_str(text, mode=mode)


def test_generated_python_is_black_stable() -> None:
    generated = ROOT / "generated"
    paths = sorted(p for p in generated.rglob("*") if p.suffix in (".py", ".pyi") and "__pycache__" not in p.parts)
    python = {str(p.relative_to(generated)): p.read_text(encoding="utf-8") for p in paths}
    assert python
    for rel, text in python.items():
        assert _black(rel, text) == text, rel


def test_formatting_is_one_call_for_many_files_and_keeps_others() -> None:
    files = {
        "a/x.py": "x = [1,2,\n3]\n",
        "b/x.py": "def f(a,b):\n  return a+b\n",
        "c/s.pyi": "def f(a: int,\n b: int) -> int: ...\n",
        "d/readme.md": "not python  \n",
    }
    out = format_python(files)
    assert out["a/x.py"] == "x = [1, 2, 3]\n"
    assert out["b/x.py"] == "def f(a, b):\n    return a + b\n"
    assert out["c/s.pyi"] == "def f(a: int, b: int) -> int: ...\n"
    assert out["d/readme.md"] == files["d/readme.md"]
    for rel, text in out.items():
        if rel.endswith((".py", ".pyi")):
            assert _black(rel, text) == text


def test_long_binding_names_stay_black_stable() -> None:
    # Before: the error-row test called the binding in a one-line conditional expression, which ruff format
    # and black split differently once the line passed 120 columns (a long aten name).
    from opgen.build import check_spec_text
    from opgen.emit.golden_tests import render_golden_tests

    name = "leaky_relu_backward"
    text = (ROOT / "specs" / "leaky_relu_grad.yaml").read_text(encoding="utf-8")
    assert f"aten: {name}\n" in text
    text = text.replace(f"aten: {name}\n", f"aten: {name}_s1234567\n", 1)
    plan = check_spec_text(text, "specs/long.yaml", ROOT / "specs")  # its derivative_of reads leaky_relu.yaml
    files = format_python(render_golden_tests(plan))
    for rel, formatted in files.items():
        assert f"{name}_s1234567(*args, **kwargs)" in formatted
        assert _black(rel, formatted) == formatted, rel


def test_dunder_all_order_is_the_one_ruff_wants(tmp_path: Path) -> None:
    # Before: `__all__` kept the operators' order, which ruff's RUF022 rejects once names carry numbers or
    # in-place variants sort elsewhere (e.g. 60 renamed copies of the specs: leaky_relu_s7 after leaky_relu_s40).
    import random
    import subprocess
    import sys

    from opgen.lang import python

    names = ["AclnnError", "MAX_RANK", "leaky_relu", "leaky_relu_", "inplace_leaky_relu_s4", "elu_backward_s10"]
    names += [f"{base}_s{i}" for base in ("leaky_relu", "inplace_leaky_relu", "elu_backward") for i in range(0, 60, 7)]
    names += ["a2b", "a10b", "a_b", "aB", "Ab", "ABC_2", "ABC_10", "x_1_2", "x_1_10", "x_01"]
    random.Random(5).shuffle(names)
    source = tmp_path / "module.py"
    source.write_text(f"__all__ = {python.literal(python.dunder_all_order(names))}\n", encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "RUF022", "--line-length", "320", source],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_generated_dunder_all_passes_ruff(tmp_path: Path) -> None:
    import subprocess
    import sys

    from opgen.emit.python import PythonFragment, render_python

    # the binding's package from fragments in operator order (as renamed copies of the specs give it)
    fragments = [
        PythonFragment(f"specs/s{i}.yaml", (f"leaky_relu_s{i}", f"inplace_leaky_relu_s{i}"), "", "")
        for i in (40, 7, 12)
    ]
    files = render_python(fragments)
    init = next(text for rel, text in files.items() if rel.endswith("__init__.py"))
    source = tmp_path / "__init__.py"
    source.write_text(init, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "RUF022", source],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
