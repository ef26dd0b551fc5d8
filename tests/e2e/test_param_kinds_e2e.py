"""int64, double, string (char*), nullable-scalar and keyword-only parameters end to end, on the fixture specs of
tests/fixtures/param_kinds: each is built into a fresh tree, its generated C++ unit tests and golden tests run on
the twin, and its binding is compared with torch and driven through the error rows (nullptr string -> 161001,
a value outside `values` -> 161002)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main
from opgen.twin.compiler import Plan, compile_program, compiler, parse_args
from opgen.twin.compiler import main as cc_main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "param_kinds"
SOC = "ascend910b"
OPS = ("gelu_v2", "gelu_grad_v2", "swish", "add_relu", "squared_relu", "scale_int", "situ_act", "gelu_opt")

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("param_kinds") / "generated"
    assert main(["check", str(FIXTURES), "-q"]) == 0
    assert main(["build", str(FIXTURES), "-o", str(out), "-q"]) == 0
    return out


def _python(tree: Path, source: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "python"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)], capture_output=True, text=True, cwd=cwd, env=env, timeout=900
    )


@pytest.mark.parametrize("op", OPS)
def test_generated_golden_tests_pass(tree, op):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "python"), str(ROOT)])}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tree / op)],
        capture_output=True,
        text=True,
        cwd=tree.parent,
        env=env,
        timeout=1800,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    passed = re.search(r"(\d+) passed", ran.stdout.splitlines()[-1])
    assert passed and int(passed.group(1)) > 0


@pytest.mark.parametrize("op", OPS)
def test_generated_cpp_unit_tests_pass(tree, op, tmp_path):
    package = tree / op
    sources = sorted((package / "tests" / "ut").rglob("*.cpp"))
    assert sources
    flags = Plan(parse_args(["--print-flags", "--soc", SOC, "--ops-dir", str(package)])).user_flags()
    for source in sources:
        obj = tmp_path / (source.stem + ".o")
        compiled = subprocess.run(
            [compiler(), *flags, "-Wall", "-Wextra", "-Werror", "-c", str(source), "-o", str(obj)],
            capture_output=True,
            text=True,
        )
        assert compiled.returncode == 0, compiled.stderr[-4000:]
        program = tmp_path / source.stem
        compile_program([obj], program, soc=SOC, ops_dirs=[package])
        ran = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        summary = re.search(r"^(\d+) passed, (\d+) failed$", ran.stdout, re.M)
        assert summary and int(summary.group(1)) > 0 and summary.group(2) == "0", ran.stdout[-2000:]


def test_bindings_match_torch_and_reject_bad_values(tree, tmp_path):
    torch = pytest.importorskip("torch")
    del torch
    ran = _python(
        tree,
        """
        import numpy as np
        import torch
        import opgen_ops

        x = np.linspace(-6, 6, 2049).astype(np.float32)
        t = torch.from_numpy(x)
        # int64 approximate: 0 is the erf form, 1 the tanh form (aten's approximate='none' / 'tanh')
        for value, name in ((0, "none"), (1, "tanh")):
            want = torch.nn.functional.gelu(t, approximate=name).numpy()
            np.testing.assert_allclose(opgen_ops.gelu_v2(x, value), want, rtol=1e-4, atol=1e-5)
        # the string parameter is keyword-only, as in aten's gelu_backward
        g = np.cos(x).astype(np.float32)
        for name in ("none", "tanh"):
            want = torch.ops.aten.gelu_backward(torch.from_numpy(g), t, approximate=name).numpy()
            got = opgen_ops.gelu_backward(g, x, approximate=name)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(
            opgen_ops.gelu_backward(g, x), torch.ops.aten.gelu_backward(torch.from_numpy(g), t).numpy(),
            rtol=1e-4, atol=1e-5,
        )
        # the optional scalar: None (a null pointer) stands for beta = 1, i.e. silu
        np.testing.assert_allclose(opgen_ops.swish(x), torch.nn.functional.silu(t).numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(opgen_ops.swish(x, None), opgen_ops.swish(x, 1.0), rtol=0, atol=0)
        want = (t * torch.sigmoid(1.5 * t)).numpy()
        np.testing.assert_allclose(opgen_ops.swish(x, 1.5), want, rtol=1e-4, atol=1e-5)

        def status(call):
            try:
                call()
            except opgen_ops.AclnnError as error:
                return error.status
            return 0

        print("nullptr-string", status(lambda: opgen_ops.gelu_backward(g, x, approximate=None)))
        print("bad-string", status(lambda: opgen_ops.gelu_backward(g, x, approximate="fast")))
        print("bad-int64", status(lambda: opgen_ops.gelu_v2(x, 2)))
        for bad in (lambda: opgen_ops.gelu_v2(x, 1.0), lambda: opgen_ops.gelu_v2(x, True),
                    lambda: opgen_ops.gelu_backward(g, x, approximate=b"tanh"),
                    lambda: opgen_ops.gelu_backward(g, x, "tanh")):
            try:
                bad()
            except TypeError:
                print("type-error")
        """,
        tmp_path,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    lines = ran.stdout.split("\n")
    assert "nullptr-string 161001" in lines
    assert "bad-string 161002" in lines
    assert "bad-int64 161002" in lines
    assert lines.count("type-error") == 4


def test_double_binding_matches_torch_and_takes_floats_only(tree, tmp_path):
    """A double reaches the kernel as the OpDef's Float attribute: the binding's float gives the torch result
    computed with that value, the defaults are the spec's, and an int, a bool or text is refused (TypeError)."""
    pytest.importorskip("torch")
    ran = _python(
        tree,
        """
        import numpy as np
        import torch
        import opgen_ops

        x = np.linspace(-6, 6, 2049).astype(np.float32)
        t = torch.from_numpy(x)

        def want(beta, linear_beta):
            return (beta * torch.tanh(t / beta) * torch.sigmoid(t) + linear_beta * t).numpy()

        for beta, linear_beta in ((1.0, 0.0), (2.5, -1.25), (-0.75, 3.0)):
            got = opgen_ops.situ_act(x, beta, linear_beta)
            np.testing.assert_allclose(got, want(beta, linear_beta), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(opgen_ops.situ_act(x), want(1.0, 0.0), rtol=1e-4, atol=1e-5)
        got = opgen_ops.situ_act(x, np.float64(2.5), linear_beta=np.float32(0.5))
        np.testing.assert_allclose(got, want(2.5, 0.5), rtol=1e-4, atol=1e-5)
        for bad in (2, True, "2.0", None):
            try:
                opgen_ops.situ_act(x, bad)
            except TypeError:
                print("type-error")
        """,
        tmp_path,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert ran.stdout.split("\n").count("type-error") == 4


def test_optional_string_binding_takes_none_as_its_default(tree, tmp_path):
    """aclnnGeluMul's approximateOptional: None passes a null pointer, which means "none" (no 161001); a value
    outside none/tanh is still refused (161002)."""
    pytest.importorskip("torch")
    ran = _python(
        tree,
        """
        import numpy as np
        import torch
        import opgen_ops

        x = np.linspace(-6, 6, 2049).astype(np.float32)
        t = torch.from_numpy(x)
        erf_form = torch.nn.functional.gelu(t, approximate="none").numpy()
        tanh_form = torch.nn.functional.gelu(t, approximate="tanh").numpy()
        np.testing.assert_allclose(opgen_ops.gelu_opt(x, approximate=None), erf_form, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(opgen_ops.gelu_opt(x), erf_form, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(opgen_ops.gelu_opt(x, approximate="tanh"), tanh_form, rtol=1e-4, atol=1e-5)
        assert not np.allclose(erf_form, tanh_form, rtol=0, atol=1e-6)
        try:
            opgen_ops.gelu_opt(x, approximate="fast")
        except opgen_ops.AclnnError as error:
            print("bad-string", error.status)
        """,
        tmp_path,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "bad-string 161002" in ran.stdout.split("\n")


@pytest.mark.parametrize("op", OPS)
def test_examples_print_the_numbers_their_comments_promise(tree, op, tmp_path):
    example = next((tree / op / "examples").glob("test_aclnn_*.cpp"))
    binary = tmp_path / op
    assert cc_main([str(example), "-o", str(binary), "--ops-dir", str(tree), "-Wall", "-Wextra", "-Werror"]) == 0
    proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    promised = re.findall(r"//\s+(result\[\d+\] is: -?[\d.]+)", example.read_text(encoding="utf-8"))
    printed = [line.strip() for line in proc.stdout.splitlines() if line.startswith("result[")]
    assert promised and printed == promised


def test_in_place_tensor_declared_const_still_compiles(tmp_path):
    """`api.inplace.ctype: const aclTensor*` (InplaceErfinv-style headers): the in-place API forwards its tensor
    as the main API's non-const output, warning-free."""
    import yaml

    data = yaml.safe_load((ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8"))
    data["api"]["inplace"]["ctype"] = "const aclTensor*"
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "leaky_relu.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    out = tmp_path / "generated"
    assert main(["build", str(specs), "-o", str(out), "-q"]) == 0
    package = out / "leaky_relu"
    flags = Plan(parse_args(["--print-flags", "--soc", SOC, "--ops-dir", str(package)])).user_flags()
    sources = [
        package / "op_api" / "aclnn_leaky_relu.cpp",
        *sorted((package / "tests" / "ut" / "op_api").glob("*.cpp")),
    ]
    for source in sources:
        compiled = subprocess.run(
            [compiler(), *flags, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", str(source)],
            capture_output=True,
            text=True,
        )
        assert compiled.returncode == 0, compiled.stderr[-3000:]
    assert "const aclTensor* selfRef" in (package / "op_api" / "aclnn_leaky_relu.h").read_text(encoding="utf-8")
