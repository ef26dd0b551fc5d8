"""Each spec's numpy reference (parsed formula, float64 inside, rounded once) agrees with PyTorch's aten op.

Random values over the spec's golden range plus the special values (±0, ±inf, nan) and the branch point,
for every dtype the op accepts, and every scalar/mode value the spec's golden settings list.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from spec_list import SPEC_DIR, loaded
from support.floats import ulp_error

from opgen.plan.cases import Call, negative_calls
from opgen.plan.operator import binding_result_index
from opgen.spec.channel_broadcast import pointwise
from opgen.spec.dtypes import DType, wrap_integer
from opgen.spec.formula_binding import derive_inputs, differs_from_torch, evaluate_reference
from opgen.spec.half_split import join_halves
from opgen.spec.loader import load_spec, load_spec_text
from opgen.spec.model import Direction, OpSpec, ParamKind

torch = pytest.importorskip("torch")

TORCH_DTYPE = {
    DType.FLOAT: torch.float32,
    DType.FLOAT16: torch.float16,
    DType.BFLOAT16: torch.bfloat16,
    DType.DOUBLE: torch.float64,
}


def to_torch(array: np.ndarray, dtype: DType) -> torch.Tensor:
    if dtype is DType.BFLOAT16:
        return torch.from_numpy(array.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(array.astype(dtype.numpy))


def from_torch(tensor: torch.Tensor, dtype: DType) -> np.ndarray:
    if dtype is DType.BFLOAT16:
        return tensor.to(torch.float32).numpy().astype(ml_dtypes.bfloat16)
    return tensor.numpy()


# a half split's points: each half and each half-size input in this shape, the halves joined along each dim tried
SPLIT_HALF = (5, 126)


def inputs(spec: OpSpec, dtype: DType, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The points, one array per tensor input; a half split's one per half and half-size input (`for_call`)."""
    lo, hi = spec.golden.value_range
    special = np.array([float(v) for v in spec.golden.special_values] + [0.0, -0.0], dtype=np.float64)
    names = [p.name for p in spec.tensor_inputs]
    if spec.split is not None:  # the halves meet point by point
        names = [*spec.split.halves, *(n for n in names if n != spec.split.tensor)]
    values = {}
    for name in names:
        random = rng.uniform(lo, hi, size=509)
        # every special value meets every other one across the inputs: tile one input, repeat the other
        pattern = np.tile(special, len(special)) if len(values) % 2 == 0 else np.repeat(special, len(special))
        data = np.concatenate([pattern, random]).astype(dtype.numpy)
        values[name] = data
    if spec.split is not None:
        return values
    # the inputs the spec derives from the others (golden.derived_inputs), e.g. the buffer a forward op hands over
    values = derive_inputs(spec, values, dtype.numpy)
    return pointwise(values, [p.name for p in spec.tensor_inputs if p.shape.channel_of])


def for_call(spec: OpSpec, points: dict[str, np.ndarray], scalars: dict) -> dict[str, np.ndarray]:
    """The tensor inputs of a call with these scalars: the points, or a half split's halves (each SPLIT_HALF) joined
    along the call's dim into the split tensor."""
    if spec.split is None:
        return points
    half = {name: values.reshape(SPLIT_HALF) for name, values in points.items()}
    first, second = (half.pop(name) for name in spec.split.halves)
    joined = {spec.split.tensor: join_halves(first, second, spec.split_dim(scalars)), **half}
    return derive_inputs(spec, joined, next(iter(points.values())).dtype)


def magnitude(spec: OpSpec, points: dict[str, np.ndarray], scalars: dict, shape: tuple[int, ...]) -> np.ndarray:
    """The largest finite input magnitude meeting each element of an output of `shape` (at least 1)."""
    scale = np.ones(SPLIT_HALF if spec.split is not None else shape)
    for value in points.values():
        value = value.reshape(SPLIT_HALF) if spec.split is not None else value
        scale = np.maximum(scale, np.nan_to_num(np.abs(np.broadcast_to(value, scale.shape)), posinf=0.0))
    if scale.shape != shape:  # a half split's full-size output: each half meets the same points
        scale = join_halves(scale, scale, spec.split_dim(scalars))
    return scale


def scalar_cases(spec: OpSpec) -> list[dict[str, float | bool]]:
    names = [p.name for p in spec.params if p.kind is not ParamKind.TENSOR]
    options = [spec.golden.scalar_values.get(n, [spec.example.scalars[n]]) for n in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*options)]


