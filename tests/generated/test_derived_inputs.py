"""Inputs a spec derives from the others (golden.derived_inputs, e.g. logsigmoid_grad's buffer = exp(-abs(self)),
which torch's CPU log_sigmoid_backward reads and ops-nn ignores) reach every generated maker of golden inputs: the
golden tests' make_inputs and gen_data.py. Without the derivation their torch comparison fails.
"""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest
from spec_list import GENERATED, specs

from opgen.spec.formula_binding import derive_inputs, derived_per_case
from opgen.spec.model import OpSpec

# derived with the inputs (those derived per golden case, from a half split's halves: tests/generated/test_saved_inputs)
DERIVED = [op for op, spec in specs().items() if set(spec.golden.derived_inputs) - derived_per_case(spec)]


def _module(path, name: str):
    loader = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def _expected(spec: OpSpec, stored: dict[str, np.ndarray], dtype) -> dict[str, np.ndarray]:
    """The derived inputs (by Python name) from the others as stored, by opgen's own evaluation of the spec."""
    by_name = {p.name: stored[p.python] for p in spec.tensor_inputs}
    derived = derive_inputs(spec, by_name, dtype)
    return {spec.param(name).python: derived[name] for name in spec.golden.derived_inputs}


def test_the_real_specs_use_derived_inputs():
    assert DERIVED  # else the tests below check nothing


@pytest.mark.parametrize("op", DERIVED)
def test_golden_tests_derive_the_inputs_and_need_them_to_agree_with_torch(op, monkeypatch):
    pytest.importorskip("opgen_ops")
    pytest.importorskip("torch")
    spec = specs()[op]
    golden = _module(GENERATED / op / "tests" / f"test_golden_{op}.py", f"derived_golden_{op}")
    names = [p.python for p in spec.tensor_inputs]
    shape = golden.SHAPES[-1]
    stored = dict(zip(names, golden.make_inputs("FLOAT", shape, seed=7), strict=True))
    for name, want in _expected(spec, stored, np.float32).items():
        assert np.array_equal(stored[name], want, equal_nan=True), name
    for dtype in golden.TOLERANCE:
        golden.test_golden(dtype)  # with the derivation: the spec's reference and torch agree with the output
    monkeypatch.setattr(golden, "DERIVED_INPUTS", [])
    with pytest.raises(AssertionError) as info:
        golden.test_golden("FLOAT")
    # without it the inputs are independent random tensors: only the comparison with torch fails
    assert f"vs torch.ops.aten.{spec.api.aten}" in str(info.value)
    assert "vs the spec reference" not in str(info.value)


@pytest.mark.parametrize("op", DERIVED)
def test_gen_data_writes_the_derived_inputs_and_torch_agrees(op, tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    spec = specs()[op]
    folder = GENERATED / op / "tests" / "golden"
    gen_data = _module(folder / "gen_data.py", f"derived_gen_data_{op}")
    compare_data = _module(folder / "compare_data.py", f"derived_compare_data_{op}")
    out = spec.outputs[0].python

    def run(dtype: str, reference: str, where: str) -> np.ndarray:
        argv = ["--dtype", dtype, "--shape", "509", "--seed", "5", "--reference", reference]
        gen_data.main([*argv, "--out-dir", str(tmp_path / where)])
        return compare_data.load(tmp_path / where / f"golden_{out}.bin", dtype)

    for dtype in [d.value for d in spec.tensor_inputs[0].dtypes]:
        numpy_golden, torch_golden = run(dtype, "numpy", f"{dtype}-numpy"), run(dtype, "torch", f"{dtype}-torch")
        passed, report = compare_data.compare(numpy_golden, torch_golden, dtype)
        assert passed, (dtype, report)
    stored = {
        p.python: np.fromfile(tmp_path / "FLOAT-numpy" / f"input_{p.python}.bin", np.float32)
        for p in spec.tensor_inputs
    }
    for name, want in _expected(spec, stored, np.float32).items():
        assert np.array_equal(stored[name], want, equal_nan=True), name
    if "BFLOAT16" in gen_data.DTYPES:  # bfloat16 bit patterns, derived from the others as the device reads them
        bits = {
            p.python: np.fromfile(tmp_path / "BFLOAT16-numpy" / f"input_{p.python}.bin", np.uint16)
            for p in spec.tensor_inputs
        }
        values = {n: b.view(ml_dtypes.bfloat16) for n, b in bits.items()}
        for name, want in _expected(spec, values, np.float32).items():  # rounded through float, as gen_data does
            assert np.array_equal(values[name], want.astype(ml_dtypes.bfloat16), equal_nan=True), name
    monkeypatch.setattr(gen_data, "DERIVED_INPUTS", [])
    plain = run("FLOAT", "numpy", "plain-numpy"), run("FLOAT", "torch", "plain-torch")
    passed, _ = compare_data.compare(*plain, "FLOAT")
    assert not passed  # without the derivation torch's golden is another function of the inputs
    capsys.readouterr()
