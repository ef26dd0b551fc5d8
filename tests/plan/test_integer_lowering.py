"""Integer dtypes on AI Core: how each is computed (natively, or through a floating type with a truncating Cast
back), the tiling key, and the numpy model of the integer path against independent computations."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from opgen import formula as F
from opgen.build import check_spec_text
from opgen.emit.docs import render_docs
from opgen.emit.kernel import compute_lines
from opgen.plan.aclnn_path import aclnn_output, compute_dtype, truncated_to_integer
from opgen.plan.cases import first_failing_row, valid_call
from opgen.plan.kernel import integer_compute_dtype, kernel_plan
from opgen.plan.kernel_model import run_program
from opgen.plan.lowering import lower
from opgen.plan.operator import plan_operator
from opgen.spec.checks import cpp_result_dtype
from opgen.spec.diagnostics import SpecError
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.loader import load_spec, load_spec_documents

ROOT = Path(__file__).resolve().parents[2]


def _relu():
    return load_spec_documents(ROOT / "specs" / "relu.yaml")[0].spec


def _hard_sigmoid():
    return load_spec(ROOT / "specs" / "hard_sigmoid.yaml").spec


def test_relu_int32_is_one_maxs_in_int32():
    plan = kernel_plan(_relu())
    variant = plan.variant(DType.INT32, {})
    assert variant.compute is DType.INT32
    assert [i.api for i in variant.program.instrs] == ["Maxs"]
    assert not variant.program.temps
    assert variant.key // 10 != plan.variant(DType.FLOAT, {}).key // 10  # a dtype digit of its own


@pytest.mark.parametrize("storage", [DType.INT8, DType.UINT8])
def test_relu_int8_goes_through_float16_and_back_with_truncation(storage):
    variant = kernel_plan(_relu()).variant(storage, {})
    assert variant.compute is DType.FLOAT16  # the vector unit converts int8/uint8 only to and from half
    instrs = variant.program.instrs
    assert [(i.api, i.mode) for i in instrs] == [("Cast", "CAST_NONE"), ("Maxs", None), ("Cast", "CAST_TRUNC")]


def test_a_non_linear_formula_computes_int32_in_float_and_truncates():
    variant = kernel_plan(_hard_sigmoid()).variant(DType.INT32, {})
    assert variant.compute is DType.FLOAT
    first, last = variant.program.instrs[0], variant.program.instrs[-1]
    assert (first.api, first.mode, last.api, last.mode) == ("Cast", "CAST_NONE", "Cast", "CAST_TRUNC")
    x = np.array([-(2**31), -4, -3, -1, 0, 1, 2, 3, 4, 2**31 - 1], np.int32)
    got = run_program(variant.program, {"self": x}, {})
    # hardsigmoid of an integer, truncated toward zero: 1 from 3 on, 0 below
    assert got.dtype == np.int32 and got.tolist() == [1 if v >= 3 else 0 for v in x.tolist()]


def test_int8_with_arithmetic_goes_to_float_through_float16_and_truncates():
    # the vector unit converts int8 only to and from half: float is reached and left through a half carrier
    expr = F.parse("self * 1.5 - 0.25", {"self": F.Symbol.tensor()})
    assert integer_compute_dtype(_relu(), DType.INT8, expr) is DType.FLOAT
    program = lower(expr, inputs=["self"], storage=DType.INT8, compute=DType.FLOAT)
    casts = [(i.dst.dtype, i.mode) for i in program.instrs if i.api == "Cast"]
    assert casts == [
        (DType.FLOAT16, "CAST_NONE"),
        (DType.FLOAT, "CAST_NONE"),
        (DType.FLOAT16, "CAST_TRUNC"),
        (DType.INT8, "CAST_TRUNC"),
    ]
    assert all(i.distinct_dst for i in program.instrs[:2])  # a widening Cast never runs in place
    x = np.arange(-128, 128, dtype=np.int8)
    got = run_program(program, {"self": x}, {})
    want = np.clip(np.trunc(x.astype(np.float64) * 1.5 - 0.25), -128, 127).astype(np.int8)
    assert got.tolist() == want.tolist()


def test_integer_arithmetic_in_the_model_is_exact_beyond_float_precision():
    # 2**24 + 1 is not a float32: integer Adds/Maxs must not go through float
    symbols = {"x": F.Symbol.tensor()}
    program = lower(F.parse("max(x + 1, -5)", symbols), inputs=["x"], storage=DType.INT32, compute=DType.INT32)
    x = np.array([2**24, 2**30 + 1, -7, 2**31 - 1], np.int32)
    got = run_program(program, {"x": x}, {})
    with np.errstate(over="ignore"):
        want = np.maximum(x + np.int32(1), np.int32(-5))  # numpy's int32 arithmetic wraps like the vector unit
    assert got.tolist() == want.tolist()


def test_aclnn_path_keeps_int32_values_exact():
    spec = _relu()
    x = np.array([2**31 - 1, 2**24 + 1, -(2**31), 16777217, -3], np.int32)
    got = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": DType.INT32}, {}, DType.INT32)
    assert got.tolist() == np.maximum(x, 0).tolist()


def _hard_sigmoid_text(dtypes: str, extra: str = "") -> str:
    text = (ROOT / "specs" / "hard_sigmoid.yaml").read_text(encoding="utf-8")
    text = text.replace("dtypes: [FLOAT, FLOAT16, BFLOAT16, INT32]", f"dtypes: [{dtypes}]")
    return text.replace("\nparams:\n", f"\n{extra}params:\n", 1)


def test_int64_is_refused_without_a_kernel_to_run_it():
    # A2/A3 have no int64 vector arithmetic and the kernel source is one for every SoC; the AICPU kernel computes
    # INT64 in int64 itself, which hard_sigmoid's division cannot be, so routing INT64 there is refused too, at the
    # routed dtype's line
    with pytest.raises(SpecError) as info:
        check_spec_text(_hard_sigmoid_text("FLOAT, INT32, INT64"), "specs/hard_sigmoid.yaml")
    assert "INT64 has no AI Core kernel" in str(info.value.diagnostics)
    routed = _hard_sigmoid_text("FLOAT, INT32, INT64", "routing: {aicpu: [INT64]}\n\n")
    with pytest.raises(SpecError) as info:
        check_spec_text(routed, "specs/hard_sigmoid.yaml")
    (problem,) = [d for d in info.value.diagnostics if d.path == ("routing", "aicpu", 0)]
    assert "'/' has no exact integer meaning" in problem.message
    assert str(problem).startswith("specs/hard_sigmoid.yaml:")


def test_uint16_is_not_an_aicpu_dtype():
    routed = _hard_sigmoid_text("FLOAT, INT32, UINT16", "routing: {aicpu: [UINT16]}\n\n")
    with pytest.raises(SpecError) as info:
        check_spec_text(routed, "specs/hard_sigmoid.yaml")
    assert "the AICPU kernel takes DOUBLE/INT8/UINT8/INT16/INT32/INT64/COMPLEX64/COMPLEX128 tensors, not UINT16" in str(
        info.value.diagnostics
    )


def test_routed_integers_are_modelled_in_the_integer_itself():
    # AddRelu INT8 on the AICPU kernel: the sum wraps modulo 2**8 before the relu (127 + 2 * 1 is -127, so 0), where a
    # float model would give 129 saturated to 127
    spec = load_spec_documents(ROOT / "specs" / "relu.yaml")[1].spec
    x, y = np.array([127, -128, 100, 3], np.int8), np.array([1, -1, 14, -1], np.int8)
    dtypes = {"self": DType.INT8, "other": DType.INT8}
    got = aclnn_output(spec, kernel_plan(spec), {"self": x, "other": y}, dtypes, {"alpha": 2.0}, DType.INT8)
    wrapped = [(int(a) + 2 * int(b) + 128) % 256 - 128 for a, b in zip(x, y, strict=True)]
    assert got.tolist() == [max(v, 0) for v in wrapped]
    assert got.tolist() != np.clip(np.maximum(x.astype(float) + 2 * y, 0), -128, 127).astype(np.int8).tolist()


def test_the_docs_say_where_integer_results_are_truncated():
    hard_sigmoid = plan_operator(_hard_sigmoid(), "specs/hard_sigmoid.yaml")
    assert hard_sigmoid.kernel.variant(DType.INT32, {}).truncates
    readme = render_docs(hard_sigmoid, "", "examples/x.cpp")["README.md"]
    assert "self为INT32时，在FLOAT中计算，结果向零截断为INT32。" in readme
    relu = plan_operator(_relu(), "specs/relu.yaml")  # INT8 through FLOAT16 is exact: nothing to say
    assert not any(v.truncates for v in relu.kernel.variants)
    assert "截断" not in render_docs(relu, "", "examples/x.cpp")["README.md"]


def test_scalars_meet_an_integer_tensor_truncated_to_integers():
    # ops-nn converts threshold and value to tensors of self's dtype (torch converts them too): -0.5 -> 0, -1.5 -> -1
    spec = load_spec(ROOT / "specs" / "threshold.yaml").spec
    x = np.array([-128, -1, 0, 1, 2, 127], np.int8)
    scalars = {"threshold": -0.5, "value": -1.5}
    want = np.where(x > 0, x, -1).astype(np.int8)
    got = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": DType.INT8}, scalars, DType.INT8)
    assert got.tolist() == want.tolist()
    reference = evaluate_reference(spec, {"self": x, **scalars}, None)
    assert reference.tolist() == want.tolist()


def test_a_float16_carrier_is_a_view_of_a_float_temporary_with_barriers_around_it():
    spec = load_spec(ROOT / "specs" / "selu.yaml").spec
    variant = kernel_plan(spec).variant(DType.INT8, {})
    lines = compute_lines(variant)
    first, barrier, second = lines[:3]
    assert (
        first.startswith("Cast(tmp") and ".template ReinterpretCast<half>(), selfLocal, RoundMode::CAST_NONE" in first
    )
    # the float Cast reads the half view: one UB region, so the V pipe must finish the first Cast
    assert barrier == "PipeBarrier<PIPE_V>();" and "ReinterpretCast<half>(), RoundMode::CAST_NONE" in second
    assert lines[-1].startswith("Cast(outLocal, tmp") and lines[-1].endswith("RoundMode::CAST_TRUNC, len);")


def _add_relu():
    return load_spec_documents(ROOT / "specs" / "relu.yaml")[1].spec


def test_add_relu_int16_wraps_like_integer_arithmetic():
    # Muls, Add and Maxs in int16 itself: an overflowing sum wraps before the relu, as the code's integer Add and
    # torch's add do (numpy's int16 arithmetic is the independent model)
    spec = _add_relu()
    variant = kernel_plan(spec).variant(DType.INT16, {})
    assert variant.compute is DType.INT16 and {i.api for i in variant.program.instrs} == {"Muls", "Add", "Maxs"}
    info = np.iinfo(np.int16)
    a = np.array([info.max, info.min, 100, -7, 3, 0], np.int16)
    b = np.array([info.max, -1, -60, 2, -2, info.min], np.int16)
    dtypes = {"self": DType.INT16, "other": DType.INT16}
    got = aclnn_output(spec, kernel_plan(spec), {"self": a, "other": b}, dtypes, {"alpha": 2.9}, DType.INT16)
    with np.errstate(over="ignore"):
        want = np.maximum(a + np.int16(2) * b, np.int16(0))  # alpha reaches the kernel truncated to 2
    assert got.tolist() == want.tolist()


def test_alpha_must_cast_to_the_promoted_dtype():
    spec = _add_relu()
    row = next(i for i, r in enumerate(spec.errors) if r.check.kind == "scalars_castable")
    integer = valid_call(spec, DType.INT32).args
    assert integer["alpha"].dtype is DType.INT64 and first_failing_row(spec, integer) is None
    floating_alpha = {**integer, "alpha": replace(integer["alpha"], dtype=DType.FLOAT, value=2.5)}
    assert first_failing_row(spec, floating_alpha) == row  # torch and ops-nn refuse it too
    mixed = {**floating_alpha, "other": replace(integer["other"], dtype=DType.FLOAT)}  # promotes to FLOAT
    assert spec.errors[row].check.fails(spec, mixed, (), "ascend910b") is False


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.9, 2.0), (-2.9, -2.0), (-0.5, 0.0), (float("nan"), 0.0), (1e30, 9.2e18), (-1e30, -9.2e18)],
)
def test_scalars_for_integer_tensors_are_truncated_without_undefined_conversions(value, expected):
    # the op_api's TruncatedToInteger and its model: a float-to-int64 conversion of NaN or of a value beyond int64
    # would be undefined in C++
    assert truncated_to_integer(value) == float(np.float32(expected))


def _erfinv():
    return load_spec(ROOT / "specs" / "erfinv.yaml").spec


def test_integers_as_float_casts_integer_inputs_before_the_kernel():
    # ops-nn's Erfinv: integer self is cast to FLOAT by the op_api; the kernel has no integer variant, the result is
    # FLOAT, so out must be castable from FLOAT (an INT32 out is refused)
    spec = _erfinv()
    plan = kernel_plan(spec)
    assert {v.storage for v in plan.variants} == {DType.FLOAT, DType.FLOAT16, DType.BFLOAT16}
    x = np.array([-(2**31), -1, 0, 1, 2], np.int32)
    got = aclnn_output(spec, plan, {"self": x}, {"self": DType.INT32}, {}, DType.FLOAT)
    with np.errstate(invalid="ignore"):
        want = np.array([np.nan, -np.inf, 0.0, np.inf, np.nan], np.float32)  # erfinv at and beyond +-1
    np.testing.assert_array_equal(got, want)
    call = valid_call(spec, DType.INT64)
    assert call.args["out"].dtype is DType.FLOAT and first_failing_row(spec, call.args) is None
    integer_out = {**call.args, "out": replace(call.args["out"], dtype=DType.INT64)}
    row = next(i for i, r in enumerate(spec.errors) if r.check.kind == "castable")
    assert first_failing_row(spec, integer_out) == row
    readme = render_docs(plan_operator(spec, "specs/erfinv.yaml"), "", "examples/x.cpp")["README.md"]
    assert "self为INT8、INT16、INT32、INT64、UINT8、BOOL时，先转换为FLOAT再计算，结果的数据类型为FLOAT。" in readme


def test_integers_as_must_be_a_floating_ai_core_dtype():
    text = (
        (ROOT / "specs" / "erfinv.yaml").read_text(encoding="utf-8").replace("integers_as: FLOAT", "integers_as: INT32")
    )
    with pytest.raises(SpecError) as info:
        check_spec_text(text, "specs/erfinv.yaml")
    assert "INT32 is not a floating AI Core dtype" in str(info.value.diagnostics)


def test_an_integer_input_counts_as_float_in_the_promotion():
    # SoftplusBackward: FLOAT16 gradOutput with INT32 self computes in FLOAT (torch's promotion would say FLOAT16;
    # ops-nn casts the integer self to FLOAT first), in the model and in the generated C++
    spec = load_spec(ROOT / "specs" / "softplus_v2_grad.yaml").spec
    assert compute_dtype(spec, {"gradOutput": DType.FLOAT16, "self": DType.INT32}) is DType.FLOAT
    assert compute_dtype(spec, {"gradOutput": DType.FLOAT16, "self": DType.FLOAT16}) is DType.FLOAT16
    cpp = cpp_result_dtype(spec, ["gradOutput", "self"])
    assert (
        cpp.startswith("PromoteType(") and "IsIntegralType(self->GetDataType(), true) ? op::DataType::DT_FLOAT" in cpp
    )


def test_scalars_meet_an_unsigned_tensor_wrapped_into_its_range():
    # torch and ops-nn convert the scalar to self's dtype as C++ does: value -1 meets a UINT8 tensor as 255
    spec = load_spec(ROOT / "specs" / "threshold.yaml").spec
    x = np.array([0, 1, 2, 200, 255], np.uint8)
    scalars = {"threshold": 1.0, "value": -1.5}
    want = np.where(x > 1, x, 255).astype(np.uint8)
    got = aclnn_output(spec, kernel_plan(spec), {"self": x}, {"self": DType.UINT8}, scalars, DType.UINT8)
    assert got.tolist() == want.tolist()
    assert evaluate_reference(spec, {"self": x, **scalars}, None).tolist() == want.tolist()
    assert truncated_to_integer(-300.5, DType.INT8) == -44.0 and truncated_to_integer(-1.0, DType.UINT8) == 255.0


def test_complex_routing_needs_a_formula_with_a_complex_meaning():
    # hard_sigmoid's min/max have no complex meaning: refused at the routed dtype's line, as ops-nn's AICPU kernel
    # could not compute it the way torch does
    routed = _hard_sigmoid_text("FLOAT, INT32, COMPLEX64", "routing: {aicpu: [COMPLEX64]}\n\n")
    with pytest.raises(SpecError) as info:
        check_spec_text(routed, "specs/hard_sigmoid.yaml")
    (problem,) = [d for d in info.value.diagnostics if d.path == ("routing", "aicpu", 0)]
    assert "computes COMPLEX64 on complex values" in problem.message and "has no complex meaning" in problem.message
    assert str(problem).startswith("specs/hard_sigmoid.yaml:")