def aten_call(spec: OpSpec, tensors: dict, scalars: dict):
    """The spec's aten op with the API's inputs in the spec's order (the binding's, named and ordered like aten)."""
    inputs = [p for p in spec.params if p.direction is Direction.INPUT]
    value = {p.name: tensors[p.name] if p.kind is ParamKind.TENSOR else scalars[p.name] for p in inputs}
    args = [value[p.name] for p in inputs if not p.keyword_only]
    kwargs = {p.python: value[p.name] for p in inputs if p.keyword_only}  # aten's keyword-only, as the binding's
    result = getattr(torch.ops.aten, spec.api.aten)(*args, **kwargs)
    index = binding_result_index(spec)  # aten returning several tensors: the computed one
    return result if index is None else result[index]


# every operator of every spec file (a directory's later ones too, e.g. aclnnLogSigmoidForward), by file stem
SPECS = {spec.operator.file_stem: spec for _, spec in loaded()}


def spec_of(name: str) -> OpSpec:
    return SPECS[name]


def rejected(spec: OpSpec, scalars: dict) -> bool:
    """Values the API refuses by an error-table row over parameter values (aten refuses them too, below)."""
    return any(row.check.kind == "reject_if" and row.check.rejects(spec, scalars) for row in spec.errors)


CASES = [
    (name, dtype)
    for name, spec in SPECS.items()
    if spec.api.aten and hasattr(torch.ops.aten, spec.api.aten)
    for dtype in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE)
    if dtype in spec.tensor_inputs[0].dtypes
]


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{d.value}" for n, d in CASES])
def test_reference_agrees_with_aten(name, dtype):
    check_against_aten(spec_of(name), dtype)


def rounds_each_step(spec: OpSpec) -> tuple[DType, ...]:
    """The 16-bit dtypes aten's CPU kernel rounds each step in (golden.aten_rounds_each_step)."""
    declared = spec.golden.aten_rounds_each_step
    return tuple(declared.dtypes) if declared is not None else ()


def check_against_aten(spec: OpSpec, dtype: DType) -> None:
    """The reference agrees with aten in float64, and aten in the dtype meets the spec's standard against it."""
    rng = np.random.default_rng(20261122)
    points = inputs(spec, dtype, rng)
    checked = 0
    for scalars in scalar_cases(spec):
        if rejected(spec, scalars):
            continue
        tensors = for_call(spec, points, scalars)
        ours = evaluate_reference(spec, {**tensors, **scalars}, dtype.numpy)
        # everywhere except where the spec declares that ops-nn differs from torch (golden.differs_from_torch)
        kept = ~differs_from_torch(spec, {**tensors, **scalars}, ours.shape)
        ours64 = ours.astype(np.float64)[kept]
        # 1. the same math at the same (higher) precision: aten in float64 on the same inputs, rounded once
        # (an input derived from the others, golden.derived_inputs, derived anew at that precision)
        widened = derive_inputs(spec, {k: v.astype(np.float64) for k, v in tensors.items()}, np.float64)
        wide = {k: torch.from_numpy(v) for k, v in widened.items()}
        with np.errstate(over="ignore"):  # rounded once into the dtype: beyond its range that is inf, as the kernel's
            theirs_wide = aten_call(spec, wide, scalars).numpy().astype(dtype.numpy).astype(np.float64)[kept]
        assert np.array_equal(np.isnan(ours64), np.isnan(theirs_wide)), f"nan positions differ for {scalars}"
        finite = ~np.isnan(ours64)
        assert np.array_equal(ours64[~np.isfinite(ours64) & finite], theirs_wide[~np.isfinite(ours64) & finite])
        # one rounding into the dtype: at most 1 ulp apart; in DOUBLE nothing rounds the float64 results again, so
        # the two evaluation orders (e.g. g * y * (1 - y) and g * (1 - y) * y) may differ by a few ulps
        ulps = ulp_error(ours64[finite], theirs_wide[finite], dtype)
        # ...except where a result is tiny against its inputs: there a float64 evaluation cancels (1 + tanh(u) for
        # u near -17 keeps two digits), so either side may be off by far more than a float32 ulp; both must still
        # be within a few float64 ulps of the inputs' magnitude
        scale = magnitude(spec, points, scalars, ours.shape)
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity: ulps says equal
            cancels = np.abs(ours64[finite] - theirs_wide[finite]) <= 2.0**-40 * scale[kept][finite]
        assert ((ulps <= (8.0 if dtype is DType.DOUBLE else 1.0)) | cancels).all(), "more than one rounding apart"
        # 2. aten in the tensor's own dtype (float32 compute) meets the spec's precision standard; where aten's CPU
        # kernel rounds every step to a 16-bit dtype (golden.aten_rounds_each_step), aten over the rounded inputs in
        # float
        native_inputs = {k: to_torch(v, dtype) for k, v in tensors.items()}
        if dtype in rounds_each_step(spec):
            in_float = aten_call(spec, {k: v.float() for k, v in native_inputs.items()}, scalars)
            native = from_torch(in_float.to(native_inputs[spec.tensor_inputs[0].name].dtype), dtype)
        else:
            native = from_torch(aten_call(spec, native_inputs, scalars), dtype)
        native = native.astype(np.float64)[kept]
        assert np.array_equal(np.isnan(native), np.isnan(ours64)), f"nan positions differ for {scalars}"
        tol = spec.golden.tolerance[dtype]
        o, t = ours64[finite], native[finite]
        close = np.isclose(o, t, rtol=tol.rtol, atol=tol.atol) | (o == t)
        if spec.golden.derived_inputs:
            # torch in the dtype reads the derived inputs rounded to it (log_sigmoid_backward's buffer, which ops-nn
            # does not read): one rounding more, so one ulp more in BFLOAT16, whose standard is below one ulp
            close |= ulp_error(o, t, dtype) <= 1.0
        assert close.all(), (scalars, o[~close], t[~close])
        checked += 1
    assert checked >= min(2, len(scalar_cases(spec)))  # every accepted case (at least two where there are)


