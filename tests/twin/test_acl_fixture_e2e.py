"""End to end through the fixture operator package (tests/twin/fixtures/add_scalar_demo, ops-nn
layout): its calling example and a driver built with `opgen cc --ops-dir tests/twin/fixtures`, checked
against NumPy for every dtype route, non-contiguous input/output, empty and 0-d tensors, and each
parameter check's status code."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opgen.twin.compiler import compile_program

FIXTURES = Path(__file__).parent / "fixtures"
PACKAGE = FIXTURES / "add_scalar_demo"

ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_DOUBLE, ACL_COMPLEX64, ACL_BF16 = 0, 1, 2, 3, 11, 16, 27
NUMPY = {
    ACL_FLOAT: np.dtype(np.float32),
    ACL_FLOAT16: np.dtype(np.float16),
    ACL_INT8: np.dtype(np.int8),
    ACL_INT32: np.dtype(np.int32),
    ACL_DOUBLE: np.dtype(np.float64),
    ACL_COMPLEX64: np.dtype(np.complex64),
    ACL_BF16: np.dtype(ml_dtypes.bfloat16),
}
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_INNER = 561000


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fixture_e2e")
    built = {}
    for name, source in [
        ("example", PACKAGE / "examples" / "test_aclnn_add_scalar_demo.cpp"),
        ("driver", FIXTURES / "programs" / "add_scalar_demo_driver.cpp"),
    ]:
        compile_program([source], root / name, ops_dirs=[FIXTURES])
        built[name] = root / name
    return built


def execute(binary: Path, *args: str, soc: str = "ascend910b") -> subprocess.CompletedProcess:
    env = dict(os.environ, OPGEN_SOC=soc)
    result = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_calling_example_prints_the_expected_values(binaries):
    output = execute(binaries["example"]).stdout
    printed = [float(v) for v in re.findall(r"result\[\d+\] is: (\S+)", output)]
    expected = np.arange(8, dtype=np.float32) * np.float32(1.5) + np.float32(-0.25)
    np.testing.assert_allclose(printed, expected, rtol=0, atol=1e-6)


# --------------------------------------------------------------------------- driver cases


def _csv(values) -> str:
    return ",".join(str(v) for v in values) if len(values) else "-"


def _view(storage: np.ndarray, shape, strides, offset) -> np.ndarray:
    item = storage.dtype.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=shape, strides=[s * item for s in strides], writeable=True
    )


def _contiguous(shape) -> list[int]:
    strides, step = [], 1
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= max(dim, 1)
    return strides


def run_case(
    binaries,
    tmp_path,
    self_storage,
    self_code,
    out_code,
    shape,
    *,
    self_strides=None,
    self_offset=0,
    out_strides=None,
    out_offset=0,
    out_storage=None,
    out_shape=None,
    scale=1.5,
    bias=-0.25,
    scale_code=ACL_FLOAT,
    null=None,
    soc="ascend910b",
):
    """Runs the driver; returns (stdout lines, stderr, out storage array or None)."""
    out_shape = shape if out_shape is None else out_shape
    self_strides = _contiguous(shape) if self_strides is None else self_strides
    out_strides = _contiguous(out_shape) if out_strides is None else out_strides
    if out_storage is None:
        out_storage = int(np.prod(out_shape)) if out_shape else 1
    in_file, out_file = tmp_path / "in.bin", tmp_path / "out.bin"
    np.asarray(self_storage, dtype=NUMPY[self_code]).tofile(in_file)
    args = [
        "run",
        f"self_dtype={self_code}",
        f"out_dtype={out_code}",
        f"shape={_csv(shape)}",
        f"self_strides={_csv(self_strides)}",
        f"self_offset={self_offset}",
        f"self_storage={len(self_storage)}",
        f"out_strides={_csv(out_strides)}",
        f"out_offset={out_offset}",
        f"out_storage={out_storage}",
        f"scale_dtype={scale_code}",
        f"scale={scale!r}",
        f"bias={bias!r}",
        f"in={in_file}",
        f"out={out_file}",
    ]
    if out_shape != shape:
        args.append(f"out_shape={_csv(out_shape)}")
    if null:
        args.append(f"null={null}")
    result = execute(binaries["driver"], *args, soc=soc)
    lines = result.stdout.splitlines()
    out = np.fromfile(out_file, dtype=NUMPY[out_code]) if out_file.exists() else None
    return lines, result.stderr, out


def status_of(lines) -> int:
    return int(next(line for line in lines if line.startswith("get_workspace")).split()[1])


def expected_out(
    self_storage, self_code, out_code, shape, self_strides, self_offset, out_strides, out_offset, out_storage, compute
):
    x = _view(np.asarray(self_storage, dtype=NUMPY[self_code]), shape, self_strides, self_offset)
    result = np.zeros(out_storage, dtype=NUMPY[out_code])
    _view(result, shape, out_strides, out_offset)[...] = compute(x)
    return result


def f32_golden(x, scale, bias):
    return x.astype(np.float32) * np.float32(scale) + np.float32(bias)


@pytest.mark.parametrize(
    "self_code,out_code,shape,route,golden,tolerance",
    [
        (ACL_FLOAT, ACL_FLOAT, [3, 1000], "aicore", lambda x, s, b: f32_golden(x, s, b), 1e-6),
        (ACL_FLOAT, ACL_FLOAT, [20011], "aicore", lambda x, s, b: f32_golden(x, s, b), 1e-6),
        (
            ACL_FLOAT16,
            ACL_FLOAT16,
            [7, 300],
            "aicore",
            lambda x, s, b: (x * np.float16(s)).astype(np.float16) + np.float16(b),
            1e-3,
        ),
        (ACL_BF16, ACL_BF16, [5, 999], "aicore", lambda x, s, b: f32_golden(x, s, b).astype(ml_dtypes.bfloat16), 4e-3),
        (
            ACL_DOUBLE,
            ACL_DOUBLE,
            [40, 50],
            "aicpu",
            lambda x, s, b: x * np.float64(np.float32(s)) + np.float64(np.float32(b)),
            1e-12,
        ),
        (ACL_INT32, ACL_FLOAT, [64], "aicore", lambda x, s, b: f32_golden(x, s, b), 1e-6),
        (
            ACL_FLOAT16,
            ACL_FLOAT,
            [33],
            "aicore",
            lambda x, s, b: ((x * np.float16(s)).astype(np.float16) + np.float16(b)).astype(np.float32),
            1e-3,
        ),
        (ACL_FLOAT, ACL_COMPLEX64, [10], "aicore", lambda x, s, b: f32_golden(x, s, b).astype(np.complex64), 1e-6),
    ],
)
def test_dtype_routes_match_numpy(binaries, tmp_path, self_code, out_code, shape, route, golden, tolerance):
    rng = np.random.default_rng(len(shape) * 1000 + self_code * 10 + out_code)
    count = int(np.prod(shape))
    data = rng.integers(-1000, 1000, count) if NUMPY[self_code].kind == "i" else rng.normal(scale=10.0, size=count)
    data = data.astype(NUMPY[self_code])
    lines, stderr, out = run_case(binaries, tmp_path, data, self_code, out_code, shape, scale=1.5, bias=-0.25)
    assert status_of(lines) == ACLNN_SUCCESS, stderr
    launches = [line for line in lines if line.startswith("launch")]
    assert any(f"AddScalarDemo {route}" in line for line in launches), launches
    assert lines[-1] == "run 0" and "before_run_unchanged 1" in lines
    expected = golden(data.reshape(shape), 1.5, -0.25).reshape(-1)
    np.testing.assert_allclose(
        out.astype(np.complex128 if out.dtype.kind == "c" else np.float64),
        expected.astype(np.complex128 if out.dtype.kind == "c" else np.float64),
        rtol=tolerance,
        atol=tolerance,
    )


def test_multi_core_float_result_is_exact(binaries, tmp_path):
    data = np.random.default_rng(9).normal(size=50_000).astype(np.float32)
    lines, _, out = run_case(binaries, tmp_path, data, ACL_FLOAT, ACL_FLOAT, [50_000], scale=-3.0, bias=0.125)
    block_dim = int(re.search(r"blockDim=(\d+)", "\n".join(lines)).group(1))
    assert block_dim > 1
    np.testing.assert_array_equal(out, data * np.float32(-3.0) + np.float32(0.125))


def test_non_contiguous_input_and_output(binaries, tmp_path):
    storage = np.random.default_rng(11).normal(size=30).astype(np.float32)
    shape, self_strides, self_offset = [4, 6], [1, 4], 3  # transposed view inside 30 elements
    out_strides, out_offset, out_storage = [12, 2], 1, 48  # every other column of a (4, 12) buffer
    lines, stderr, out = run_case(
        binaries,
        tmp_path,
        storage,
        ACL_FLOAT,
        ACL_FLOAT16,
        shape,
        self_strides=self_strides,
        self_offset=self_offset,
        out_strides=out_strides,
        out_offset=out_offset,
        out_storage=out_storage,
        scale=2.0,
        bias=1.0,
    )
    assert status_of(lines) == ACLNN_SUCCESS, stderr
    names = [line.split()[1] for line in lines if line.startswith("launch")]
    assert names == ["Contiguous", "AddScalarDemo", "Cast", "ViewCopy"]
    expected = expected_out(
        storage,
        ACL_FLOAT,
        ACL_FLOAT16,
        shape,
        self_strides,
        self_offset,
        out_strides,
        out_offset,
        out_storage,
        lambda x: f32_golden(x, 2.0, 1.0).astype(np.float16),
    )
    np.testing.assert_array_equal(out, expected)  # untouched elements stay zero


def test_empty_tensor_plans_nothing(binaries, tmp_path):
    lines, stderr, out = run_case(
        binaries, tmp_path, np.zeros(1, np.float32), ACL_FLOAT, ACL_FLOAT, [0, 5], out_storage=1
    )
    assert lines[0] == "get_workspace 0 0", stderr
    assert not [line for line in lines if line.startswith("launch")]
    assert lines[-1] == "run 0"
    np.testing.assert_array_equal(out, np.zeros(1, np.float32))


def test_zero_dim_tensor(binaries, tmp_path):
    lines, stderr, out = run_case(
        binaries, tmp_path, np.array([4.0], np.float64), ACL_DOUBLE, ACL_DOUBLE, [], scale=0.5, bias=3.0
    )
    assert status_of(lines) == ACLNN_SUCCESS and lines[-1] == "run 0", stderr
    assert out.tolist() == [5.0]


@pytest.mark.parametrize("null", ["self", "scale", "bias", "out", "workspace_size", "executor"])
def test_null_arguments_return_nullptr_status(binaries, tmp_path, null):
    lines, stderr, _ = run_case(binaries, tmp_path, np.ones(4, np.float32), ACL_FLOAT, ACL_FLOAT, [4], null=null)
    assert status_of(lines) == ACLNN_ERR_PARAM_NULLPTR
    assert "[ERROR]" in stderr


@pytest.mark.parametrize(
    "case,message",
    [
        ({"self_code": ACL_INT8, "out_code": ACL_FLOAT}, "DT_INT8"),
        ({"self_code": ACL_FLOAT, "out_code": ACL_FLOAT, "scale_code": ACL_COMPLEX64}, "scale dtype DT_COMPLEX64"),
        ({"self_code": ACL_FLOAT, "out_code": ACL_INT32}, "DT_INT32"),
        ({"self_code": ACL_FLOAT, "out_code": ACL_FLOAT, "shape": [1] * 9}, "dimensions"),
        ({"self_code": ACL_FLOAT, "out_code": ACL_FLOAT, "shape": [2, 3], "out_shape": [3, 2]}, "shape"),
        ({"self_code": ACL_BF16, "out_code": ACL_BF16, "soc": "ascend910"}, "DT_BF16"),
    ],
)
def test_invalid_arguments_return_param_invalid(binaries, tmp_path, case, message):
    case = dict(case)
    shape = case.pop("shape", [2, 3])
    self_code, out_code = case.pop("self_code"), case.pop("out_code")
    lines, stderr, _ = run_case(binaries, tmp_path, np.ones(int(np.prod(shape))), self_code, out_code, shape, **case)
    assert status_of(lines) == ACLNN_ERR_PARAM_INVALID
    first_error = next(line for line in stderr.splitlines() if line.startswith("[ERROR]"))
    assert "errno[161002]" in first_error and message in first_error


def test_bf16_accepted_on_a2(binaries, tmp_path):
    data = np.arange(6).astype(ml_dtypes.bfloat16)
    lines, stderr, _ = run_case(binaries, tmp_path, data, ACL_BF16, ACL_BF16, [2, 3], soc="ascend910_93")
    assert status_of(lines) == ACLNN_SUCCESS and lines[-1] == "run 0", stderr


def test_phase_two_misuse(binaries):
    result = execute(binaries["driver"], "phase2")
    values = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert values["null_executor"] == str(ACLNN_ERR_PARAM_NULLPTR)
    assert values["foreign_executor"] == str(ACLNN_ERR_PARAM_INVALID)
    assert values["empty_get_workspace"] == "0 0"
    assert values["empty_run"] == "0"
    assert values["reused_executor"] == str(ACLNN_ERR_PARAM_INVALID)


def test_kernel_check_failure_becomes_inner_error(binaries):
    result = execute(binaries["driver"], "kernel_fail")
    values = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert values["added"] == "0"
    assert values["run"] == str(ACLNN_ERR_INNER)
    assert values["still_alive"] == "1"
    assert "GM_OUT_OF_BOUNDS" in result.stderr and "errno[561000]" in result.stderr
