"""The generated golden tests (generated/<op>/tests/test_golden_<op>.py) run one pytest test per dtype looping
over its cases (shapes x parameter values), so their count does not multiply with the cases; a failure lists
every failing case by dtype, shape and values."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest
from spec_list import GENERATED, SPEC_DIR, every_operator

from opgen.spec.half_split import full_shape
from opgen.spec.loader import load_spec_text
from opgen.spec.model import OpSpec

pytest.importorskip("opgen_ops")


def _golden_module(op: str):
    path = GENERATED / every_operator()[op].operator.dir / "tests" / f"test_golden_{op}.py"
    loader = importlib.util.spec_from_file_location(f"golden_of_{op}", path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


@pytest.mark.parametrize("op", list(every_operator()))
def test_a_wrong_reference_fails_naming_each_failing_case(op, monkeypatch):
    golden = _golden_module(op)
    dtype = "FLOAT"
    assert dtype in golden.TOLERANCE
    wrong_shape = golden.SHAPES[-1]
    # a half split's full-size output (written per half) has the shape doubled along the case's dim
    wrong = {wrong_shape} | (
        {full_shape(wrong_shape, axis) for axis in range(len(wrong_shape))} if every_operator()[op].split else set()
    )
    right = golden.reference

    def reference(*args, **kwargs):  # keyword-only parameters (e.g. approximate) come by name
        want = right(*args, **kwargs)
        if isinstance(want, list):  # several computed outputs (COMPUTED): those of the wrong shape are wrong
            return [np.asarray(w) + 1.0 if np.shape(w) in wrong else w for w in want]
        want = np.asarray(want)
        return want + 1.0 if want.shape in wrong else want

    monkeypatch.setattr(golden, "reference", reference)
    with pytest.raises(AssertionError) as info:
        golden.test_golden(dtype)
    message = str(info.value)
    lines = [line for line in message.splitlines() if line.startswith(f"{dtype} shape=")]
    # the wrong shape's cases fail (those the error table rejects still pass), the others do not
    assert lines and all(f"shape={wrong_shape}" in line for line in lines), message
    # at most the wrong shape's cases (a channel input doubles a shape's cases: one value per channel, one value)
    assert len(lines) <= sum(1 for case in golden.cases(dtype) if case[0] == wrong_shape)
    assert "vs the spec reference" in message


def differs_always(spec: OpSpec) -> bool:
    """Whether the spec declares a difference from torch that holds wherever its condition does: one the golden
    inputs must reach. A difference with `always: false` (soft_shrink_grad's self = NaN, where torch's vectorised loop
    agrees and only its scalar tail loop differs) need not be reached by them."""
    return any(d.always for d in spec.golden.differs_from_torch)


# Every operator whose spec declares where ops-nn differs from torch everywhere its condition holds
# (golden.differs_from_torch); golden tests compare with the aten op api.aten names (an aten form's differences serve
# test_aten_forms.py)
DECLARED = [op for op, spec in every_operator().items() if differs_always(spec) and spec.api.aten]


def test_which_declared_differences_the_golden_inputs_must_reach_is_the_specs_word():
    """The selection above reads golden.differs_from_torch[].always, not a list of names: a user's copy of
    soft_shrink_grad under another name is left out while its difference says `always: false`, taken without it."""
    text = (SPEC_DIR / "soft_shrink_grad.yaml").read_text(encoding="utf-8")
    text = text.replace("dir: soft_shrink_grad", "dir: mine")
    mark = "      always: false"
    assert mark in text and not differs_always(load_spec_text(text, "mine.yaml", SPEC_DIR / "mine.yaml").spec)
    assert differs_always(
        load_spec_text(text.replace(mark, "      # always: false"), "mine.yaml", SPEC_DIR / "mine.yaml").spec
    )


@pytest.mark.parametrize("op", DECLARED)
def test_golden_compares_with_torch_everywhere_but_the_declared_differences(op, monkeypatch):
    pytest.importorskip("torch")
    golden = _golden_module(op)
    golden.test_golden("FLOAT")  # passes with the declaration
    monkeypatch.setattr(golden, "differs_from_torch", lambda *args, **kwargs: [])
    with pytest.raises(AssertionError) as info:
        golden.test_golden("FLOAT")
    # without it the comparison with torch fails at the NaN, infinity or boundary inputs: no position is skipped
    assert f"vs torch.ops.aten.{every_operator()[op].api.aten}" in str(info.value)
    assert "vs the spec reference" not in str(info.value)


@pytest.mark.parametrize("op", [op for op, spec in every_operator().items() if spec.golden.differs_from_torch])
def test_api_doc_lists_each_declared_difference(op):
    spec = every_operator()[op]
    docs = list((GENERATED / spec.operator.dir / "docs").glob("*.md"))
    assert docs
    for doc in docs:
        constraints = doc.read_text(encoding="utf-8").split("## 约束说明", 1)[1].split("\n## ", 1)[0]
        assert f"- 与PyTorch（torch.ops.aten.{spec.api.compared_aten}）的差异：" in constraints
        for difference in spec.golden.differs_from_torch:
            assert f"    - {difference.note}" in constraints.splitlines()


def test_nan_and_infinity_must_match_exactly_whatever_the_fail_ratio():
    # Before: an infinity against a finite value passed (|g - w| <= atol + rtol * |w| is inf <= inf), and NaN
    # against a number counted among the max_fail_ratio failures, so a few could pass.
    module = _golden_module("threshold")
    tolerance = module.TOLERANCE["FLOAT16"]
    want = np.linspace(-1.0, 1.0, 20000)
    assert tolerance[2] * want.size >= 1  # the ratio would let one ordinary failure through

    def check(got, expected, what):  # the generated test's comparison (opgen_ops.golden)
        module.golden.assert_meets_standard(got, {"the reference": expected}, tolerance, what)

    check(want, want, "same")
    for wrong in (np.nan, np.inf, -np.inf):
        changed = want.copy()
        changed[5] = wrong
        for got, expected in ((changed, want), (want, changed)):  # in the output or in the golden
            with pytest.raises(AssertionError, match=r"differ in NaN or infinity.*\(flat 5\)"):
                check(got, expected, "x")
    infinite = want.copy()
    infinite[3] = np.inf
    both = infinite.copy()
    check(infinite, both, "equal infinities pass")
    negated = infinite.copy()
    negated[3] = -np.inf
    with pytest.raises(AssertionError, match="differ in NaN or infinity"):
        check(infinite, negated, "x")


def test_a_reference_beyond_the_dtype_rounds_to_inf_without_a_warning():
    # Before: FLOAT16 golden runs warned "overflow encountered in cast" where a reference passes 65504 (celu_v2).
    golden = _golden_module("threshold").golden
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert golden.to_dtype(np.array([1e6, -1e6, 1.0]), "FLOAT16").tolist() == [np.inf, -np.inf, 1.0]


CHANNELS = [op for op, spec in every_operator().items() if any(p.shape.channel_of for p in spec.tensor_inputs)]


@pytest.mark.parametrize("op", CHANNELS)
def test_golden_cases_hold_channel_inputs_and_fail_on_numpy_broadcasting(op, monkeypatch):
    golden = _golden_module(op)
    # cases of rank >= 2 with several channels run twice: one value per channel, and one value
    shapes = [shape for shape in golden.SHAPES if len(shape) >= 2 and shape[1] > 1]
    assert shapes
    held = {(case[0], case[2]) for case in golden.cases("FLOAT")}
    assert all((shape, False) in held and (shape, True) in held for shape in shapes)
    golden.test_golden("FLOAT")
    # the reference laying the channel values along the last dim (numpy's rule) instead of dim 1 must fail
    monkeypatch.setattr(golden, "channel_view", lambda values, of: np.asarray(values).reshape(-1))
    with pytest.raises(AssertionError) as info:
        golden.test_golden("FLOAT")
    assert "vs the spec reference" in str(info.value) or "ValueError" in str(info.value)


# One body for one output and several (issue 19): the several-output path (p_relu_grad_update: grad_input and a
# per-channel sum) and the per-channel one (p_relu) run the same checks as the plain one. Before, the several-output
# body ignored OUT_DTYPES and TORCH_REFUSES, and the per-channel body did not truncate integer scalars.
SEVERAL = [op for op, spec in every_operator().items() if len(spec.formula.outputs) > 1]


@pytest.mark.parametrize("op", SEVERAL)
def test_several_outputs_take_the_out_dtypes(op, monkeypatch):
    golden = _golden_module(op)
    golden.test_golden("FLOAT")
    monkeypatch.setattr(golden, "OUT_DTYPES", {"FLOAT": "DOUBLE"})  # as if the op computed FLOAT in double
    with pytest.raises(AssertionError, match="cases failed"):
        golden.test_golden("FLOAT")


@pytest.mark.parametrize("op", [op for op in SEVERAL if every_operator()[op].api.aten])  # an aten op to spy on
def test_several_outputs_take_torch_refuses(op, monkeypatch):
    torch = pytest.importorskip("torch")
    golden = _golden_module(op)
    aten = getattr(torch.ops.aten, every_operator()[op].api.aten)
    seen = set()

    def spy(*args, **kwargs):
        seen.update(a.dtype for a in args if isinstance(a, torch.Tensor))
        return aten(*args, **kwargs)

    class Ops:
        class aten:  # torch's spelling
            pass

    setattr(Ops.aten, every_operator()[op].api.aten, staticmethod(spy))
    monkeypatch.setattr(golden.torch, "ops", Ops, raising=True)
    golden.test_golden("FLOAT")
    assert seen == {torch.float32}  # the CANN golden: aten in float
    seen.clear()
    monkeypatch.setattr(golden, "TORCH_REFUSES", ["FLOAT"])  # aten's float64 result, rounded, is the golden
    golden.test_golden("FLOAT")
    assert seen == {torch.float64}


@pytest.mark.parametrize("op", list(dict.fromkeys([*CHANNELS, *SEVERAL])))  # the per-channel and several bodies
def test_every_golden_body_truncates_integer_scalars(op, monkeypatch):
    golden = _golden_module(op)
    calls = []
    truncate = golden.golden.truncated_scalars
    monkeypatch.setattr(golden.golden, "truncated_scalars", lambda *a: calls.append(a[2]) or truncate(*a))
    golden.test_golden("FLOAT")
    assert calls and set(calls) == {"FLOAT"}
    assert truncate({"alpha": 2.7, "flag": 1.5}, {"alpha": "scalar", "flag": "bool"}, "INT8") == {
        "alpha": 2,
        "flag": 1.5,
    }
    assert truncate({"alpha": 2.7}, {"alpha": "scalar"}, "FLOAT") == {"alpha": 2.7}
