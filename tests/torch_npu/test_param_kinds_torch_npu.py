"""torch_npu registrations and adapters for int64, string, optional-scalar and keyword-only parameters (the
fixture specs of tests/fixtures/param_kinds): the schemas are PyTorch's own, and the adapters compile strictly
against the stub headers, handing the aclnn API a C string, an int64_t and an optional scalar."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from opgen.build import plan_specs, spec_inputs
from opgen.emit.torch_npu import FUNCTIONS_YAML, adapter_path, render_torch_npu, torch_npu_fragment
from opgen.plan.signature import ApiSignature, signatures
from opgen.spec.loader import load_spec

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
STUBS = Path(__file__).resolve().parent / "stubs"
FIXTURES = ROOT / "tests" / "fixtures" / "param_kinds"
CXX = shutil.which("g++")

LOADED = [load_spec(item.path, display_name=item.notice) for item in spec_inputs([FIXTURES])]
SPECS = {item.spec.operator.dir: item.spec for item in LOADED}
PLANS = plan_specs(LOADED)
FILES = render_torch_npu([torch_npu_fragment(plan) for plan in PLANS])
ADAPTERS = {plan.main.name: adapter_path(plan) for plan in PLANS}


def _entries() -> dict[str, str]:
    doc = yaml.safe_load(FILES[FUNCTIONS_YAML])
    return {e["func"].split("(")[0]: e["func"] for e in doc["official"] + doc.get("custom", [])}


def test_string_keyword_only_schemas_are_pytorchs():
    entries = _entries()
    for name in ("gelu_backward", "gelu_backward.grad_input"):
        ours = torch._C.parse_schema("aten::" + entries[name])
        op, _, overload = name.partition(".")
        (real,) = [s for s in torch._C._jit_get_schemas_for_operator(f"aten::{op}") if s.overload_name == overload]
        assert str(ours) == str(real)


def test_custom_schemas_use_int_and_optional_scalar():
    entries = _entries()
    assert entries["npu_gelu_v2"] == "npu_gelu_v2(Tensor x, int approximate=0) -> Tensor"
    assert entries["npu_swish"] == "npu_swish(Tensor self, Scalar? beta=None) -> Tensor"
    for func in entries.values():
        torch._C.parse_schema("aten::" + func)  # valid schema text


def _stub_type(c) -> str:
    if c.ctype in ("char", "const char"):
        return "const char*"
    if c.ctype in ("int64_t", "bool", "double"):
        return c.ctype
    if c.ctype.endswith("aclScalar"):
        return "const c10::optional<at::Scalar>&" if c.param.nullable else "const at::Scalar&"
    return "const at::Tensor&" if c.ctype.startswith("const ") else "at::Tensor&"


def _declarations(sigs: list[ApiSignature]) -> str:
    lines = ["#pragma once", "namespace aclnn_stub {"]
    for sig in sigs:
        params = ", ".join(f"{_stub_type(c)} {c.name}" for c in sig.user_params)
        values = ", ".join(f"describe({c.name})" for c in sig.user_params)
        lines += [
            f"inline void {sig.name}(const char* names, {params}) {{",
            f'  record("{sig.name}", names, {{{values}}});',
            "}",
        ]
    return "\n".join(lines + ["}  // namespace aclnn_stub"]) + "\n"


@pytest.mark.skipif(CXX is None, reason="g++ not found")
@pytest.mark.parametrize("op", sorted(SPECS))
def test_adapters_compile_strictly(op, tmp_path):
    spec = SPECS[op]
    inc = tmp_path / "torch_npu_test"
    inc.mkdir()
    (inc / "aclnn_apis.h").write_text(_declarations(signatures(spec)))
    source = tmp_path / Path(ADAPTERS[spec.api.name]).name
    text = FILES[ADAPTERS[spec.api.name]]
    source.write_text(text)
    # the adapter's functions (op_api) and the acl_op kernels an official one falls back to, as it declares them
    for namespace in ("op_api", "acl_op"):
        (inc / f"{namespace}_declarations.h").write_text(_declarations_of(text, namespace))
    flags = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{STUBS}", f"-I{tmp_path}"]
    result = subprocess.run([CXX, *flags, str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    if SPECS[op].params and any(p.kind.value == "string" for p in SPECS[op].params):
        assert "_str.c_str()" in text  # the C string the aclnn API gets lives in a local std::string


def _declarations_of(text: str, namespace: str) -> str:
    """The adapter's functions declared in `namespace`, with the adapter's own parameter lists."""
    import re

    lines = ["#pragma once", '#include "op_plugin/utils/op_api_common.h"', f"namespace {namespace} {{"]
    for m in re.finditer(r"^(at::Tensor&?) (\w+)\((.*?)\) \{", text, re.S | re.M):
        lines.append(f"{m.group(1)} {m.group(2)}({m.group(3)});")
    return "\n".join(lines + ["}"]) + "\n"
