"""The generated C++ names and structures things as ops-nn's own sources do (issue 17, item 2).

op_api: the error table's rows in small static helpers per check group (CheckNotNull, CheckDtypeValid,
CheckShape, ...) that CheckParams calls; each helper takes only what it reads (no `(void)x;` casts: the file
compiles with -Wall -Wextra -Werror), conditions in single parentheses, dtype lists named for what they hold.
Tiling: keys are named constants of the tiling-data header, which host tiling and kernel share. def.cpp: one
AI Core config per distinct dtype list, added for each SoC that takes it.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from spec_list import GENERATED, ROOT, kernel_operators

from opgen.lang import cpp
from opgen.plan.kernel import kernel_plan
from opgen.plan.operator import kernel_socs
from opgen.twin.compiler import compiler

OP_API_SOURCES = sorted(GENERATED.glob("*/op_api/aclnn_*.cpp"))
KERNEL_SPECS = list(kernel_operators().values())  # those with an AI Core kernel of their own


def _name(path) -> str:
    return str(path.relative_to(GENERATED))


def _conditions(source: str) -> list[str]:
    """The condition of every `if (...)` (the text between its parentheses)."""
    found = []
    for match in re.finditer(r"\bif \(", source):
        depth, start = 1, match.end()
        for index in range(start, len(source)):
            depth += {"(": 1, ")": -1}.get(source[index], 0)
            if depth == 0:
                found.append(source[start:index])
                break
    return found


def _function(source: str, signature: str) -> str:
    """The body of the function whose definition starts with `signature`."""
    start = source.index("{", source.index(signature))
    return source[start : source.index("\n}\n", start)]


@pytest.mark.parametrize("path", OP_API_SOURCES, ids=_name)
def test_op_api_checks_are_helpers_per_group(path):
    source = path.read_text(encoding="utf-8")
    assert not re.search(r"^\s*\(void\)\s*\w+;", source, re.MULTILINE), "an argument cast to void"
    doubled = [c for c in _conditions(source) if cpp.without_outer_parentheses(c) != c]
    assert not doubled, f"conditions in doubled parentheses: {doubled}"
    assert not re.search(r"\bk[A-Z]\w*Dtypes\d*\b", source), "a dtype list not named for what it holds"
    assert not re.search(r"\bbroadcast(Shape|Ok)\d+\b", source) or source.count("BroadcastInferShape(") > 1
    if "static aclnnStatus CheckParams(" in source:
        body = _function(source, "static aclnnStatus CheckParams(")
        assert "OP_LOGE" not in body, "CheckParams checks rows itself instead of calling a helper per group"
        helpers = re.findall(r"if \(!(Check\w+)\(", body)
        assert helpers, "CheckParams calls no helper"
        for helper in helpers:
            assert f"static inline bool {helper}(" in source


@pytest.mark.parametrize("path", OP_API_SOURCES, ids=_name)
def test_op_api_helpers_take_only_what_they_read(path):
    """Without the casts, an argument a helper does not read is an unused parameter: a warning, here an error."""
    flags = ["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]
    include = ["-isystem", str(ROOT / "opgen" / "twin" / "include"), "-I", str(path.parent)]
    result = subprocess.run(
        [compiler(), *flags, *include, str(path)], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("spec", KERNEL_SPECS, ids=lambda s: s.operator.file_stem)
def test_tiling_keys_are_named_constants_host_and_kernel_share(spec):
    op = spec.operator.file_stem
    package = GENERATED / spec.operator.dir
    header = (package / "op_kernel" / f"{op}_tiling_data.h").read_text(encoding="utf-8")
    kernel = (package / "op_kernel" / f"{op}.cpp").read_text(encoding="utf-8")
    tiling = (package / "op_host" / f"{op}_tiling.cpp").read_text(encoding="utf-8")
    defined = dict(re.findall(r"#define (TILING_KEY_\w+) (\d+)", header))
    # every key of the kernel plan, under its name, with the number it always had
    assert defined == {v.key_name: str(v.key) for v in kernel_plan(spec).variants}
    assert not re.search(r"TILING_KEY_IS\(\s*\d", kernel) and not re.search(r"KEY == \d", kernel)
    assert set(re.findall(r"TILING_KEY_IS\((\w+)\)", kernel)) == set(defined)
    rows = re.findall(r"^\s*\{(\w+), ge::DT_", tiling, re.MULTILINE)
    assert rows and set(rows) == set(defined), "the host tiling's variants name their keys"
    # constants are named as ops-nn names them (UPPER_SNAKE), not kCamelCase
    for source in (header, kernel, tiling):
        assert not re.search(r"constexpr \w+ k[A-Z]\w*", source)


@pytest.mark.parametrize("spec", KERNEL_SPECS, ids=lambda s: s.operator.file_stem)
def test_def_defines_each_distinct_config_once(spec):
    op = spec.operator.file_stem
    source = (GENERATED / spec.operator.dir / "op_host" / f"{op}_def.cpp").read_text(encoding="utf-8")
    configs = re.findall(r"OpAICoreConfig (\w+);", source)
    bodies = []
    for var in configs:
        start = source.index(f"OpAICoreConfig {var};")
        body = source[start : source.index("this->AICore().AddConfig(", start)]
        bodies.append(body.replace(var, "CONFIG"))
    assert len(set(bodies)) == len(bodies), "two configs are the same: write it once, add it for each SoC"
    added = re.findall(r'AddConfig\("(\w+)", (\w+)\);', source)
    assert sorted(soc for soc, _ in added) == sorted(kernel_socs(spec)), "each SoC the kernel runs on, once"
    assert {var for _, var in added} == set(configs)
