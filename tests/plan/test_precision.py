"""The docs' precision table (opgen.plan.precision): deterministic points that hold the branch boundaries, and
figures that are the generated path's own error."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from opgen.build import check_spec_text
from opgen.plan.precision import sweep_inputs, sweep_scalar_sets
from opgen.spec.dtypes import DType

ROOT = Path(__file__).resolve().parents[2]
LEAKY = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
SLOPES = "negativeSlope: [0.01, 0.0, 0.2, 2.0, -0.3]"


def _plan(slopes: str):  # type: ignore[no-untyped-def]
    assert SLOPES in LEAKY
    return check_spec_text(LEAKY.replace(SLOPES, f"negativeSlope: {slopes}"), "specs/leaky_relu.yaml")


def test_the_points_hold_integers_halves_and_every_special_value() -> None:
    plan = _plan("[0.5]")
    points = sweep_inputs(plan.spec, DType.FLOAT)["self"].astype(np.float64)
    lo, hi = plan.spec.golden.value_range
    for boundary in (lo, -3.0, -0.5, 0.0, 0.5, 3.0, hi):
        assert boundary in points
    assert np.isnan(points).any() and np.isposinf(points).any() and np.isneginf(points).any()
    assert np.signbit(points[points == 0]).any()  # -0.0 too
    again = sweep_inputs(plan.spec, DType.FLOAT)["self"]
    np.testing.assert_array_equal(points, again.astype(np.float64))  # deterministic


def test_an_exact_path_measures_no_error() -> None:
    """x * 0.5 is exact in every dtype, and 0.5 survives the float32 attribute: nothing to report."""
    for row in _plan("[0.5]").precision:
        assert (row.max_abs_error, row.max_rel_error, row.max_ulp_error, row.special_mismatches) == (0, 0, 0, 0)
        assert row.fail_ratio == 0


def test_the_float32_attribute_shows_in_double() -> None:
    """aclnnLeakyRelu hands the slope to the kernel as a float32 attribute: in DOUBLE that rounding is the error."""
    row = next(r for r in _plan("[0.01]").precision if r.dtype is DType.DOUBLE)
    expected = abs(float(np.float32(0.01)) - 0.01) / 0.01
    assert np.isclose(row.max_rel_error, expected, rtol=1e-6)
    assert row.max_ulp_error > 1e6


def test_rejected_scalar_values_are_not_measured() -> None:
    text = (ROOT / "specs" / "leaky_relu_grad.yaml").read_text(encoding="utf-8")
    plan = check_spec_text(text, "specs/leaky_relu_grad.yaml", ROOT / "specs")
    sets = sweep_scalar_sets(plan.spec)
    assert sets and not any(s["selfIsResult"] and s["negativeSlope"] < 0 for s in sets)


def test_special_values_beyond_a_dtypes_range_round_to_inf_without_numpy_warnings():
    """Before: `RuntimeWarning: overflow encountered in cast` from the precision sweep and the C++ test cases, for a
    special value (3e38, 70000) that FLOAT16 stores as inf."""
    import warnings

    from opgen.build import render_operator

    spec = (ROOT / "specs" / "sigmoid.yaml").read_text(encoding="utf-8")
    text = spec.replace("  special_values: [", "  special_values: [70000.0, 3.0e+38, ", 1)
    assert text != spec
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        plan = check_spec_text(text, "sigmoid.yaml")
        render_operator(plan)


def test_a_half_splits_dim_is_measured_along_the_points_once() -> None:
    """The points of a half-split operator are 1-d (its halves joined along SPLIT_DIM): every measured scalar set
    takes that dim, once. Before: the sets took dim's golden values ([-1, 0, 1]), measured three times as the same
    set (`3组标量取值` in the docs), and a binding called with them (tests/e2e/test_precision_table.py) was refused
    for dim = 1 on a 1-d self."""
    from opgen.plan.precision import SPLIT_DIM

    plan = check_spec_text((ROOT / "specs" / "glu.yaml").read_text(encoding="utf-8"), "specs/glu.yaml")
    assert len(plan.spec.golden.scalar_values["dim"]) > 1
    assert sweep_scalar_sets(plan.spec) == [{"dim": SPLIT_DIM}]
    assert {row.scalar_sets for row in plan.precision} == {1}
