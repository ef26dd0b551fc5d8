"""Generator defects spec writers hit in the ops-nn activation family (issue 11), each reproduced end to end:
the spec is built into a temporary folder, compiled with `opgen cc` and run on the twin.

Before: an operator whose directory is not snake_case(OpType) (ops-nn: softshrink/ holds OpType SoftShrink)
generated a kernel named after the directory while the twin launched snake_case(OpType): 561003 at launch.
aclnnSeluBackward's parameter `result` was refused: the generated op_api declared a local of that name.
An in-place variant keeping the name of the tensor it replaces (aclnnInplaceHardswish(self)) was refused.
A `promotable` row naming scalars (aclnnThreshold: self, threshold and value promote together) was refused.
Two `broadcast` rows in one spec declared the same C++ locals twice: the op_api did not compile.
aclnnHeaviside's parameter `values` was refused: the golden data script used that Python name for a local.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opgen.cli import main
from opgen.twin.compiler import compile_program
from opgen.twin.compiler import main as cc_main

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


def build_and_run_example(tmp_path: Path, spec_name: str, text: str) -> tuple[Path, str]:
    """Build one spec into tmp_path/out, run its calling example; returns the package folder and its output."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / spec_name).write_text(text, encoding="utf-8")
    forward = re.search(r"derivative_of: \{forward: (\w+)", text)  # the spec its derivative check reads
    if forward:
        shutil.copy(ROOT / "specs" / f"{forward[1]}.yaml", specs)
    out = tmp_path / "out"
    assert main(["build", str(specs), "-o", str(out), "-q"]) == 0
    op = Path(spec_name).stem
    example = next((out / op / "examples").glob("test_aclnn_*.cpp"))
    binary = tmp_path / "example"
    assert cc_main([str(example), "-o", str(binary), "--ops-dir", str(out)]) == 0
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    promised = re.findall(r"//\s+(result\[\d+\] is: -?[\d.]+)", example.read_text(encoding="utf-8"))
    printed = [line.strip() for line in proc.stdout.splitlines() if line.startswith("result[")]
    assert promised and printed == promised
    return out / op, proc.stdout


def run_unit_tests(tmp_path: Path, package: Path) -> None:
    """Compile and run the package's op_api unit tests (every error row and dtype case) on the twin."""
    for source in sorted((package / "tests" / "ut" / "op_api").glob("test_aclnn_*.cpp")):
        program = tmp_path / source.stem
        compile_program([source], program, ops_dirs=[package])
        proc = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert re.search(r"^\d+ passed, 0 failed$", proc.stdout, re.M), proc.stdout[-3000:]


