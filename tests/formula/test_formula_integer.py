"""Formulas computed in an integer dtype itself (the AICPU kernel's routed integers): which formulas may be, the
numpy evaluation (wrapping modulo 2**bits, checked against Python's unbounded integers) and the C++ printer (compiled
and run, held equal to the numpy evaluation at every width, extremes included)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from opgen import formula as F
from opgen.formula.integer import (
    CPP_INTEGER_HELPERS,
    evaluate_integer,
    integer_problem,
    to_cpp_integer,
    to_numpy_integer,
)

SYMBOLS = {"x": F.Symbol.tensor(), "y": F.Symbol.tensor(), "a": F.Symbol.scalar(), "on": F.Symbol.flag()}
FORMULAS = [
    "max(x + a * y, 0)",
    "where(x > a, x, y)",
    "where(x > a, y, 0)",
    "min(x - y, -x) * 3",
    "where(on and not (x == y), x * y, -y + 7)",
]
DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.int64]


def _parse(text: str) -> F.Expr:
    return F.parse(text, SYMBOLS)


@pytest.mark.parametrize("text", FORMULAS)
def test_exact_formulas_are_accepted(text):
    assert integer_problem(_parse(text)) is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("x / 2", "'/'"),
        ("x ** 2", "'**'"),
        ("exp(x)", "exp()"),
        ("max(x, 0.5)", "0.5"),
        ("where(x > 0, x, inf)", "inf"),
    ],
)
def test_inexact_formulas_are_refused_naming_the_part(text, named):
    problem = integer_problem(_parse(text))
    assert problem is not None and named in problem
    with pytest.raises(ValueError, match="not an integer formula"):
        to_cpp_integer(_parse(text), {})


def _samples(dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    edges = [int(info.min), int(info.min) + 1, -1, 0, 1, 2, 100, int(info.max) - 1, int(info.max)]
    edges = [v for v in edges if info.min <= v <= info.max]
    x = np.array([a for a in edges for _ in edges], dtype=dtype)
    y = np.array([b for _ in edges for b in edges], dtype=dtype)
    return x, y


def _wrap(value: int, dtype) -> int:
    info = np.iinfo(dtype)
    span = int(info.max) - int(info.min) + 1
    return (value - int(info.min)) % span + int(info.min)


@pytest.mark.parametrize("dtype", DTYPES)
def test_evaluation_wraps_like_unbounded_integers_reduced_modulo_the_width(dtype):
    x, y = _samples(dtype)
    a = _wrap(-3, dtype)
    got = evaluate_integer(_parse("max(x + a * y, 0)"), {"x": x, "y": y, "a": float(a)}, dtype)
    want = [max(_wrap(int(p) + a * int(q), dtype), 0) for p, q in zip(x, y, strict=True)]
    assert got.dtype == dtype and got.tolist() == want


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_source_computes_what_evaluation_does(dtype):
    x, y = _samples(dtype)
    a = _wrap(5, dtype)
    for text in FORMULAS:
        expr = _parse(text)
        source = to_numpy_integer(expr)
        with np.errstate(all="ignore"):
            got = eval(source, {"np": np}, {"x": x, "y": y, "a": a, "on": True})  # generated source, not spec text
        want = evaluate_integer(expr, {"x": x, "y": y, "a": a, "on": True}, dtype)
        assert np.asarray(got).astype(dtype).tolist() == want.tolist(), text


@pytest.mark.cxx
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_cpp_printer_computes_what_evaluation_does_at_every_width(tmp_path):
    ctypes = {np.int8: "int8_t", np.uint8: "uint8_t", np.int16: "int16_t", np.int32: "int32_t", np.int64: "int64_t"}
    names = {"x": "x[i]", "y": "y[i]"}
    body = []
    for dtype, ctype in ctypes.items():
        x, y = _samples(dtype)
        a = _wrap(-3, dtype)
        body.append("  {")
        body.append(f"    using T = {ctype};")
        body.append(f"    const T x[] = {{{', '.join(f'static_cast<T>({int(v)}LL)' for v in x)}}};")
        body.append(f"    const T y[] = {{{', '.join(f'static_cast<T>({int(v)}LL)' for v in y)}}};")
        body.append(f"    const T a = static_cast<T>({a}LL);")
        body.append("    const bool on = true;")
        body.append(f"    for (int i = 0; i < {len(x)}; ++i) {{")
        for text in FORMULAS:
            body.append(f'      std::printf("%lld\\n", static_cast<long long>({to_cpp_integer(_parse(text), names)}));')
        body.append("    }")
        body.append("  }")
    source = "\n".join(
        ["#include <cstdint>", "#include <cstdio>", CPP_INTEGER_HELPERS, "int main() {", *body, "  return 0;", "}"]
    )
    (tmp_path / "integer.cpp").write_text(source)
    subprocess.run(
        ["g++", "-O2", "-fsanitize=undefined", "-fno-sanitize-recover", "-o", str(tmp_path / "integer")]
        + [str(tmp_path / "integer.cpp")],
        check=True,
    )
    out = subprocess.run([str(tmp_path / "integer")], check=True, capture_output=True, text=True).stdout.split()
    got = iter(int(v) for v in out)
    for dtype in ctypes:
        x, y = _samples(dtype)
        a = _wrap(-3, dtype)
        values = {
            text: evaluate_integer(_parse(text), {"x": x, "y": y, "a": a, "on": True}, dtype) for text in FORMULAS
        }
        for i in range(len(x)):
            for text in FORMULAS:
                assert next(got) == int(values[text][i]), (dtype, text, int(x[i]), int(y[i]))