ROUNDING = [(name, dtype) for name, spec in SPECS.items() for dtype in rounds_each_step(spec)]


@pytest.mark.parametrize("name,dtype", ROUNDING, ids=[f"{n}-{d.value}" for n, d in ROUNDING])
def test_aten_rounds_each_step(name, dtype):
    """golden.aten_rounds_each_step is a fact about aten, not a blind spot: in that dtype aten's result misses the
    standard at some points where aten computed in float over the same rounded inputs does not."""
    spec = spec_of(name)
    points = inputs(spec, dtype, np.random.default_rng(20261127))
    (scalars, *_) = [s for s in scalar_cases(spec) if not rejected(spec, s)]
    tensors = {k: to_torch(v, dtype) for k, v in for_call(spec, points, scalars).items()}
    exact = aten_call(spec, {k: v.double() for k, v in tensors.items()}, scalars).numpy()
    tol = spec.golden.tolerance[dtype]
    native = aten_call(spec, tensors, scalars).double().numpy()
    in_float = aten_call(spec, {k: v.float() for k, v in tensors.items()}, scalars)
    in_float = in_float.to(TORCH_DTYPE[dtype]).double().numpy()
    finite = np.isfinite(exact)
    assert not np.isclose(native, exact, rtol=tol.rtol, atol=tol.atol)[finite].all(), spec.golden.aten_rounds_each_step
    assert np.isclose(in_float, exact, rtol=tol.rtol, atol=tol.atol)[finite].all()


ROUNDS_FIELD = (
    "  aten_rounds_each_step:\n"
    "    dtypes: [FLOAT16, BFLOAT16]\n"
    "    note: glu_backward rounds sigmoid(b) and each product to the 16-bit dtype\n"
)


def _user_copy_of_glu_grad(folder: Path, declared: bool) -> OpSpec:
    """glu_grad.yaml as a user's own operator (another OpType, directory and API over the same aten op), with or
    without golden.aten_rounds_each_step; glu.yaml beside it for its derivative_of."""
    shutil.copy(SPEC_DIR / "glu.yaml", folder / "glu.yaml")
    text = (SPEC_DIR / "glu_grad.yaml").read_text(encoding="utf-8")
    assert ROUNDS_FIELD in text  # the shipped spec changed: update the copy
    for old, new in (
        ("type: GLUGrad", "type: MyGluGrad"),
        ("dir: glu_grad", "dir: my_glu_grad"),
        ("name: aclnnGluBackward", "name: aclnnMyGluBackward"),
        (ROUNDS_FIELD, ROUNDS_FIELD if declared else ""),
    ):
        assert old in text, old
        text = text.replace(old, new)
    path = folder / "my_glu_grad.yaml"
    path.write_text(text, encoding="utf-8")
    return load_spec(path).spec


