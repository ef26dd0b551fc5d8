"""The function table: every consumer reads it (names, errors, printers), erfinv's float64 evaluation against
torch and mpmath-free identities, the generated scripts' helpers being the evaluations themselves, the C++
spellings against the reference, erfinv's kernel coefficients, and the generated reference document."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opgen import formula as F
from opgen.cli import main as cli_main
from opgen.formula import functions as table
from opgen.formula.function_reference import DOC_PATH, render_function_reference
from opgen.formula.grammar import CALL_ARITY

ROOT = Path(__file__).resolve().parents[2]
X = {"x": F.Symbol.tensor()}


def test_unknown_function_lists_the_functions_and_suggests_one():
    with pytest.raises(F.FormulaError) as err:
        F.parse("erfinf(x)", X)
    message = err.value.message
    assert "did you mean 'erfinv'?" in message
    listed = message.split("the functions are ")[1].split(", ")
    assert sorted(listed) == sorted([*F.FUNCTIONS, *F.STRUCTURAL]) and "softplus" in listed and "clamp" in listed


def test_every_function_parses_prints_and_is_typed():
    for name, function in F.FUNCTIONS.items():
        args = ", ".join(["x"] * function.arity)
        expr = F.parse(f"{name}({args})", X)
        assert isinstance(expr, F.Call) and F.parse(F.to_text(expr), X) == expr
        assert len(function.partials(*expr.args)) == function.arity
        with pytest.raises(F.FormulaError, match="takes 1 argument"):
            F.parse(f"{name}(x, x)", X)
    with pytest.raises(ValueError, match="takes 1 argument"):
        F.Call("exp", ())


def test_the_table_defines_exactly_the_functions_the_grammar_names():
    assert list(F.FUNCTIONS) == list(CALL_ARITY)
    assert all(function.arity == CALL_ARITY[name] for name, function in F.FUNCTIONS.items())


def test_pow_is_the_power_operator():
    scalar = {"x": F.Symbol.tensor(), "s": F.Symbol.scalar()}
    assert F.parse("pow(x, s + 1)", scalar) == F.parse("x ** (s + 1)", scalar)
    with pytest.raises(F.FormulaError, match="must be host-known"):
        F.parse("pow(x, x)", scalar)


def test_evaluations_are_precise_where_naive_forms_are_not():
    tiny = np.array([1e-20, -1e-17, 3e-9])
    expr = F.parse("log1p(x) - x + expm1(x) - x", X)
    assert np.all(np.abs(F.evaluate(expr, {"x": tiny})) <= 1e-30)
    big = np.array([800.0, -800.0, 30.0, np.inf, -np.inf, np.nan])
    got = F.evaluate(F.parse("softplus(x)", X), {"x": big})
    np.testing.assert_array_equal(got[:2], [800.0, 0.0])
    assert math.isclose(got[2], 30.0 + math.exp(-30.0)) and got[3] == np.inf and got[4] == 0.0 and np.isnan(got[5])
    sign = F.evaluate(F.parse("sign(x)", X), {"x": np.array([np.nan, -0.0, -2.0, 3.0])})
    assert sign.tolist() == [0.0, 0.0, -1.0, 1.0] and not np.signbit(sign[1])


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


def test_erfinv_is_within_an_ulp_or_two_of_torch_and_inverts_erf(torch):
    rng = np.random.default_rng(4)
    near_one = 1 - np.logspace(-16.3, -0.31, 4000)
    y = np.concatenate([rng.uniform(-1, 1, 20000), near_one, -near_one, np.logspace(-300, -1, 500), [0.5, 0.7]])
    y = y[np.abs(y) < 1]  # 1 - 10**-16.3 rounds to 1
    got = table._erfinv(y)
    want = torch.special.erfinv(torch.from_numpy(y)).numpy()
    assert _ulps(got, want).max() <= 2
    erf = np.vectorize(math.erf, otypes=[np.float64])
    assert np.abs(erf(got) - y).max() <= 2.3e-16
    special = table._erfinv(np.array([1.0, -1.0, 0.0, -0.0, 1.5, -1.0000001, np.nan]))
    assert special[:2].tolist() == [np.inf, -np.inf] and special[2:4].tolist() == [0.0, 0.0]
    assert np.signbit(special[3]) and np.isnan(special[4:]).all()


def test_generated_scripts_compute_exactly_what_the_reference_computes():
    # the helpers are the evaluations' own source: exec'd they give bit-identical results
    namespace: dict = {"np": np, "math": math}
    exec(F.NUMPY_HELPERS, namespace)
    x = np.concatenate([np.linspace(-1.2, 1.2, 2001), [0.0, -0.0, np.inf, -np.inf, np.nan, 40.0, -40.0]])
    for name, function in F.FUNCTIONS.items():
        for helper in function.numpy_helpers:
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(namespace[helper.__name__](x), helper(x), err_msg=name)
    assert "import" not in F.NUMPY_HELPERS.replace("# ", "")  # np and math come from the generated file


@pytest.mark.cxx
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_cpp_spellings_match_the_reference(tmp_path):
    points = np.concatenate(
        [np.linspace(-3, 3, 601), np.linspace(-0.999999, 0.999999, 301), [0.0, -0.0, 1.0, -1.0, 1e-300, 50.0, -50.0]]
    )
    names = list(F.FUNCTIONS)
    lines = [f'  std::printf("%.17g\\n", {F.to_cpp(F.parse(f"{n}(x)", X))});' for n in names]
    source = "\n".join(
        [
            "#include <cmath>",
            "#include <cstdio>",
            "#include <cstdlib>",
            F.CPP_HELPERS,
            "int main(int argc, char** argv) {",
            "  for (int i = 1; i < argc; ++i) {",
            "    const double x = std::strtod(argv[i], nullptr);",
            *lines,
            "  }",
            "  return 0;",
            "}",
        ]
    )
    (tmp_path / "spellings.cpp").write_text(source)
    subprocess.run(["g++", "-O1", "-o", str(tmp_path / "spellings"), str(tmp_path / "spellings.cpp")], check=True)
    out = subprocess.run(
        [str(tmp_path / "spellings"), *map(repr, points.tolist())], check=True, capture_output=True, text=True
    ).stdout.split()
    got = np.array([float(v) for v in out]).reshape(len(points), len(names))
    for j, name in enumerate(names):
        with np.errstate(all="ignore"):
            want = F.evaluate(F.parse(f"{name}(x)", X), {"x": points})
        np.testing.assert_allclose(got[:, j], want, rtol=4e-16, atol=0, equal_nan=True, err_msg=name)


def _fit(lo: float, hi: float, variable, degree: int = 9, nodes: int = 4000) -> tuple[np.ndarray, float]:
    """Near-minimax polynomial for erfinv(y)/y in `variable` over [lo, hi]: Lawson's reweighted least squares
    of the relative error on Chebyshev nodes. Returns (coefficients low to high, max relative error)."""
    k = np.arange(nodes)
    v = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    w = variable(v)
    y = np.sqrt(-np.expm1(-w))
    target = table._erfinv(y) / y
    basis = np.vander(v, degree + 1, increasing=True) / np.abs(target)[:, None]
    weights = np.ones(nodes)
    for _ in range(60):
        root = np.sqrt(weights)
        coefficients = np.linalg.lstsq(basis * root[:, None], root, rcond=None)[0]
        error = np.abs(basis @ coefficients - 1)
        weights *= error / error.mean()
    return coefficients, float(error.max())


def test_erfinv_kernel_coefficients_are_a_near_minimax_fit():
    for coefficients, lo, hi, variable in (
        (table.ERFINV_CENTRAL, -2.5, table.ERFINV_SPLIT - 2.5, lambda t: t + 2.5),
        (
            table.ERFINV_TAIL,
            math.sqrt(table.ERFINV_SPLIT) - 3,
            math.sqrt(table.ERFINV_TAIL_END) - 3,
            lambda s: (s + 3) ** 2,
        ),
    ):
        _, refit_error = _fit(lo, hi, variable)
        v = np.linspace(lo, hi, 20001)[1:]  # w = 0 (y = 0) has only the limit sqrt(pi) / 2
        y = np.sqrt(-np.expm1(-variable(v)))
        committed = np.abs(np.polynomial.polynomial.polyval(v, coefficients) / (table._erfinv(y) / y) - 1).max()
        assert committed <= 1.5 * refit_error + 1e-12 and committed < 1e-8, (committed, refit_error)


def test_the_committed_reference_document_is_the_rendering(capsys):
    assert (ROOT / DOC_PATH).read_text(encoding="utf-8") == render_function_reference(), (
        "run `opgen functions > docs/formula-functions.md`"
    )
    assert cli_main(["functions"]) == 0
    assert capsys.readouterr().out == render_function_reference()


def test_reference_document_lists_every_function_with_its_lowering():
    text = render_function_reference()
    for name, function in F.FUNCTIONS.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}("))
        lowering = function.lowering
        assert (lowering.name if isinstance(lowering, F.VectorApi) else "composition") in row
    assert "1.42e-03 (computed in float)" in text  # log1p in float16 fails 双千分之一: kernels compute it in float
