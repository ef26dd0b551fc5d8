"""Every math function's lowered program on the CPU twin: bit-exact with the numpy model of the program, and on
special values (NaN, +-inf, +-0, domain edges) the results PyTorch gives.

Programs are lowered for the compute paths kernels use: float in float, half in half, half and bfloat16 cast to
float, and (Ascend 950, the one SoC with bfloat16 arithmetic) bfloat16 in bfloat16 where the APIs take it.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from program_twin import ProgramCase, ProgramRunner
from support.floats import bits

from opgen import formula as F
from opgen.plan.lowering import LoweringError, lower
from opgen.spec.dtypes import DType

pytestmark = pytest.mark.cxx

SYMBOLS = {"x": F.Symbol.tensor()}
# (storage, compute, SoC the twin models)
PATHS = [
    (DType.FLOAT, DType.FLOAT, "ascend910b"),
    (DType.FLOAT16, DType.FLOAT16, "ascend910b"),
    (DType.FLOAT16, DType.FLOAT, "ascend910b"),
    (DType.BFLOAT16, DType.FLOAT, "ascend910_93"),
    (DType.BFLOAT16, DType.BFLOAT16, "ascend950"),
]


def _torch_function(torch, function: str):
    if function == "softplus":  # its x > 20 shortcut differs from log(1 + exp(x)) by < exp(-20) relative
        return torch.nn.functional.softplus
    return getattr(torch, function)  # torch.exp, torch.erfinv, ... of the same name


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, -2.0, 1e-30, -1e-30,
           3.0e38, -3.0e38, 60000.0, -60000.0, 100.0, -100.0, 89.0, -89.0, 12.0, -12.0, 1e-4, -1e-4]  # fmt: skip


def _name(function: str, storage: DType, compute: DType) -> str:
    return f"{function}_{storage.value}_{compute.value}".lower()


def _cases() -> list[tuple[str, str, DType, DType, str, ProgramCase | None]]:
    cases = []
    for function in F.FUNCTIONS:
        expr = F.parse(f"{function}(x)", SYMBOLS)
        for storage, compute, soc in PATHS:
            try:
                program = lower(expr, inputs=["x"], storage=storage, compute=compute)
            except LoweringError:
                case = None  # e.g. Tanh has no bfloat16 form: such kernels compute in float
            else:
                case = ProgramCase(_name(function, storage, compute), program, {})
            cases.append((function, f"{function}-{storage.value}-{compute.value}", storage, compute, soc, case))
    return cases


CASES = _cases()
LOWERED = [(c[0], c[2], c[3], c[4], c[5]) for c in CASES if c[5] is not None]
LOWERED_IDS = [c[1] for c in CASES if c[5] is not None]


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> ProgramRunner:
    programs = [case for *_, case in LOWERED]
    return ProgramRunner(programs, tmp_path_factory.mktemp("function_programs"))


def _inputs(function: str, storage: DType) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, function)))
    domain = 1.0 if function == "erfinv" else 12.0
    data = np.concatenate(
        [SPECIAL, rng.uniform(-domain, domain, 1500), rng.uniform(-1.2, 1.2, 500), np.logspace(-12, 4, 300)]
    )
    with np.errstate(over="ignore"):
        return data.astype(np.float32).astype(storage.numpy)


def test_every_function_lowers_for_float_and_half_and_bf16_only_through_apis_that_take_it():
    for function, _, storage, compute, _, case in CASES:
        lowering = F.FUNCTIONS[function].lowering
        takes_bf16 = not isinstance(lowering, F.VectorApi) or lowering.bf16
        assert (case is not None) == (compute is not DType.BFLOAT16 or takes_bf16), (function, storage, compute)


@pytest.mark.parametrize(("function", "storage", "compute", "soc", "case"), LOWERED, ids=LOWERED_IDS)
def test_twin_is_bit_exact_with_the_model(runner, function, storage, compute, soc, case):
    runner.soc = soc
    x = _inputs(function, storage)
    got = runner.run(case.name, {"x": x})
    want = runner.model(case.name, {"x": x}).astype(storage.numpy)
    nan_got, nan_want = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
    same = (bits(got) == bits(want)) | (nan_got & nan_want)
    assert np.array_equal(nan_got, nan_want) and same.all(), (
        f"{case.name} on {soc}: first mismatches at x = {x[~same][:5]}: twin {got[~same][:5]}, model {want[~same][:5]}"
    )


@pytest.mark.parametrize(("function", "storage", "compute", "soc", "case"), LOWERED, ids=LOWERED_IDS)
def test_special_values_come_out_like_torch(runner, function, storage, compute, soc, case, torch):
    runner.soc = soc
    with np.errstate(over="ignore"):  # 3e38 is inf in half
        x = np.array(SPECIAL + [-1.0 + 2**-10, 1.0 - 2**-10, -3.0, 0.25, -0.25], np.float32).astype(storage.numpy)
    got = runner.run(case.name, {"x": x}).astype(np.float64)
    want64 = _torch_function(torch, function)(torch.from_numpy(x.astype(np.float64))).numpy()
    with np.errstate(over="ignore"):
        want = want64.astype(np.float32).astype(storage.numpy).astype(np.float64)
    for value, g, w in zip(x.astype(np.float64), got, want, strict=True):
        where = f"{function}({value!r}) in {storage.value}/{compute.value}: got {g!r}, torch {w!r}"
        if np.isnan(w) or np.isinf(w) or w == 0:
            assert (np.isnan(g) and np.isnan(w)) or (g == w and np.signbit(g) == np.signbit(w)), where
        else:  # within the function's recorded error in the compute dtype plus the rounding to storage
            recorded = F.FUNCTIONS[function].max_error[compute.numpy.name]
            assert recorded is not None
            tolerance = recorded + float(ml_dtypes.finfo(storage.numpy).eps)
            assert min(abs(g - w), abs(g - w) / abs(w)) <= tolerance, where


def test_bfloat16_compute_path_is_modelled_on_ascend950(runner):
    # the twin refuses bfloat16 arithmetic on A2 (it has none): the same program runs only on Ascend 950
    case = next(c for f, s, co, _, c in LOWERED if f == "exp" and s is DType.BFLOAT16 and co is DType.BFLOAT16)
    runner.soc = "ascend910b"
    with pytest.raises(RuntimeError, match="DTYPE_UNSUPPORTED"):
        runner.run(case.name, {"x": np.ones(4, ml_dtypes.bfloat16)})
    runner.soc = "ascend950"
    assert runner.run(case.name, {"x": np.zeros(4, ml_dtypes.bfloat16)}).astype(np.float32).tolist() == [1.0] * 4
