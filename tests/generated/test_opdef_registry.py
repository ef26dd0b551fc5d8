"""The generated OpDefs, as the twin's registry holds them, carry what ops-nn's carry: per SoC an AI Core config
with the flags ops-nn sets and opFile.value naming the kernel (the operator directory), which the launcher
uses to find the kernel whatever the OpType.

Before: the configs had no opFile.value, so the twin launched snake_case(OpType): an operator in softshrink/ with
OpType SoftShrink failed with 561003 (tests/e2e/test_family_defects.py runs such an operator).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from opgen.plan.opdef import opdef_plan
from opgen.plan.operator import kernel_socs
from opgen.spec.loader import load_spec_documents
from opgen.twin.compiler import compile_program

ROOT = Path(__file__).resolve().parents[2]
PROBE = '#include <cstdio>\n#include "register/op_def_registry.h"\n'
PROBE += 'int main() { std::printf("%s\\n", ops::OpDefRegistryToJson().c_str()); return 0; }\n'

pytestmark = pytest.mark.cxx


@pytest.mark.parametrize("spec_path", sorted((ROOT / "specs").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_soc_config_names_the_kernel_file(spec_path: Path, tmp_path: Path) -> None:
    specs = [item.spec for item in load_spec_documents(spec_path)]
    source = tmp_path / "probe.cpp"
    source.write_text(PROBE, encoding="utf-8")
    compile_program([source], tmp_path / "probe", ops_dirs=[ROOT / "generated" / specs[0].operator.dir])
    registry = json.loads(subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, check=True).stdout)
    for spec in specs:  # every operator of the file: its own OpDef, kernel file named by its stem
        if spec.kernel.runs is not None:  # it runs another operator's kernel: no OpDef of its own
            assert spec.operator.type not in registry
            continue
        registered = registry[spec.operator.type]
        opdef = opdef_plan(spec)  # the graph interface as the plan states it, in the registered OpDef
        for key, ios in (("inputs", opdef.inputs), ("outputs", opdef.outputs)):
            assert [(p["name"], p["param_type"]) for p in registered[key]] == [(i.name, i.param_type) for i in ios]
        attrs = [(a["name"], a["attr_type"], a["kind"]) for a in registered["attrs"]]
        assert attrs == [(a.name, a.attr_type, a.kind) for a in opdef.attrs]
        configs = registered["aicore_configs"]
        assert sorted(configs) == sorted(kernel_socs(spec))  # the supported SoCs the kernel runs on
        for config in configs.values():
            cfg = config["cfg"]
            assert cfg["opFile.value"] == spec.operator.file_stem
            assert cfg["dynamicFormat.flag"] == "false" and cfg["needCheckSupport.flag"] == "false"
            assert cfg["precision_reduce.flag"] == "true" and cfg["dynamicCompileStatic.flag"] == "true"