def test_a_directory_that_is_not_the_snake_case_optype_launches(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
    # an OpType with inner capitals and digits, as ops-nn's SoftplusV2Grad or ThresholdGradV2D
    text = text.replace("  type: LeakyRelu\n", "  type: LeakyReluV2Grad\n", 1)  # snake_case: leaky_relu_v2_grad
    package, _ = build_and_run_example(tmp_path, "leaky_relu.yaml", text)
    opdef = (package / "op_host" / "leaky_relu_def.cpp").read_text(encoding="utf-8")
    kernel = (package / "op_kernel" / "leaky_relu.cpp").read_text(encoding="utf-8")
    # ops-nn: the kernel entry, its file and the OpDef's opFile.value follow the directory
    assert "class LeakyReluV2Grad : public OpDef" in opdef
    # one config (the SoCs take the same dtypes), added for each supported SoC
    assert opdef.count('.ExtendCfgInfo("opFile.value", "leaky_relu")') == 1
    assert opdef.count("this->AICore().AddConfig(") == 3
    assert re.search(r"__aicore__ void leaky_relu\(", kernel)


def test_a_parameter_named_result_generates_working_code(tmp_path: Path) -> None:
    # aclnnSeluBackward(gradOutput, result, gradInput): the forward result is a parameter named `result`
    text = re.sub(r"\bselfOrResult\b", "result", (ROOT / "specs" / "elu_grad_v2.yaml").read_text(encoding="utf-8"))
    package, _ = build_and_run_example(tmp_path, "elu_grad_v2.yaml", text)
    api = (package / "op_api" / "aclnn_elu_backward.cpp").read_text(encoding="utf-8")
    assert "const aclTensor* result," in api
    run_unit_tests(tmp_path, package)


def test_an_inplace_variant_may_keep_the_name_it_replaces(tmp_path: Path) -> None:
    # aclnnInplaceHardswish(self, ...) and aclnnInplaceHardsigmoid(self, ...) keep `self`
    text = (
        (ROOT / "specs" / "leaky_relu.yaml")
        .read_text(encoding="utf-8")
        .replace("    param: selfRef\n", "    param: self\n")
    )
    package, _ = build_and_run_example(tmp_path, "leaky_relu.yaml", text)
    api = (package / "op_api" / "aclnn_leaky_relu.h").read_text(encoding="utf-8")
    assert re.search(r"aclnnInplaceLeakyReluGetWorkspaceSize\(\s*aclTensor\* self,", api), api
    run_unit_tests(tmp_path, package)
    probe = (
        "import numpy as np, opgen_ops\n"
        "x = np.array([-2.0, 0.5, 3.0], np.float32)\n"
        "assert opgen_ops.leaky_relu_(x, 0.5) is x\n"
        "print(x.tolist())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "out" / "python"), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[-1.0, 0.5, 3.0]"


def test_a_promotable_row_may_name_scalars(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "elu_grad_v2.yaml").read_text(encoding="utf-8")
    anchor = "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {scalars_castable:"
    row = (
        "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {promotable: [alpha, scale, gradOutput]}\n"
        "    message: the dtypes of alpha, scale and gradOutput cannot be promoted.\n"
        "    doc: alpha、scale与gradOutput的数据类型无法推导。\n"
    )
    assert anchor in text
    package, _ = build_and_run_example(tmp_path, "elu_grad_v2.yaml", text.replace(anchor, row + anchor, 1))
    ut = (package / "tests" / "ut" / "op_api" / "test_aclnn_elu_backward.cpp").read_text(encoding="utf-8")
    case = ut[ut.index("row4_promotable") :]
    case = case[: case.index("\n}\n")]
    # a float tensor promotes with every dtype: the failing case retypes two scalars (int32 with uint16)
    assert "UtTensor gradOutput({2, 3}, ACL_FLOAT);" in case and "ACL_UINT16" in case
    assert "the dtypes of alpha, scale and gradOutput cannot be promoted." in ut
    run_unit_tests(tmp_path, package)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "out" / "python"), str(ROOT)]))
    golden = package / "tests" / "test_golden_elu_grad_v2.py"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(golden), "-k", "error_row"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "row4_promotable" in golden.read_text(encoding="utf-8")


def test_two_broadcast_rows_compile_and_each_trips_alone(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "leaky_relu_grad.yaml").read_text(encoding="utf-8")
    anchor = "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {broadcast: [gradOutput, self, out]}"
    row = (
        "  - status: ACLNN_ERR_PARAM_INVALID\n    code: 161002\n    check: {broadcast: [gradOutput, self]}\n"
        "    message: gradOutput and self cannot broadcast.\n"
        "    doc: gradOutput和self的shape无法广播。\n"
    )
    assert anchor in text
    package, _ = build_and_run_example(tmp_path, "leaky_relu_grad.yaml", text.replace(anchor, row + anchor, 1))
    ut = (package / "tests" / "ut" / "op_api" / "test_aclnn_leaky_relu_backward.cpp").read_text(encoding="utf-8")
    assert "row3_broadcast)" in ut and "row4_broadcast)" in ut  # a case per row, each tripping its row alone
    run_unit_tests(tmp_path, package)


def test_a_tensor_named_values_generates_working_python(tmp_path: Path) -> None:
    # aclnnHeaviside(input, values, out); aten heaviside(self, values)
    text = re.sub(r"\bself\b", "values", (ROOT / "specs" / "leaky_relu_grad.yaml").read_text(encoding="utf-8"))
    package, _ = build_and_run_example(tmp_path, "leaky_relu_grad.yaml", text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "out" / "python"), str(ROOT)]))
    gen_data = package / "tests" / "golden" / "gen_data.py"
    for flags in ([], ["--self-is-result", "true", "--negative-slope", "-0.5"]):
        proc = subprocess.run(
            [sys.executable, str(gen_data), "--reference", "numpy", "--out-dir", str(tmp_path / "bins"), *flags],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert (proc.returncode == 0) == (not flags), proc.stderr[-2000:]
    assert (tmp_path / "bins" / "input_values.bin").is_file()
    golden = package / "tests" / "test_golden_leaky_relu_grad.py"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(golden), "-k", "FLOAT]"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0 and " passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
