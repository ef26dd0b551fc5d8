"""One kernel computing two outputs, on the twin: aclnnLogSigmoidForward made to write buffer = exp(-|self|) as
well (what aten's log_sigmoid_forward returns on CPU), built from an edited copy of specs/log_sigmoid.yaml into a
temporary tree. Its generated artifacts carry every output (kernel queues and GM arguments, OpDef outputs, shape
inference, the L0 op returning a tuple, a cast and copy per output in the API), and both outputs, run through the
generated binding, match torch."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.spec.test_spec_several_outputs import BUFFER_EXAMPLE, BUFFER_WRITTEN, SECOND

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.cxx]


def _spec_text(buffer: str = "exp(-abs(x))") -> str:
    """The second document alone, as its own directory, with buffer written."""
    text = SECOND.removeprefix("\n---\n")
    text = text.replace("  dir: log_sigmoid\n  stem: log_sigmoid_forward\n", "  dir: log_sigmoid_forward\n", 1)
    text = text.replace("  header: aclnn_logsigmoid.h\n", "", 1)
    text = text.replace(*BUFFER_WRITTEN, 1).replace(*BUFFER_EXAMPLE, 1)
    text = text.replace("  runs: {type: LogSigmoid}\n", "", 1)  # writing buffer too, it needs a kernel of its own
    return text.replace("    out: -softplus(-x)", f"    out: -softplus(-x)\n    buffer: {buffer}", 1)


def _build(root: Path, text: str) -> Path:
    spec = root / "log_sigmoid_forward.yaml"
    spec.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "opgen.cli", "build", str(spec), "-o", str(root / "out"), "-q", "-j", "1"]
    subprocess.run(command, check=True, env=env, cwd=root)
    return root / "out"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("two_outputs"), _spec_text())


def _golden(out: Path) -> subprocess.CompletedProcess[str]:
    """The package's generated golden test, run with its own binding (the tree's python/)."""
    env = {**os.environ, "PYTHONPATH": f"{out / 'python'}{os.pathsep}{ROOT}"}
    test = out / "log_sigmoid_forward" / "tests" / "test_golden_log_sigmoid_forward.py"
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(test)]
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=out)


def test_every_artifact_carries_both_outputs(built: Path) -> None:
    package = built / "log_sigmoid_forward"
    kernel = (package / "op_kernel" / "log_sigmoid_forward.cpp").read_text(encoding="utf-8")
    # the entry takes both outputs after the input (laid out by clang-format: whitespace may break anywhere)
    assert re.search(r"void log_sigmoid_forward\(GM_ADDR x,\s+GM_ADDR y,\s+GM_ADDR buffer,\s+GM_ADDR workspace", kernel)
    assert kernel.count("TQue<TPosition::VECOUT, BUFFER_NUM>") == 2
    assert "DataCopyPad(outGm_[offset], outLocal, params);" in kernel
    assert "DataCopyPad(bufferGm_[offset], bufferLocal, params);" in kernel
    definition = (package / "op_host" / "log_sigmoid_forward_def.cpp").read_text(encoding="utf-8")
    assert 'this->Output("y")' in definition and 'this->Output("buffer")' in definition
    infershape = (package / "op_host" / "log_sigmoid_forward_infershape.cpp").read_text(encoding="utf-8")
    assert "context->GetOutputShape(1)" in infershape
    l0 = (package / "op_api" / "log_sigmoid_forward.h").read_text(encoding="utf-8")
    assert "const std::tuple<aclTensor*, aclTensor*> LogSigmoidForward(const aclTensor* self," in l0
    api = (package / "op_api" / "aclnn_log_sigmoid_forward.cpp").read_text(encoding="utf-8")
    assert "std::get<0>(l0Results)" in api and "std::get<1>(l0Results)" in api
    assert "l0op::ViewCopy(bufferCast, buffer," in api


_RUN = """
import json, sys
import ml_dtypes, numpy as np, torch
import opgen_ops

rng = np.random.default_rng(5)
special = [0.0, -0.0, np.inf, -np.inf, np.nan, -100.0, 100.0, -20.0, 20.0]
x32 = np.concatenate([special, rng.uniform(-20, 20, 3000)]).astype(np.float32)
report = {}
for name, dtype, tol in (("float32", np.float32, 1e-4), ("float16", np.float16, 1e-3),
                         ("bfloat16", ml_dtypes.bfloat16, 4e-3)):
    x = x32.astype(dtype)
    output, buffer = opgen_ops.log_sigmoid_forward(x)
    want_output, want_buffer = torch.ops.aten.log_sigmoid_forward(torch.from_numpy(x.astype(np.float32)))
    row = {}
    for label, got, want in (("output", output, want_output), ("buffer", buffer, want_buffer)):
        got = got.astype(np.float64)
        want = want.numpy().astype(dtype).astype(np.float64)
        same_nan = bool(np.array_equal(np.isnan(got), np.isnan(want)))
        finite = ~np.isnan(want)
        close = np.isclose(got[finite], want[finite], rtol=tol, atol=tol)
        row[label] = {"same_nan": same_nan, "bad": float(np.mean(~close))}
    report[name] = row
