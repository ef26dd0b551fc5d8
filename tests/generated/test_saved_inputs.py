"""A backward's input that holds one of the forward's outputs (derivative_of.saved, GeGluBackward's gelu = the forward's
outGelu) gets that output's values in the golden tests and in gen_data.py, computed from the same case's inputs, not a
random draw: the values the binding receives, and those gen_data writes, equal the forward's own golden reference (its
generated test's `reference`) of that case.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import numpy as np
import pytest
from spec_list import GENERATED, every_operator

from opgen.spec.model import Direction, OpSpec

SAVED = [stem for stem, spec in every_operator().items() if spec.derivative_of and spec.derivative_of.saved]


class _Called(Exception):
    """Raised by the binding's stand-in once it has the call's arguments."""


def _module(path: Path, name: str):
    loader = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def _golden(spec: OpSpec):
    path = GENERATED / spec.operator.dir / "tests" / f"test_golden_{spec.operator.file_stem}.py"
    return _module(path, f"saved_golden_{spec.operator.file_stem}")


def _forward(spec: OpSpec) -> OpSpec:
    link = spec.derivative_of
    assert link is not None
    candidates = [
        s for s in every_operator().values() if s.operator.dir == link.forward or s.operator.file_stem == link.forward
    ]
    return next(s for s in candidates if link.forward_type in (None, s.operator.type))


def _inputs(spec: OpSpec) -> list[str]:
    return [p.python for p in spec.params if p.direction is Direction.INPUT]


def test_the_real_specs_save_forward_outputs():
    assert SAVED  # else the test below checks nothing


@pytest.mark.parametrize("stem", SAVED)
def test_a_saved_input_holds_the_forwards_output_of_the_case(stem, monkeypatch):
    pytest.importorskip("opgen_ops")
    spec = every_operator()[stem]
    forward = _forward(spec)
    link = spec.derivative_of
    assert link is not None
    golden, forward_golden = _golden(spec), _golden(forward)
    binding = spec.api.binding_name
    seen: list[dict] = []

    def capture(*args, **kwargs):
        positional = [p.python for p in spec.params if p.direction is Direction.INPUT and not p.keyword_only]
        seen.append(dict(zip(positional, args, strict=False)) | kwargs)
        raise _Called

    class Binding:
        AclnnError = golden.opgen_ops.AclnnError

    setattr(Binding, binding, staticmethod(capture))
    monkeypatch.setattr(golden, "opgen_ops", Binding)
    labels = [label for label, _ in forward_golden.COMPUTED]
    checked = 0
    for shape, scalars, one_value in golden.cases("FLOAT"):
        if np.prod(shape) > 1000 or golden.rejected(**scalars) is not None:
            continue
        seen.clear()
        with pytest.raises(_Called):
            golden.check_case("FLOAT", shape, scalars, one_value)
        (call,) = seen
        # the forward's call over the same values: its inputs by the backward's names (derivative_of.params renames)
        args = [
            call[spec.param(link.params.get(p.name, p.name)).python]
            for p in forward.params
            if p.direction is Direction.INPUT
        ]
        wide = [np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a for a in args]
        outputs = forward_golden.reference(*wide)
        for ours, theirs in link.saved.items():
            want = np.asarray(outputs[labels.index(theirs)]).astype(np.float32)
            got = call[spec.param(ours).python]
            assert got.shape == want.shape, (shape, scalars)
            np.testing.assert_allclose(
                got, want, rtol=1e-6, atol=0, equal_nan=True, err_msg=f"{ours} {shape} {scalars}"
            )
        checked += 1
    assert checked >= 4


def _gen_data(spec: OpSpec):
    """The operator's generated gen_data.py (a directory's later operators keep theirs in tests/golden/<stem>/)."""
    folder = GENERATED / spec.operator.dir / "tests" / "golden"
    if spec.operator.file_stem != spec.operator.dir:
        folder = folder / spec.operator.file_stem
    return _module(folder / "gen_data.py", f"saved_gen_data_{spec.operator.file_stem}")


def _option(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("stem", SAVED)
def test_gen_data_writes_the_forwards_output_of_its_inputs(stem, tmp_path):
    """gen_data.py derives a saved input from the inputs it wrote and its options (each golden value of each): gelu
    is the forward's gelu of the gate half of self as stored, for every dim, approximate and activateLeft."""
    spec = every_operator()[stem]
    forward = _forward(spec)
    link = spec.derivative_of
    assert link is not None and spec.split is not None
    script, forward_golden = _gen_data(spec), _golden(forward)
    labels = [label for label, _ in forward_golden.COMPUTED]
    host = {p.name: p for p in spec.params if p.direction is Direction.INPUT and not p.is_tensor}
    golden_values = spec.golden_scalar_values()
    half = (3, 4)  # a half's shape: even along every dim once doubled
    checked = 0
    for combination in itertools.product(*(golden_values[name] for name in host)):
        values = dict(zip(host, combination, strict=True))
        if any(v is None for v in values.values()):
            continue
        dim = spec.split_dim({**spec.example.scalars, **values})  # a literal dim, or this combination's
        options = [f"--{host[n].python.replace('_', '-')}={_option(v)}" for n, v in values.items()]
        full = spec.input_shape(spec.split.tensor, half, dim=dim)
        out = tmp_path / str(checked)
        script.main(
            ["--dtype", "FLOAT", "--shape", ",".join(map(str, full)), "--reference", "numpy"]
            + ["--out-dir", str(out), *options]
        )
        stored = {
            p.python: np.fromfile(out / f"input_{p.python}.bin", np.float32).reshape(
                spec.input_shape(p.name, half, dim=dim)
            )
            for p in spec.tensor_inputs
        }
        call = {host[n].python: v for n, v in values.items()} | stored
        args = [
            call[spec.param(link.params.get(p.name, p.name)).python]
            for p in forward.params
            if p.direction is Direction.INPUT
        ]
        wide = [np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a for a in args]
        outputs = forward_golden.reference(*wide)
        for ours, theirs in link.saved.items():
            want = np.asarray(outputs[labels.index(theirs)]).astype(np.float32)
            got = stored[spec.param(ours).python]
            assert got.shape == want.shape, values
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, equal_nan=True, err_msg=f"{ours} {values}")
        checked += 1
    assert checked >= 4
