"""The generated CANN-style golden scripts (tests/golden/gen_data.py, compare_data.py) of every package: they are
standalone, gen_data's inputs run through the aclnn API (the `opgen_ops` binding, on the twin) give an output
compare_data accepts against the golden, a corrupted output is rejected, and the numpy golden agrees with aten's.

One `python -I` run of gen_data per operator proves the scripts run on their own; everything else loads them as
modules and calls their main(argv) in this process.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from spec_list import GENERATED, binding, loaded

from opgen.plan.cases import negative_calls
from opgen.plan.operator import binding_result_index
from opgen.spec.model import OpSpec, ParamKind

STANDALONE_IMPORTS = {"argparse", "math", "pathlib", "sys", "numpy", "torch"}
STORAGE = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": np.uint16, "DOUBLE": np.float64}


# Every operator of every spec file: a directory's later operators keep their scripts in tests/golden/<stem>/.
SPECS = {spec.operator.file_stem: spec for _, spec in loaded()}


def _script(op: str, name: str) -> Path:
    spec = SPECS[op]
    golden = GENERATED / spec.operator.dir / "tests" / "golden"
    return (golden if spec.operator.file_stem == spec.operator.dir else golden / op) / name


def _run(*args: object, cwd: Path) -> subprocess.CompletedProcess:
    # -I: isolated mode, so the scripts cannot see opgen through the working directory or PYTHONPATH
    return subprocess.run([sys.executable, "-I", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def _load_input(path: Path, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    array = np.fromfile(path, dtype=STORAGE[dtype]).reshape(shape)
    return array.view(ml_dtypes.bfloat16) if dtype == "BFLOAT16" else array


def _split_dim(spec: OpSpec) -> int | None:
    """A half split's dim in gen_data's default call (the example's), else None."""
    return spec.split_dim(spec.example.scalars) if spec.split is not None else None


def _shape_of(spec: OpSpec, name: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Tensor `name`'s shape in a golden case of `shape` (a half split's: a half's shape; full-size tensors double it
    along gen_data's default dim; a per-row output: without the reduced dim)."""
    if name in spec.per_row_outputs:
        return spec.row_shape(shape, spec.example.scalars)
    return spec.input_shape(name, shape, dim=_split_dim(spec)) if spec.split is not None else shape


def _script_shape(spec: OpSpec, shape: tuple[int, ...]) -> tuple[int, ...]:
    """gen_data's --shape in a golden case of `shape`: the inputs' (a half split's: the split tensor's)."""
    return _shape_of(spec, spec.split.tensor, shape) if spec.split is not None else shape


def _call_aclnn(spec: OpSpec, data: Path, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """The main API through opgen_ops, with gen_data's inputs and the spec's example scalars (gen_data's defaults),
    in a golden case of `shape`."""
    import opgen_ops

    args = []
    keywords = {}
    for param in spec.params:
        if param.kind is ParamKind.TENSOR and param.direction.value == "input":
            # a channel input holds one value per channel of the shape (gen_data's rule)
            value = _load_input(
                data / f"input_{param.python}.bin", dtype, spec.input_shape(param.name, shape, dim=_split_dim(spec))
            )
        elif param.kind is not ParamKind.TENSOR and spec.example.scalars.get(param.name, 0) is None:
            value = None  # a nullable parameter's null pointer, gen_data's default (GeluMul's approximateOptional)
        elif param.kind is ParamKind.BOOL:
            value = bool(spec.example.scalars[param.name])
        elif param.kind in (ParamKind.SCALAR, ParamKind.DOUBLE):
            value = float(spec.example.scalars[param.name])
        elif param.kind is ParamKind.INT64:
            value = int(spec.example.scalars[param.name])
        elif param.kind is ParamKind.STRING:
            value = str(spec.example.scalars[param.name])
        else:
            continue
        if param.keyword_only:
            keywords[param.python] = value
        else:
            args.append(value)
    result = getattr(opgen_ops, binding(spec))(*args, **keywords)
    index = binding_result_index(spec)  # several outputs come back as a tuple, as aten returns them
    return result if index is None else result[index]


@pytest.mark.parametrize("op", list(SPECS))
def test_golden_scripts_import_nothing_from_opgen(op):
    for name in ("gen_data.py", "compare_data.py"):
        tree = ast.parse(_script(op, name).read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert imported <= STANDALONE_IMPORTS, (name, imported - STANDALONE_IMPORTS)


@pytest.mark.parametrize("op", list(SPECS))
def test_aclnn_output_meets_the_golden(op, tmp_path, capsys):
    pytest.importorskip("opgen_ops")
    spec = SPECS[op]
    dtype, shape = "FLOAT16", (4, 33)  # a half split's half shape
    data = tmp_path / "data"
    # the one standalone run of the operator's scripts; the numpy golden (importing torch would cost seconds per
    # process: the torch golden is compared with this one in process, by test_numpy_golden_agrees_with_aten)
    given = ",".join(map(str, _script_shape(spec, shape)))
    argv = ["--dtype", dtype, "--shape", given, "--reference", "numpy", "--out-dir", data]
    generated = _run(_script(op, "gen_data.py"), *argv, cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    assert "golden from numpy formula" in generated.stdout
    out_name = spec.outputs[0].python
    golden = data / f"golden_{out_name}.bin"
    out_shape = _shape_of(spec, spec.outputs[0].name, shape)
    assert golden.stat().st_size == np.prod(out_shape) * 2

    output = np.ascontiguousarray(_call_aclnn(spec, data, dtype, shape))
    assert output.dtype == np.float16 and output.shape == out_shape
    output_path = data / f"output_{out_name}.bin"
    output.tofile(output_path)
    compare_data = _module(op, "compare_data.py")
    capsys.readouterr()
    assert compare_data.main([str(output_path), str(golden), "--dtype", dtype]) == 0
    assert capsys.readouterr().out.startswith("PASS")

    # a wrong result (every finite value off by 1%, well outside 双千分之一) must be rejected
    wrong = output.astype(np.float32)
    finite = np.isfinite(wrong) & (np.abs(wrong) > 0.5)
    wrong[finite] *= 1.01
    wrong.astype(np.float16).tofile(output_path)
    assert compare_data.main([str(output_path), str(golden), "--dtype", dtype]) == 1
    assert capsys.readouterr().out.startswith("FAIL")


@pytest.mark.parametrize("op", [op for op, spec in SPECS.items() if spec.api.aten])
def test_numpy_golden_agrees_with_aten(op, tmp_path, capsys):
    pytest.importorskip("torch")
    spec = SPECS[op]
    gen_data, compare_data = _module(op, "gen_data.py"), _module(op, "compare_data.py")
    out = spec.outputs[0].python
    # a channel input (prelu's weight) has one channel below rank 2: a rank-3 shape gives it several
    shapes = [(509,), (3, 7, 5)] if any(p.shape.channel_of for p in spec.tensor_inputs) else [(509,)]
    cases = [(",".join(map(str, _script_shape(spec, s))), []) for s in shapes]
    if spec.split is not None and isinstance(spec.split.dim, str):  # a non-last dim too, given as the option
        cases.append(("4,3,5", [f"--{spec.param(spec.split.dim).python.replace('_', '-')}", "0"]))
    floating = [d.value for d in spec.tensor_inputs[0].dtypes if d.is_floating]  # gen_data's dtypes
    for dtype, (shape, extra) in [(d, case) for d in floating for case in cases]:
        for reference in ("torch", "numpy"):
            argv = ["--dtype", dtype, "--shape", shape, "--seed", "3", "--reference", reference, *extra]
            gen_data.main(argv + ["--out-dir", str(tmp_path / reference)])
        goldens = [compare_data.load(tmp_path / r / f"golden_{out}.bin", dtype) for r in ("numpy", "torch")]
        passed, report = compare_data.compare(*goldens, dtype)
        assert passed, (dtype, report)
        # exact where the standard's fail ratio would let a few through: the same NaN positions and infinities
        ours, theirs = goldens
        assert np.array_equal(np.isnan(ours), np.isnan(theirs)), (
            dtype,
            np.flatnonzero(np.isnan(ours) != np.isnan(theirs)),
        )
        infinite = np.isinf(ours) | np.isinf(theirs)
        assert np.array_equal(ours[infinite], theirs[infinite]), (dtype, ours[infinite], theirs[infinite])
    assert "golden from numpy formula" in capsys.readouterr().out


def _module(op: str, name: str):
    """A golden script loaded as a module (its main() takes argv)."""
    loader = importlib.util.spec_from_file_location(f"{op}_{name[:-3]}", _script(op, name))
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def _rejected_calls():
    """(op, call) of each error-table row over parameter values (a `reject_if` row), as a negative call."""
    found = []
    for op, spec in SPECS.items():
        rows = {index for index, row in enumerate(spec.errors) if row.check.kind == "reject_if"}
        found += [(op, call) for call in negative_calls(spec) if call.row in rows]
    return found


REJECTED = _rejected_calls()


@pytest.mark.parametrize("op,call", REJECTED, ids=[f"{op}-{call.name}" for op, call in REJECTED])
def test_gen_data_refuses_what_the_error_table_rejects(op, call, tmp_path, capsys):
    spec = SPECS[op]
    argv = ["--out-dir", str(tmp_path)]
    for param in spec.params:
        arg = call.args[param.name]
        if param.kind is ParamKind.BOOL:
            argv += [f"--{param.python.replace('_', '-')}", "true" if arg.value else "false"]
        elif param.kind is ParamKind.SCALAR:
            argv += [f"--{param.python.replace('_', '-')}", repr(float(arg.value))]
    with pytest.raises(SystemExit) as exit_info:
        _module(op, "gen_data.py").main(argv)
    assert exit_info.value.code != 0
    assert call.message in capsys.readouterr().err


@pytest.mark.parametrize("op", [op for op, spec in SPECS.items() if spec.split is not None])
def test_gen_data_of_a_half_split_refuses_a_shape_without_two_halves(op, tmp_path, capsys):
    """--shape is the split tensor's: an odd size along dim has no halves (before, gen_data wrote a golden of the
    halves' empty shape, and its default shape was a half's: odd along dim for GLU's [5000, 1])."""
    spec = SPECS[op]
    half = tuple(spec.golden.shapes[-1])
    odd = list(_script_shape(spec, half))
    axis = (_split_dim(spec) or 0) % len(odd)
    odd[axis] -= 1
    with pytest.raises(SystemExit) as exit_info:
        _module(op, "gen_data.py").main(["--shape", ",".join(map(str, odd)), "--out-dir", str(tmp_path)])
    assert exit_info.value.code != 0 and "two halves" in capsys.readouterr().err
    gen_data = _module(op, "gen_data.py")
    gen_data.main(["--out-dir", str(tmp_path), "--reference", "numpy"])  # the default shape
    out = spec.outputs[0]
    written = np.fromfile(tmp_path / f"golden_{out.python}.bin", STORAGE[gen_data.DTYPES[0]])
    assert written.size == np.prod(_shape_of(spec, out.name, half))
