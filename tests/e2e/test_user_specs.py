"""Eight specs written as a user writes them (tests/fixtures/user_specs: `opgen new`, then the formula and the facts,
with the README, the guide, `opgen check` and `opgen functions` only): tanh, tanh_backward, hardtanh, relu6, softsign,
minGPT's tanh-GELU (NewGelu), and an invented SquarePlus with its backward. Together with the shipped specs they pass
`opgen check` and build into one tree; their generated golden tests pass on the twin, and their bindings match torch
(aten's op where it has one: tanh, tanh_backward, hardtanh, relu6, gelu(approximate='tanh'); softsign as
x / (1 + |x|)) and SquarePlus computed independently in 120 digits (mpmath), at NaN, +-inf, +-0 (the sign of zero as
torch's), the branch boundaries, 0-d, empty and 8-d tensors and strided views (negative, stepped, transposed,
stride 0). One check, one build, one pytest run of the eight golden tests, one comparison run. A user spec of an
operator specs/ now ships (STAND_IN) takes the shipped spec's place in that tree."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from opgen.spec.base import snake_case

ROOT = Path(__file__).resolve().parents[2]
USER_SPECS = ROOT / "tests" / "fixtures" / "user_specs"
EIGHT = ("tanh", "tanh_grad", "hardtanh", "relu6", "softsign", "new_gelu", "square_plus", "square_plus_grad")
# User specs of operators specs/ now ships from CANN's own APIs (issue 20): user spec -> the shipped spec file it
# stands in for. Two specs cannot generate one aten op (nor one API), so in this tree the user's spec takes the shipped
# one's place: it is still checked beside every other shipped spec, built, golden-tested and compared with torch; the
# shipped spec has its own tests. Any other same-named shipped spec is a clash (below).
STAND_IN = {
    "tanh": "tanh",
    "tanh_grad": "tanh_grad",
    "softsign": "softsign",
    "hardtanh": "clip_by_value_v2",
    "relu6": "relu6",
}

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


def _relinked(path: Path) -> str:
    """A shipped spec's text, each `derivative_of` (a one-line flow mapping) relinked to the user spec standing in for
    its forward: the shipped hardtanh_grad names clip_by_value_v2 (aclnnHardtanh: clipValueMin/clipValueMax standing
    for its min/max); in the tree it names the user's hardtanh, each forward scalar by the user's name of the same
    aten argument (both bind aten's hardtanh), so `opgen check` verifies the shipped backward against the user's
    forward."""
    stood_in = {shipped: user for user, shipped in STAND_IN.items()}

    def aten_names(spec: Path) -> dict[str, str]:
        params = next(yaml.safe_load_all(spec.read_text(encoding="utf-8")))["params"]
        return {p["name"]: p.get("py_name") or snake_case(p["name"]) for p in params}

    def relink(match: re.Match[str]) -> str:
        link = yaml.safe_load(match.group(0))["derivative_of"]
        if link["forward"] not in stood_in:
            return match.group(0)
        user = stood_in[link["forward"]]
        shipped_aten = aten_names(ROOT / "specs" / f"{link['forward']}.yaml")
        user_names = {aten: name for name, aten in aten_names(USER_SPECS / f"{user}.yaml").items()}
        params = {user_names[shipped_aten[forward]]: ours for forward, ours in link.get("params", {}).items()}
        relinked = {**link, "forward": user, "params": {k: v for k, v in params.items() if k != v}}
        if not relinked["params"]:
            del relinked["params"]
        return "derivative_of: " + yaml.safe_dump(relinked, default_flow_style=True, sort_keys=False).strip()

    text = re.sub(r"^derivative_of: \{.*\}$", relink, path.read_text(encoding="utf-8"), flags=re.M)
    for document in yaml.safe_load_all(text):  # a link written otherwise (block style) would be left behind
        forward = (document.get("derivative_of") or {}).get("forward")
        assert stood_in.get(forward, forward) == forward, f"{path.name}: derivative_of is not one flow-mapping line"
    return text


def _env(out: Path | None = None) -> dict[str, str]:
    paths = [str(out / "python"), str(ROOT)] if out is not None else [str(ROOT)]
    # the binding builds the twin core and the eight packages it is called for, not one library of every package
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "OPGEN_OPS_ALL": "0"}


def _opgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "opgen.cli", *args]
    return subprocess.run(command, env=_env(), cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """specs/ and the user specs in one folder, checked, then built into out/."""
    root = tmp_path_factory.mktemp("user_specs")
    specs = root / "specs"
    specs.mkdir()
    shipped = sorted(p for p in (ROOT / "specs").glob("*.yaml") if p.stem not in STAND_IN.values())
    # a shipped spec of a user spec's name is that user spec itself (copied to specs/ by hand), or a clash
    clash = [p.name for p in shipped if p.stem in EIGHT and p.read_bytes() != (USER_SPECS / p.name).read_bytes()]
    assert not clash, f"specs/ now ships {clash}: rename the user spec (tests/fixtures/user_specs)"
    for path in shipped:
        (specs / path.name).write_text(_relinked(path), encoding="utf-8")
    for path in (USER_SPECS / f"{name}.yaml" for name in EIGHT):
        shutil.copyfile(path, specs / path.name)
    check = _opgen("check", "specs", cwd=root)
    if check.returncode == 0:
        build = _opgen("build", "specs", "-o", "out", "-q", cwd=root)
        assert build.returncode == 0, build.stderr[-3000:]
    return root, check


def test_the_user_specs_are_the_eight(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    assert sorted(p.stem for p in USER_SPECS.glob("*.yaml")) == sorted(EIGHT)


def test_a_stand_in_replaces_a_shipped_spec() -> None:
    # the list stays true: each stand-in is a user spec of an aten op a shipped spec generates, and differs from it
    for name, shipped in STAND_IN.items():
        path = ROOT / "specs" / f"{shipped}.yaml"
        assert name in EIGHT and path.is_file(), name
        assert path.read_bytes() != (USER_SPECS / f"{name}.yaml").read_bytes(), name
        aten = re.compile(r"^  aten: (\w+)$", re.M)
        assert aten.findall(path.read_text(encoding="utf-8")) == aten.findall(
            (USER_SPECS / f"{name}.yaml").read_text(encoding="utf-8")
        ), name


def test_check_passes_with_the_shipped_specs(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, check = tree
    assert check.returncode == 0, check.stderr[-3000:]
    count = len(list((root / "specs").glob("*.yaml")))
    assert check.stdout.strip() == f"opgen: {count} specs OK", check.stdout
    assert not check.stderr.strip(), check.stderr  # no warning: every backward names its forward


def test_a_backward_of_a_stood_in_forward_is_linked_to_the_stand_in(
    tree: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The shipped hardtanh_grad links to clip_by_value_v2 (aclnnHardtanh), which the user's hardtanh replaces in the
    tree: there it links to the user's hardtanh, whose bounds carry hardtanh_grad's own names (min, max), and
    `opgen check` verifies its formula against the user's forward. Before, hardtanh_grad had no link (a warning)."""
    root, check = tree
    shipped = yaml.safe_load((ROOT / "specs" / "hardtanh_grad.yaml").read_text(encoding="utf-8"))["derivative_of"]
    assert shipped == {
        "forward": "clip_by_value_v2",
        "grad": "gradOutput",
        "input": "self",
        "params": {"clipValueMin": "min", "clipValueMax": "max"},
    }
    ours = yaml.safe_load((root / "specs" / "hardtanh_grad.yaml").read_text(encoding="utf-8"))["derivative_of"]
    assert ours == {"forward": "hardtanh", "grad": "gradOutput", "input": "self"}
    assert check.returncode == 0, check.stderr[-3000:]


def test_the_generated_golden_tests_pass(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    pytest.importorskip("torch")
    root, check = tree
    assert check.returncode == 0, check.stderr[-3000:]
    out = root / "out"
    tests = [str(out / name / "tests") for name in EIGHT]
    command = [sys.executable, "-m", "pytest", "-v", "-n", "0", "-p", "no:cacheprovider", *tests]
    ran = subprocess.run(command, env=_env(out), cwd=out, capture_output=True, text=True, timeout=1800)
    assert ran.returncode == 0, ran.stdout[-5000:] + ran.stderr[-3000:]
    summary = ran.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, ran.stdout[-3000:]
    for name in EIGHT:  # every dtype of every operator ran against its reference and torch (where aten has it)
        for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
            assert re.search(rf"{name}/tests/test_golden_\w+\.py::test_golden\[{dtype}\] PASSED", ran.stdout), name


# Each binding against torch (or 120-digit SquarePlus) in float32: inputs of special values, branch boundaries and
# random values, laid out contiguously, as 0-d, empty and 8-d tensors and as strided views. Prints a JSON report.
_COMPARE = r"""
import json
import mpmath
import numpy as np
import torch
import opgen_ops

mpmath.mp.dps = 120  # 1 + x / sqrt(x^2 + b) at x = -3e38 is b / (2 x^2), 1e-77
F32 = np.float32
TINY = float(np.finfo(F32).smallest_subnormal)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 6.0, -6.0, 5.999, 6.001, 2.0, -2.5, 1e-4, -1e-4,
           9.0, -9.0, 20.0, -20.0, 30.0, -30.0, 1e13, -1e13, 1e20, -1e20, 3e38, -3e38, TINY, -TINY]
rng = np.random.default_rng(18)
BASE = np.concatenate([SPECIAL, rng.uniform(-10, 10, 4100 - len(SPECIAL))]).astype(F32)
GRAD = np.concatenate([[1.0, -1.0, 0.0, -0.0, 0.5], rng.uniform(-3, 3, 4095)]).astype(F32)
rng.shuffle(GRAD[5:])


def layouts(x):
    '''(name, array): contiguous, 0-d, empty, 8-d and strided views of x (4100 elements).'''
    grid = x.reshape(41, 100)
    yield "contiguous", x
    for i in (1, 4, 7):
        yield f"0-d x[{i}]", np.array(x[i])
    yield "empty", x[:0]
    yield "empty 2x0x3", x[:0].reshape(2, 0, 3)
    yield "8-d", x[:72].reshape(2, 1, 3, 1, 2, 1, 2, 3)
    yield "negative stride", x[::-1]
    yield "stepped rows reversed", grid[::-2, ::3]
    yield "transposed", grid.T
    yield "stride 0", np.broadcast_to(x[:31], (5, 31))


def t(a):
    return torch.from_numpy(np.array(a, copy=True))  # contiguous, and 0-d stays 0-d


def mp_square_plus(x, b, grad=None):
    '''(x + sqrt(x^2 + b)) / 2, or grad * (1 + x / sqrt(x^2 + b)) / 2, in 120 digits; limits at +-inf.'''
    b = mpmath.mpf(float(F32(b)))
    out = []
    for v, g in zip(np.asarray(x, np.float64).ravel(), (np.asarray(grad, np.float64).ravel() if grad is not None
                                                        else [None] * np.size(x))):
        if np.isnan(v):
            out.append(np.nan)
            continue
        if np.isinf(v):
            value = (np.inf if v > 0 else 0.0) if g is None else g * (1.0 if v > 0 else 0.0)
            out.append(value)
            continue
        r = mpmath.sqrt(mpmath.mpf(v) ** 2 + b)
        value = (mpmath.mpf(v) + r) / 2 if g is None else mpmath.mpf(g) * (1 + mpmath.mpf(v) / r) / 2
        out.append(float(value))
    return np.array(out, np.float64).reshape(np.shape(x))


OPS = {
    "tanh": (1, lambda x: opgen_ops.tanh(x), lambda x: torch.ops.aten.tanh(t(x)).numpy()),
    "tanh_backward": (2, lambda g, y: opgen_ops.tanh_backward(g, y),
                      lambda g, y: torch.ops.aten.tanh_backward(t(g), t(y)).numpy()),
    "relu6": (1, lambda x: opgen_ops.relu6(x), lambda x: torch.ops.aten.relu6(t(x)).numpy()),
    "softsign": (1, lambda x: opgen_ops.softsign(x), lambda x: torch.nn.functional.softsign(t(x)).numpy()),
    "new_gelu": (1, lambda x: opgen_ops.new_gelu(x),
                 lambda x: torch.ops.aten.gelu(t(x), approximate="tanh").numpy()),
}
for lo, hi in ((-1.0, 1.0), (0.0, 6.0), (-2.5, 0.5), (0.0, 1.0)):
    OPS[f"hardtanh({lo}, {hi})"] = (
        1, lambda x, lo=lo, hi=hi: opgen_ops.hardtanh(x, lo, hi),
        lambda x, lo=lo, hi=hi: torch.ops.aten.hardtanh(t(x), lo, hi).numpy())
for b in (4.0, 0.5, 0.0):
    OPS[f"square_plus(b={b})"] = (
        1, lambda x, b=b: opgen_ops.square_plus(x, b), lambda x, b=b: mp_square_plus(x, b))
for b in (4.0, 0.5):
    OPS[f"square_plus_backward(b={b})"] = (
        2, lambda g, x, b=b: opgen_ops.square_plus_backward(g, x, b), lambda g, x, b=b: mp_square_plus(x, b, g))
OPS["square_plus (default b = 4)"] = (1, lambda x: opgen_ops.square_plus(x), lambda x: mp_square_plus(x, 4.0))


def compare(got, want):
    '''Failures (NaN, infinity or the sign of a zero differing, or outside the FLOAT standard) and the max abs
    error where both are finite.'''
    got = np.asarray(got, np.float64)
    want = np.asarray(want, F32).astype(np.float64)  # the reference rounded to the output's dtype
    assert got.shape == want.shape, (got.shape, want.shape)
    problems = []
    nan = np.isnan(got) != np.isnan(want)
    inf = (np.isinf(got) | np.isinf(want)) & ~np.isnan(got) & ~np.isnan(want) & (got != want)
    zero = (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    finite = np.isfinite(got) & np.isfinite(want)
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: compared above
        err = np.abs(got - want)
    far = finite & (err > 1e-4 + 1e-4 * np.abs(want))
    for label, mask in (("NaN", nan), ("infinity", inf), ("sign of zero", zero), ("beyond 1e-4", far)):
        if mask.any():
            i = int(np.flatnonzero(mask.ravel())[0])
            problems.append(f"{label} at {i}: got {got.ravel()[i]!r}, want {want.ravel()[i]!r}")
    return problems, float(err[finite].max()) if finite.any() else 0.0


report = {"failures": [], "max_abs_error": {}}
for name, (arity, ours, theirs) in OPS.items():
    worst = 0.0
    for layout, x in layouts(BASE):
        args = [x] if arity == 1 else [next(v for n, v in layouts(GRAD) if n == layout), x]
        if name == "tanh_backward":  # the forward's result: tanh's range and its boundary, next to specials
            args[1] = x if layout.startswith("0-d") else np.clip(x, -1.5, 1.5)
        got = ours(*args)
        if got.shape != np.shape(x):
            report["failures"].append(f"{name} {layout}: shape {got.shape}, want {np.shape(x)}")
            continue
        problems, error = compare(got, theirs(*args))
        worst = max(worst, error)
        report["failures"] += [f"{name} {layout}: {p}" for p in problems]
    report["max_abs_error"][name] = worst
# the in-place forms write into their (strided) argument
for name, ours, theirs in (("tanh_", opgen_ops.tanh_, torch.ops.aten.tanh), ("relu6_", opgen_ops.relu6_,
                           torch.ops.aten.relu6), ("hardtanh_", lambda v: opgen_ops.hardtanh_(v, 0.0, 1.0),
                           lambda v: torch.ops.aten.hardtanh(v, 0.0, 1.0))):
    grid = BASE.copy().reshape(41, 100)
    view = grid[::-2, ::3]
    want = theirs(t(view)).numpy()
    ours(view)
    problems, _ = compare(view, want)
    report["failures"] += [f"{name} in place, strided: {p}" for p in problems]
print(json.dumps(report))
"""


def test_the_bindings_match_torch(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("mpmath")
    root, check = tree
    assert check.returncode == 0, check.stderr[-3000:]
    out = root / "out"
    ran = subprocess.run(
        [sys.executable, "-c", _COMPARE], env=_env(out), cwd=out, capture_output=True, text=True, timeout=1800
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    report = json.loads(ran.stdout.strip().splitlines()[-1])
    assert not report["failures"], "\n".join(report["failures"][:40])
    # float32 where torch computes the same function: as close as the FLOAT standard asks, and much closer
    assert max(report["max_abs_error"].values()) < 1e-5, report["max_abs_error"]


def test_the_aclnn_matrix_holds_the_eight(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """tests/e2e/aclnn_matrix.py (every dtype x shape x layout through the aclnn API, bit-exact with the kernel's model,
    within the precision standard, a large launch traced) on one SoC, over the tree built here. Before: tanh's large
    launch was "no kernel launch traced" (looked up by its directory, where `stem: tanh_op` names the entry), and
    square_plus_grad failed the precision standard at gradOutput = x = -inf, where the kernel gives NaN as the
    formula does in float (b / (2m) / m underflows to 0) and only the float64 reference gives -inf."""
    root, check = tree
    assert check.returncode == 0, check.stderr[-3000:]
    out = root / "out"
    summary = root / "matrix.json"
    env = {**_env(out), "OPGEN_SOC": "ascend910b", "OPGEN_TWIN_TRACE": str(root / "trace.jsonl")}
    env["OPGEN_MATRIX_SPECS"] = str(root / "specs")
    matrix = ROOT / "tests" / "e2e" / "aclnn_matrix.py"
    ran = subprocess.run(
        [sys.executable, str(matrix), str(summary), *EIGHT], env=env, capture_output=True, text=True, timeout=1800
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert not report["failures"], "\n".join(report["failures"][:20])
    assert all(report["cases"][name] > 0 for name in EIGHT), report["cases"]
    assert sorted(key.split("/")[0] for key in report["large"]) == sorted(EIGHT), report["large"].keys()


GOLDEN_SCRIPT_RUN = """
import sys
from pathlib import Path

import numpy as np

import opgen_ops

data = Path(sys.argv[1])
grad = np.fromfile(data / "input_grad_output.bin", np.float16).reshape(4, 33)
x = np.fromfile(data / "input_self.bin", np.float16).reshape(4, 33)
np.ascontiguousarray(opgen_ops.square_plus_backward(grad, x, 4.0)).tofile(data / "output_grad_input.bin")
"""


def test_the_golden_scripts_hold_square_plus_backward(tree: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    # Before: gen_data's numpy golden was the formula in float64, which gives -inf at gradOutput = self = -inf
    # where the kernel (and the formula in float, as the torch golden computes) gives NaN: compare_data failed a
    # valid spec's correct output.
    root, _ = tree
    scripts = root / "out" / "square_plus_grad" / "tests" / "golden"
    data = root / "golden_data"
    generate = [sys.executable, str(scripts / "gen_data.py"), "--dtype", "FLOAT16", "--shape", "4,33"]
    generate += ["--reference", "numpy", "--out-dir", str(data)]
    made = subprocess.run(generate, env=_env(root / "out"), capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    run = [sys.executable, "-c", GOLDEN_SCRIPT_RUN, str(data)]
    called = subprocess.run(run, env=_env(root / "out"), capture_output=True, text=True, timeout=600)
    assert called.returncode == 0, called.stderr[-3000:]
    output, golden = data / "output_grad_input.bin", data / "golden_grad_input.bin"
    compare = [sys.executable, str(scripts / "compare_data.py"), str(output), str(golden), "--dtype", "FLOAT16"]
    compared = subprocess.run(compare, capture_output=True, text=True, timeout=300)
    assert compared.returncode == 0 and compared.stdout.startswith("PASS"), compared.stdout + compared.stderr
