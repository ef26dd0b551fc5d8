"""`split.swap_when` end to end, on tests/fixtures/half_split/glu_swap.yaml (GLU's a * sigmoid(b) with a bool
swapHalves: when it holds, a is the second half of each row and b the first, as aclnnGeGluV3 / aclnnSituGlu's
activateLeft choose the gate). The kernel learns it from the tiling data (swapHalves), so both values run one
tiling key: the generated golden tests (swapHalves false and true) pass on the twin, the binding equals torch's
F.glu of the halves in the order swapHalves gives for each (x, 2, ny) shape class, and the twin's trace shows each
element moved once (GM bytes / ideal = 1.00) either way. Its backward (glu_swap_grad.yaml) writes its full-size
gradient per half, each half where the split tensor's half of that name lies: the AI Core kernel (FLOAT) and the
AICPU kernel (DOUBLE) both equal torch's autograd gradient for either value of the flag, and its generated golden
tests (the joined references) pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "half_split"

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("half_split_swap") / "generated"
    assert main(["check", str(FIXTURES), "-q"]) == 0
    assert main(["build", str(FIXTURES), "-o", str(out), "-q"]) == 0
    return out


def _python(tree: Path, args: list[str], **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "python"), str(ROOT)]), **env}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=tree.parent, env=env, timeout=1800
    )


def test_the_kernel_reads_the_halves_swap_when_gives(tree: Path) -> None:
    kernel = (tree / "glu_swap" / "op_kernel" / "glu_swap.cpp").read_text(encoding="utf-8")
    tiling = (tree / "glu_swap" / "op_host" / "glu_swap_tiling.cpp").read_text(encoding="utf-8")
    # one tiling key per dtype: the swap is data, not a kernel variant
    assert len(re.findall(r"TILING_KEY_IS\(", kernel)) == 3
    assert "tiling->swapHalves = *swapHalves ? 1 : 0;" in tiling
    assert re.search(r"CopyRowsIn\(aLocal, selfGm_, 2 \* ny_, halfBase_\[0\]", kernel)
    assert re.search(r"CopyRowsIn\(bLocal, selfGm_, 2 \* ny_, halfBase_\[1\]", kernel)


def test_generated_golden_tests_pass_on_the_twin(tree: Path) -> None:
    ran = _python(tree, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tree / "glu_swap")])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    last = ran.stdout.splitlines()[-1]
    passed = re.search(r"(\d+) passed", last)
    assert passed and int(passed.group(1)) >= 10 and "skipped" not in last, ran.stdout
    golden = (tree / "glu_swap" / "tests" / "test_golden_glu_swap.py").read_text(encoding="utf-8")
    assert '"swap_halves": [False, True]' in golden


def test_each_shape_class_matches_torch_and_moves_each_element_once(tree: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    trace = tmp_path / "trace.jsonl"
    source = f"""
        import numpy as np
        import torch
        import opgen_ops
        from opgen.twin.trace import read_trace

        TRACE = {str(trace)!r}
        # (a half's shape, dim) as tests/e2e/test_half_split_e2e.py's classes: ny = 1, small ny, a half-row not a
        # whole number of 32-byte blocks, odd rows with a non-last dim, a negative leading dim, a row past the UB
        # tile, more rows than one DataCopyPad moves
        CLASSES = [((1001, 1), -1), ((9, 40), -1), ((7, 13), 1), ((5, 3, 7), 1), ((3, 5, 8), -3),
                   ((3, 20000), -1), ((9000, 2), -1)]
        checked = 0
        for half, dim in CLASSES:
            axis = dim % len(half)
            full = tuple(s * 2 if i == axis else s for i, s in enumerate(half))
            x = np.random.default_rng(len(full) + checked).uniform(-6, 6, full).astype(np.float32)
            for swap in (False, True):
                open(TRACE, "w").close()
                got = opgen_ops.glu_swap(x, dim, swap)
                first, second = torch.from_numpy(x).double().chunk(2, dim=dim)
                gate_input = torch.cat([second, first] if swap else [first, second], dim=dim)
                want = torch.nn.functional.glu(gate_input, dim=dim).float().numpy()
                np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=f"{{half}} {{dim}} {{swap}}")
                # the other order differs: the swap is not a no-op on these values
                assert not np.allclose(got, opgen_ops.glu_swap(x, dim, not swap))
                (launch,) = [t for t in read_trace(TRACE) if t.kernel == "glu_swap"][:1]
                totals = launch.totals()
                assert (totals.gm_to_ub_bytes, totals.ub_to_gm_bytes) == (x.nbytes, got.nbytes), (half, dim, swap)
                checked += 1
        print("checked", checked)
    """
    ran = _python(tree, ["-c", textwrap.dedent(source)], OPGEN_TWIN_TRACE=str(trace))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "checked 14" in ran.stdout.splitlines()


def test_the_swapped_backwards_generated_golden_tests_pass_on_the_twin(tree: Path) -> None:
    ran = _python(tree, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tree / "glu_swap_grad")])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    last = ran.stdout.splitlines()[-1]
    passed = re.search(r"(\d+) passed", last)
    assert passed and int(passed.group(1)) >= 10 and "skipped" not in last, ran.stdout


def test_the_kernel_and_the_aicpu_write_each_gradient_half_where_torch_puts_it(tree: Path, tmp_path: Path) -> None:
    """Before: the AICPU loop wrote the halves unswapped (DOUBLE's gradients of a and b traded places when the flag
    held) and the references joined them unswapped (the generated golden tests failed the AI Core kernel)."""
    pytest.importorskip("torch")
    trace = tmp_path / "trace.jsonl"
    source = f"""
        import numpy as np
        import torch
        import opgen_ops
        from opgen.twin.trace import read_trace

        TRACE = {str(trace)!r}
        CLASSES = [((1001, 1), -1), ((9, 40), -1), ((7, 13), 1), ((3, 5, 8), -3), ((3, 20000), -1)]
        checked = 0
        for half, dim in CLASSES:
            axis = dim % len(half)
            full = tuple(s * 2 if i == axis else s for i, s in enumerate(half))
            rng = np.random.default_rng(len(full) + checked)
            x, grad = rng.uniform(-6, 6, full), rng.uniform(-2, 2, half)
            for swap in (False, True):
                leaf = torch.from_numpy(x).requires_grad_()
                first, second = leaf.chunk(2, dim=dim)
                ordered = torch.cat([second, first] if swap else [first, second], dim=dim)
                torch.nn.functional.glu(ordered, dim=dim).backward(torch.from_numpy(grad))
                want = leaf.grad.numpy()
                for dtype, rtol in ((np.float32, 2e-6), (np.float64, 1e-12)):  # AI Core, AICPU
                    open(TRACE, "w").close()
                    got = opgen_ops.glu_swap_grad(grad.astype(dtype), x.astype(dtype), dim, swap)
                    assert got.dtype == dtype
                    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, err_msg=f"{{half}} {{dim}} {{swap}}")
                    launches = [t for t in read_trace(TRACE) if t.kernel == "glu_swap_grad"]
                    if dtype == np.float32:  # each element moved once
                        totals = launches[0].totals()
                        moved = (totals.gm_to_ub_bytes, totals.ub_to_gm_bytes)
                        assert moved == (x.nbytes // 2 + grad.nbytes // 2, got.nbytes), (half, dim, swap)
                        # ny = 1: the gradient's halves interleaved by Gather, each where swap puts it
                        assert (totals.calls("Gather") > 0) == (half[axis:] == (1,)), (half, dim, swap)
                    else:
                        assert not launches  # DOUBLE runs on the AICPU kernel
                    checked += 1
        print("checked", checked)
    """
    ran = _python(tree, ["-c", textwrap.dedent(source)], OPGEN_TWIN_TRACE=str(trace))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "checked 20" in ran.stdout.splitlines()