@pytest.mark.parametrize("dtype", [DType.FLOAT16, DType.BFLOAT16], ids=lambda d: d.value)
def test_a_new_spec_declaring_that_aten_rounds_each_step_needs_no_test_side_list(tmp_path, dtype):
    """The comparison with aten follows the spec's field, whatever the operator is called: a user's copy of glu_grad
    under another name passes with the field, and fails without it (aten's own 16-bit result misses the standard)."""
    spec = _user_copy_of_glu_grad(tmp_path, declared=True)
    assert spec.operator.file_stem not in SPECS
    check_against_aten(spec, dtype)
    undeclared = _user_copy_of_glu_grad(tmp_path, declared=False)
    with pytest.raises(AssertionError):
        check_against_aten(undeclared, dtype)


def _scalar_rows(specs: dict[str, OpSpec]) -> list[tuple[str, Call]]:
    """The negative calls of the error rows over parameter values (reject_if) that aten is asked about."""
    return [
        (name, call)
        for name, spec in specs.items()
        # PyTorch checks scalar arguments in the forward op only (softshrink_backward takes a negative lambd that
        # softshrink refuses), so backward specs are not asked for it
        if spec.api.aten and hasattr(torch.ops.aten, spec.api.aten) and spec.derivative_of is None
        for call in negative_calls(spec)
        if spec.errors[call.row].check.kind == "reject_if"
    ]


# a row the spec says aten takes (errors[].aten_accepts, with the reason) is checked to be taken, any other refused
_SCALAR_ROWS = _scalar_rows(SPECS)
REJECTED = [(name, call) for name, call in _SCALAR_ROWS if SPECS[name].errors[call.row].aten_accepts is None]
ACCEPTED = [(name, call) for name, call in _SCALAR_ROWS if SPECS[name].errors[call.row].aten_accepts is not None]


def call_aten_like(spec: OpSpec, call: Call):
    """aten called with a negative call's values (each tensor three ones)."""
    values = {n: (torch.ones(3) if a.kind == "tensor" else a.value) for n, a in call.args.items() if a.kind != "null"}
    tensors = {n: v for n, v in values.items() if isinstance(v, torch.Tensor)}
    return aten_call(spec, tensors, values)


@pytest.mark.parametrize("name,call", REJECTED, ids=[f"{n}-{c.name}" for n, c in REJECTED])
def test_aten_refuses_what_the_error_table_rejects(name, call):
    with pytest.raises(RuntimeError):
        call_aten_like(spec_of(name), call)


@pytest.mark.parametrize("name,call", ACCEPTED, ids=[f"{n}-{c.name}" for n, c in ACCEPTED])
def test_aten_still_accepts_what_the_spec_says_it_accepts(name, call):
    """Each row marked aten_accepts is one aten takes (once aten refuses it, the mark must go)."""
    spec = spec_of(name)
    assert call_aten_like(spec, call).shape == (3,), spec.errors[call.row].aten_accepts


def test_every_row_aten_accepts_is_asked_of_aten():
    """No mark goes unchecked: each row of a forward spec with an aten op marked aten_accepts has a negative call."""
    marked = {
        (name, row)
        for name, spec in SPECS.items()
        if spec.api.aten and hasattr(torch.ops.aten, spec.api.aten) and spec.derivative_of is None
        for row, error in enumerate(spec.errors)
        if error.aten_accepts is not None
    }
    assert marked == {(name, call.row) for name, call in ACCEPTED}