print(json.dumps(report))
"""


def test_both_outputs_match_torch_on_the_twin(built: Path) -> None:
    pytest.importorskip("torch")
    env = {**os.environ, "PYTHONPATH": f"{built / 'python'}{os.pathsep}{ROOT}"}
    result = subprocess.run(
        [sys.executable, "-c", _RUN], check=True, env=env, capture_output=True, text=True, cwd=built
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    tolerance = {"float32": 1e-4, "float16": 1e-3, "bfloat16": 4e-3}  # the spec's max_fail_ratio per dtype
    for dtype, row in report.items():
        for label, facts in row.items():
            assert facts["same_nan"], (dtype, label)
            assert facts["bad"] <= tolerance[dtype], (dtype, label, facts)


def test_the_generated_golden_test_checks_every_computed_output(built: Path) -> None:
    pytest.importorskip("torch")
    golden = (built / "log_sigmoid_forward" / "tests" / "test_golden_log_sigmoid_forward.py").read_text("utf-8")
    assert 'COMPUTED = [\n    ("out", 0),\n    ("buffer", 1),\n]' in golden
    result = _golden(built)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_the_golden_test_fails_when_the_second_output_differs_from_torch(tmp_path: Path) -> None:
    """buffer = 1.01 exp(-|x|): the kernel computes what the spec says, aten does not."""
    pytest.importorskip("torch")
    result = _golden(_build(tmp_path, _spec_text("1.01 * exp(-abs(x))")))
    assert result.returncode != 0
    assert "buffer vs torch.ops.aten.log_sigmoid_forward" in result.stdout
    assert "out vs torch" not in result.stdout


def test_the_docs_state_every_output_formula_and_its_precision(built: Path) -> None:
    doc = (built / "log_sigmoid_forward" / "docs" / "aclnnLogSigmoidForward.md").read_text(encoding="utf-8")
    formulas = doc[doc.index("计算公式") : doc.index("## 函数原型")]
    assert "out = " in formulas and "buffer = exp(-\\left|x\\right|)" in formulas
    precision = doc[doc.index("## 精度") : doc.index("## 调用示例")]
    assert "| 输出 | 数据类型 |" in precision
    for output in ("out", "buffer"):
        rows = [line for line in precision.splitlines() if line.startswith(f"| {output} | ")]
        assert [row.split(" | ")[1] for row in rows] == ["FLOAT", "FLOAT16", "BFLOAT16"]


@pytest.mark.parametrize("reference", ["numpy", "torch"])
def test_gen_data_writes_a_golden_per_computed_output(built: Path, tmp_path: Path, reference: str) -> None:
    if reference == "torch":
        pytest.importorskip("torch")
    script = built / "log_sigmoid_forward" / "tests" / "golden" / "gen_data.py"
    command = [sys.executable, str(script), "--dtype", "FLOAT", "--shape", "4,33", "--out-dir", str(tmp_path)]
    subprocess.run([*command, "--reference", reference], check=True, capture_output=True, text=True)
    x = np.fromfile(tmp_path / "input_self.bin", np.float32).astype(np.float64)
    output = np.fromfile(tmp_path / "golden_output.bin", np.float32).astype(np.float64)
    buffer = np.fromfile(tmp_path / "golden_buffer.bin", np.float32).astype(np.float64)
    assert x.size == output.size == buffer.size == 4 * 33
    with np.errstate(all="ignore"):  # independent formulas: log(sigmoid(x)) and exp(-|x|)
        want_output, want_buffer = -np.logaddexp(0.0, -x), np.exp(-np.abs(x))
    np.testing.assert_allclose(output, want_output, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(buffer, want_buffer, rtol=1e-6, atol=1e-7)


def test_the_torch_npu_adapter_allocates_and_checks_every_computed_output(built: Path, tmp_path: Path) -> None:
    stubs = pytest.importorskip("tests.torch_npu.test_torch_npu_emitter")
    if stubs.CXX is None:
        pytest.skip("g++ not found")
    adapter = built / "torch_npu" / "opapi" / "LogSigmoidForwardKernelNpuOpApi.cpp"
    text = adapter.read_text(encoding="utf-8")
    functional, out_form = text.split("log_sigmoid_forward_out(", 1)
    for name in ("output", "buffer"):
        assert f"at::Tensor {name} = npu_preparation::apply_tensor_without_format(self);" in functional
        assert f"npu_preparation::check_tensor({{self}}, {name}, {name}.scalar_type(), self.sizes());" in out_form
    source = tmp_path / adapter.name
    source.write_text(text, encoding="utf-8")
    stubs.compile_cpp([source], stubs.write_declarations(tmp_path), stubs.STRICT)


def test_the_generated_op_api_test_checks_every_computed_output(built: Path, tmp_path: Path) -> None:
    source = built / "log_sigmoid_forward" / "tests" / "ut" / "op_api" / "test_aclnn_log_sigmoid_forward.cpp"
    text = source.read_text(encoding="utf-8")
    # one expectation of buffer per success case (one per dtype), from its own formula
    assert text.count("const std::vector<double> expected_buffer = {") == 3
    assert text.count("CountMismatches(buffer.Values(), expected_buffer,") == 3
    program = tmp_path / "op_api_test"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "opgen.cli", "cc", str(source), "-o", str(program), "--ops-dir", str(built)]
    subprocess.run(command, check=True, env=env, capture_output=True, text=True)
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "7 passed, 0 failed" in result.stdout, result.stdout[-2000:]
