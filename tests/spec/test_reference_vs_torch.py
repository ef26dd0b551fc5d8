"""Each spec's numpy reference (parsed formula, float64 inside, rounded once) agrees with PyTorch's aten op.

Random values over the spec's golden range plus the special values (±0, ±inf, nan) and the branch point,
for every dtype the op accepts, and every scalar/mode value the spec's golden settings list.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.loader import load_spec
from opgen.spec.model import OpSpec, ParamKind

torch = pytest.importorskip("torch")

SPECS = Path(__file__).resolve().parents[2] / "specs"
TORCH_DTYPE = {
    DType.FLOAT: torch.float32,
    DType.FLOAT16: torch.float16,
    DType.BFLOAT16: torch.bfloat16,
    DType.DOUBLE: torch.float64,
}


def load(name: str) -> OpSpec:
    return load_spec(SPECS / f"{name}.yaml").spec


def to_torch(array: np.ndarray, dtype: DType) -> torch.Tensor:
    if dtype is DType.BFLOAT16:
        return torch.from_numpy(array.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(array.astype(dtype.numpy))


def from_torch(tensor: torch.Tensor, dtype: DType) -> np.ndarray:
    if dtype is DType.BFLOAT16:
        return tensor.to(torch.float32).numpy().astype(ml_dtypes.bfloat16)
    return tensor.numpy()


def inputs(spec: OpSpec, dtype: DType, rng: np.random.Generator) -> dict[str, np.ndarray]:
    lo, hi = spec.golden.value_range
    special = np.array([float(v) for v in spec.golden.special_values] + [0.0, -0.0], dtype=np.float64)
    values = {}
    for param in spec.tensor_inputs:
        random = rng.uniform(lo, hi, size=509)
        # every special value meets every other one across the inputs: tile one input, repeat the other
        pattern = np.tile(special, len(special)) if len(values) % 2 == 0 else np.repeat(special, len(special))
        data = np.concatenate([pattern, random]).astype(dtype.numpy)
        values[param.name] = data
    return values


def scalar_cases(spec: OpSpec) -> list[dict[str, float | bool]]:
    names = [p.name for p in spec.params if p.kind is not ParamKind.TENSOR]
    options = [spec.golden.scalar_values.get(n, [spec.example.scalars[n]]) for n in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*options)]


def ulp_distance(a: np.ndarray, b: np.ndarray, dtype: DType) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    eps = {DType.FLOAT: 2.0**-23, DType.FLOAT16: 2.0**-10, DType.BFLOAT16: 2.0**-7, DType.DOUBLE: 2.0**-52}[dtype]
    tiny = {DType.FLOAT: 2.0**-149, DType.FLOAT16: 2.0**-24, DType.BFLOAT16: 2.0**-133, DType.DOUBLE: 2.0**-1074}[dtype]
    with np.errstate(all="ignore"):
        scale = np.maximum(np.maximum(np.abs(a64), np.abs(b64)) * eps, tiny)
        return np.where(a64 == b64, 0.0, np.abs(a64 - b64) / scale)


ATEN_CALLS = {
    "leaky_relu_grad": lambda t, s: torch.ops.aten.leaky_relu_backward(
        t["gradOutput"], t["self"], s["negativeSlope"], s["selfIsResult"]
    ),
    "elu_grad_v2": lambda t, s: torch.ops.aten.elu_backward(
        t["gradOutput"], s["alpha"], s["scale"], s["inputScale"], s["isResult"], t["selfOrResult"]
    ),
    "leaky_relu": lambda t, s: torch.ops.aten.leaky_relu(t["self"], s["negativeSlope"]),
}


def rejected(spec_name: str, scalars: dict) -> bool:
    """Combinations the API (and aten) refuse: a negative slope/alpha with the result-as-input mode."""
    if spec_name == "leaky_relu_grad":
        return scalars["selfIsResult"] and scalars["negativeSlope"] < 0
    if spec_name == "elu_grad_v2":
        return scalars["isResult"] and scalars["alpha"] < 0
    return False


CASES = [
    (name, dtype)
    for name in ATEN_CALLS
    for dtype in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE)
    if dtype in load(name).tensor_inputs[0].dtypes
]


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{d.value}" for n, d in CASES])
def test_reference_agrees_with_aten(name, dtype):
    spec = load(name)
    rng = np.random.default_rng(20261122)
    tensors = inputs(spec, dtype, rng)
    checked = 0
    for scalars in scalar_cases(spec):
        if rejected(name, scalars):
            continue
        ours = evaluate_reference(spec, {**tensors, **scalars}, dtype.numpy)
        ours64 = ours.astype(np.float64)
        # 1. the same math at the same (higher) precision: aten in float64 on the same inputs, rounded once
        wide = {k: torch.from_numpy(v.astype(np.float64)) for k, v in tensors.items()}
        theirs_wide = ATEN_CALLS[name](wide, scalars).numpy().astype(dtype.numpy).astype(np.float64)
        assert np.array_equal(np.isnan(ours64), np.isnan(theirs_wide)), f"nan positions differ for {scalars}"
        finite = ~np.isnan(ours64)
        assert np.array_equal(ours64[~np.isfinite(ours64) & finite], theirs_wide[~np.isfinite(ours64) & finite])
        assert ulp_distance(ours64[finite], theirs_wide[finite], dtype).max() <= 1.0, scalars
        # 2. aten in the tensor's own dtype (float32 compute) meets the spec's precision standard
        native = from_torch(ATEN_CALLS[name]({k: to_torch(v, dtype) for k, v in tensors.items()}, scalars), dtype)
        native = native.astype(np.float64)
        assert np.array_equal(np.isnan(native), np.isnan(ours64)), f"nan positions differ for {scalars}"
        tol = spec.golden.tolerance[dtype]
        o, t = ours64[finite], native[finite]
        close = np.isclose(o, t, rtol=tol.rtol, atol=tol.atol) | (o == t)
        assert close.all(), (scalars, o[~close], t[~close])
        checked += 1
    assert checked >= 2


def test_aten_refuses_what_the_error_table_rejects():
    g = torch.ones(3)
    with pytest.raises(RuntimeError):
        torch.ops.aten.leaky_relu_backward(g, g, -0.1, True)
    with pytest.raises(RuntimeError):
        torch.ops.aten.elu_backward(g, -1.0, 1.0, 1.0, True, g)
