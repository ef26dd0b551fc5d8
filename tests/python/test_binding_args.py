"""The generated Python bindings take their arguments strictly and can be called from several threads.

Before: `bool(flag)` took the string 'False' as True; a complex scalar reached the API with its imaginary
part dropped; four threads calling one binding got a spurious AclnnError 561000 in about one call in ten.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytestmark = pytest.mark.cxx  # the first call builds the twin library

opgen_ops = pytest.importorskip("opgen_ops")


def _elu_args():
    grad = np.linspace(-1, 1, 8, dtype=np.float32)
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    return grad, x


@pytest.mark.parametrize("flag", ["False", "True", 0, 1, None, np.float32(1)])
def test_a_bool_parameter_takes_only_bools(flag) -> None:
    grad, x = _elu_args()
    with pytest.raises(TypeError, match="expected a bool"):
        opgen_ops.elu_backward(grad, 1.0, 1.0, 1.0, flag, x)


def test_numpy_bools_are_bools() -> None:
    grad, x = _elu_args()
    expected = opgen_ops.elu_backward(grad, 1.0, 1.0, 1.0, False, x)
    np.testing.assert_array_equal(opgen_ops.elu_backward(grad, 1.0, 1.0, 1.0, np.bool_(False), x), expected)


@pytest.mark.parametrize("value", ["0.1", [0.1], {"a": 1}, b"x"])
def test_a_scalar_parameter_takes_only_numbers(value) -> None:
    with pytest.raises(TypeError, match="expected a number"):
        opgen_ops.leaky_relu(np.ones(4, np.float32), value)


def test_a_complex_scalar_is_not_truncated_to_its_real_part() -> None:
    """negativeSlope is a real (FLOAT) scalar: like aten, a complex value is refused unless its imaginary part
    is zero, never silently truncated."""
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    with pytest.raises(ValueError, match="imaginary"):
        opgen_ops.leaky_relu(x, 0.5 + 2j)
    np.testing.assert_array_equal(opgen_ops.leaky_relu(x, 0.5 + 0j), opgen_ops.leaky_relu(x, 0.5))


def test_concurrent_calls_from_four_threads() -> None:
    x = np.linspace(-3, 3, 257, dtype=np.float32)
    expected = opgen_ops.leaky_relu(x, 0.25)
    errors: list[BaseException] = []
    mismatches = []

    def worker() -> None:
        try:
            for _ in range(25):
                got = opgen_ops.leaky_relu(x, 0.25)
                if not np.array_equal(got, expected):
                    mismatches.append(got)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors[:3]
    assert not mismatches


@pytest.mark.parametrize("slope", [float("nan"), float("inf"), -float("inf")])
def test_ai_core_and_aicpu_paths_agree_with_ieee_for_a_non_finite_slope(slope: float) -> None:
    """float32 runs the AI Core kernel, float64 the AICPU one: both give 0 * slope at x = +0, like torch."""
    x64 = np.array([0.0, -0.0, 2.0, -3.0, np.nan], np.float64)
    with np.errstate(all="ignore"):
        want = np.where(x64 > 0, x64, x64 * slope)
    for dtype in (np.float32, np.float64):
        got = opgen_ops.leaky_relu(x64.astype(dtype), slope).astype(np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=str(dtype))
        np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)], err_msg=str(dtype))


@pytest.mark.parametrize("value", [True, np.bool_(True), 1.0, "1", None, 2**63])
def test_an_int64_argument_takes_only_integers(value) -> None:
    from opgen_ops import _runtime as rt

    with pytest.raises((TypeError, OverflowError)):
        rt.Int(value)
    assert rt.Int(np.int32(-3)).value == -3 and rt.Int(2**63 - 1).value == 2**63 - 1


@pytest.mark.parametrize("value", [b"tanh", 1, ["tanh"], "ta\0nh"])
def test_a_string_argument_takes_only_str(value) -> None:
    from opgen_ops import _runtime as rt

    with pytest.raises((TypeError, ValueError)):
        rt.String(value)
    assert rt.String(None).value is None  # a null pointer, for the API's not_null row
    assert rt.String("tanh").value.value == b"tanh"
