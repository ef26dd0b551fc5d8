"""Generated C++ is laid out by clang-format in ops-nn's style.

Before: the templates' own layout (2-space indents, braces on the function line, `const aclTensor *self`, lines
past 120 columns) differed from what clang-format makes of every generated C++ file with ops-nn's .clang-format.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from opgen.lang.cpp_format import CPP_SUFFIXES, STYLE, clang_format_executable, format_cpp, style_file_text

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"


def _generated_cpp() -> list[Path]:
    return sorted(p for p in GENERATED.rglob("*") if p.suffix in CPP_SUFFIXES and p.is_file())


def test_every_generated_cpp_file_is_clean_under_the_generated_style_file() -> None:
    style = GENERATED / ".clang-format"
    assert style.read_text(encoding="utf-8").split("\n", 1)[1] == style_file_text()
    files = _generated_cpp()
    assert len(files) > 100
    command = [clang_format_executable(), "--dry-run", "-Werror", f"--style=file:{style}", *map(str, files)]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:4000]


def test_the_style_file_states_ops_nn_style() -> None:
    settings = yaml.safe_load(style_file_text())
    assert settings == STYLE
    # ops-nn's .clang-format: Google's style with these changes.
    assert settings["BasedOnStyle"] == "Google"
    assert (settings["IndentWidth"], settings["ColumnLimit"], settings["AccessModifierOffset"]) == (4, 120, -4)
    assert settings["PointerAlignment"] == "Left" and settings["DerivePointerAlignment"] is False
    assert settings["BreakBeforeBraces"] == "Custom" and settings["BraceWrapping"]["AfterFunction"] is True
    assert settings["SortIncludes"] is False  # include order is meaningful in the twin and in ops-nn


def test_one_call_formats_every_cpp_file_and_keeps_the_others() -> None:
    files = {
        "a/x.cpp": "int f(const int *p){int q=*p;return q;}\n",
        "b/x.h": "class A{\n public:\n  int g();\n};\n",
        "c/readme.md": "int  f(  );\n",
        "d/x.py": "x  =  1\n",
    }
    out = format_cpp(files)
    assert out["a/x.cpp"] == "int f(const int* p)\n{\n    int q = *p;\n    return q;\n}\n"
    assert out["b/x.h"] == "class A {\npublic:\n    int g();\n};\n"
    assert out["c/readme.md"] == files["c/readme.md"] and out["d/x.py"] == files["d/x.py"]


def test_docs_quote_the_calling_example_as_formatted() -> None:
    example = GENERATED / "leaky_relu" / "examples" / "test_aclnn_leaky_relu.cpp"
    body = example.read_text(encoding="utf-8").split("\n", 1)[1]
    doc = next((GENERATED / "leaky_relu" / "docs").glob("aclnnLeakyRelu*.md")).read_text(encoding="utf-8")
    assert "    " in body and body.strip() in doc