def test_a_new_spec_marking_a_row_aten_accepts_needs_no_test_side_list(tmp_path):
    """The row aten takes is found from the spec, whatever the operator is called: a user's copy of
    clip_by_value_v2 under another name has its min > max row asked to be taken, not refused."""
    text = (SPEC_DIR / "clip_by_value_v2.yaml").read_text(encoding="utf-8")
    for old, new in (("dir: clip_by_value_v2", "dir: my_clip"), ("type: ClipByValueV2", "type: MyClip")):
        assert old in text, old
        text = text.replace(old, new)
    (tmp_path / "my_clip.yaml").write_text(text, encoding="utf-8")
    spec = load_spec(tmp_path / "my_clip.yaml").spec
    rows = _scalar_rows({"my_clip": spec})
    taken = [call for _, call in rows if spec.errors[call.row].aten_accepts is not None]
    assert taken and all(call_aten_like(spec, call).shape == (3,) for call in taken)
    # without the mark the same row is asked to be refused, which aten does not do: the mark is what keeps it apart
    unmarked = load_spec_text(text.replace("    aten_accepts:", "    # aten_accepts:"), "my_clip.yaml").spec
    refused = [
        call for _, call in _scalar_rows({"my_clip": unmarked}) if unmarked.errors[call.row].aten_accepts is None
    ]
    assert {call.row for call in taken} <= {call.row for call in refused}


INTEGER_CASES = [
    (name, dtype)
    for name, spec in SPECS.items()
    if spec.api.aten and hasattr(torch.ops.aten, spec.api.aten)
    for dtype in spec.tensor_inputs[0].dtypes
    if dtype.is_integral
]


def _truncated(values: np.ndarray, dtype: DType) -> np.ndarray:
    if np.asarray(values).dtype.kind in "iu":  # computed in the integer itself (routing.aicpu): nothing to truncate
        return np.asarray(values).astype(dtype.numpy)
    info = np.iinfo(dtype.numpy)
    return np.clip(np.trunc(np.asarray(values, np.float64)), info.min, info.max).astype(dtype.numpy)


@pytest.mark.parametrize("name,dtype", INTEGER_CASES, ids=[f"{n}-{d.value}" for n, d in INTEGER_CASES])
def test_integer_reference_agrees_with_aten(name, dtype):
    """The reference on integer inputs, truncated toward zero, is aten's result in that dtype; for the dtypes the
    spec says aten refuses (golden.torch_refuses), aten does refuse, and its float64 result truncated agrees."""
    spec = spec_of(name)
    info = np.iinfo(dtype.numpy)
    lo, hi = spec.golden.value_range
    grid = np.arange(max(int(np.floor(lo)), int(info.min)), min(int(np.ceil(hi)), int(info.max)) + 1)
    data = np.concatenate([[info.min, info.max, 0, 1, info.max - 1], grid]).astype(dtype.numpy)
    tensors = {p.name: np.roll(data, i) for i, p in enumerate(spec.tensor_inputs)}
    result = spec.result_dtype(dtype)
    for scalars in scalar_cases(spec):
        if rejected(spec, scalars):
            continue
        if result.is_floating:  # computed in a floating dtype (kernel.integers_as): aten's result, one rounding apart
            ours = evaluate_reference(spec, {**tensors, **scalars}, result.numpy).astype(np.float64)
            theirs = aten_call(spec, {k: torch.from_numpy(v) for k, v in tensors.items()}, scalars).numpy()
            assert theirs.dtype == result.numpy and np.array_equal(np.isnan(ours), np.isnan(theirs))
            kept = ~np.isnan(ours)
            assert ulp_error(ours[kept], theirs.astype(np.float64)[kept], result).max(initial=0.0) <= 1.0
            continue
        ours = _truncated(evaluate_reference(spec, {**tensors, **scalars}, None), dtype)
        if dtype in spec.golden.torch_refuses:
            with pytest.raises(RuntimeError, match="not implemented"):
                aten_call(spec, {k: torch.from_numpy(v) for k, v in tensors.items()}, scalars)
            wide = {k: torch.from_numpy(v.astype(np.float64)) for k, v in tensors.items()}
            theirs = _truncated(aten_call(spec, wide, scalars).numpy(), dtype)
        else:
            # aten refuses a scalar its integer dtype cannot hold (-1.5 for UINT8); the reference meets the tensor with
            # each scalar truncated and wrapped into that dtype, as ops-nn does: aten gets the same integer
            in_dtype = {
                n: int(wrap_integer(float(np.trunc(v)), dtype.numpy)) if spec.param(n).kind is ParamKind.SCALAR else v
                for n, v in scalars.items()
            }
            theirs = aten_call(spec, {k: torch.from_numpy(v) for k, v in tensors.items()}, in_dtype).numpy()
        assert theirs.dtype == ours.dtype and np.array_equal(ours, theirs), (scalars, ours, theirs)
