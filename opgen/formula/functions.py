"""The math functions of the formula language: one declarative record per function.

Each `MathFunction` says everything opgen knows about one function: its name and arity, what it means, how
to evaluate it in float64 (the reference every kernel is judged against), how generated numpy scripts and
AICPU C++ kernels spell it, its LaTeX, its derivative and how it becomes Ascend C vector code. The parser,
type checker, printers, reference, constant folding, differentiation and the kernel lowering all read this
table; adding a function means adding a record here (and, when its lowering calls a vector API the CPU twin
does not have yet, declaring that API in the twin).

Structural functions (`where`/`select`, `min`, `max`, `clamp`, `pow`) have their own IR nodes and are
described in `STRUCTURAL`.

Float64 evaluations are precise where the naive form is not (log1p/expm1 near 0, softplus at large |x|,
erfinv near +-1) and follow PyTorch on special values: sign(nan) = 0, erfinv(+-1) = +-inf, softplus(+inf) = inf.
Numpy helpers used by generated scripts are the very functions below, copied by source (`numpy_helpers`),
so a golden script computes exactly what the reference computes.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .grammar import CALL_ARITY, REDUCTION_SPELLING, Prec
from .ir import Binary, Call, Compare, Const, Expr, Select, Unary

# ---------------------------------------------------------------------------------------------------- records


class LatexWriter(Protocol):
    """What a function's LaTeX rule may ask of the LaTeX printer."""

    def arg(self, index: int, min_prec: int = Prec.OR) -> str:
        """The LaTeX of argument `index`, parenthesised if it binds looser than `min_prec`."""
        ...

    def paren(self, text: str) -> str:
        """`text` in parentheses (sized with \\left( \\right) around tall content)."""
        ...


@dataclass(frozen=True)
class VectorApi:
    """An Ascend C API that computes the function in one call, count form `Api(dst, src, count)`.

    The CPU twin (and the numpy model of a kernel) computes it in float64 and rounds once to the element type
    (through float, as the twin widens half/bfloat16 to float), which is within the hardware's documented error
    for the basic APIs; the advanced math APIs are polynomial approximations on hardware whose exact error is
    not public, so the twin's model is the correctly rounded result.
    """

    name: str
    header: str  # the asc-devkit header that declares it
    model: Callable[[np.ndarray], np.ndarray]  # float64 values the twin rounds once
    archs: tuple[str, ...]  # SoC arch families (opgen/spec/socs.py) whose toolkit provides it; () = every SoC
    bf16: bool = True  # takes bfloat16_t where the SoC has bfloat16 vector arithmetic (Ascend 950)
    in_place: bool = True  # dst may be src; the advanced APIs forbid any overlap of dst and src

    @property
    def dtypes(self) -> tuple[str, ...]:
        """Ascend C element types the API takes (bfloat16_t only on SoCs with bfloat16 arithmetic)."""
        return ("half", "float", "bfloat16_t") if self.bf16 else ("half", "float")


@dataclass(frozen=True)
class Composition:
    """No single API: the function is rewritten into IR whose operations do lower (an IR builder)."""

    build: Callable[[Expr], Expr]
    note: str  # the method, for the docs


@dataclass(frozen=True)
class MathFunction:
    name: str  # one of grammar.CALL_ARITY, which gives its arity
    doc: str  # one line: what it computes
    evaluate: Callable[..., np.ndarray]  # float64 numpy evaluation (the reference, also constant folding)
    numpy: str  # source template for generated numpy scripts; `{}` is the argument
    cpp: str  # C++ double expression for AICPU kernels; `{}` is the argument
    latex: Callable[[LatexWriter], tuple[str, int]]  # LaTeX and its binding strength
    partials: Callable[..., tuple[Expr, ...]]  # d f / d arg_i as IR over the arguments
    lowering: VectorApi | Composition
    numpy_helpers: tuple[Callable[..., np.ndarray], ...] = ()  # functions `numpy` calls, copied by source
    cpp_helper: str = ""  # C++ helper functions `cpp` calls
    # Measured maximum error of the lowered program per compute dtype, as the smallest t under which every
    # element passes "abs error <= t or rel error <= t" (the ops-nn standard's element test); None where the
    # lowering is not available for that compute dtype. Measured by tests/plan/test_function_precision.py.
    max_error: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def arity(self) -> int:
        return CALL_ARITY[self.name]

    def precise_in(self, dtype: str) -> bool:
        """Whether the lowering computed in `dtype` ("float32", "float16", "bfloat16") passes the ops-nn element
        test for that dtype everywhere (max error <= ELEMENT_TOLERANCE); if not, kernels compute it in float."""
        error = self.max_error.get(dtype)
        return error is not None and error <= ELEMENT_TOLERANCE[dtype]


# The per-element threshold of the ops-nn precision standards: 双万分之一 (float32), 双千分之一 (float16), and
# the 4e-3 commonly used for bfloat16 (CANN's operator precision standards).
ELEMENT_TOLERANCE: Mapping[str, float] = {"float32": 1e-4, "float16": 1e-3, "bfloat16": 4e-3}


@dataclass(frozen=True)
class StructuralFunction:
    """A callable name with its own IR (Select, Binary min/max/pow) or a desugaring (clamp)."""

    name: str
    arity: int
    doc: str
    latex: str  # example LaTeX, for the docs
    lowering: str  # how it becomes vector code, for the docs


# ----------------------------------------------------------------------------------------- IR building helpers


def _num(value: float) -> Const:
    return Const(float(value))


def _call(func: str, x: Expr) -> Expr:
    return Call(func, (x,))


def _add(a: Expr, b: Expr) -> Expr:
    return Binary("add", a, b)


def _sub(a: Expr, b: Expr) -> Expr:
    return Binary("sub", a, b)


def _mul(a: Expr, b: Expr) -> Expr:
    return Binary("mul", a, b)


def _div(a: Expr, b: Expr) -> Expr:
    return Binary("div", a, b)


def _neg(a: Expr) -> Expr:
    return Unary("neg", a)


def _where(cond: Expr, a: Expr, b: Expr) -> Expr:
    return Select(cond, a, b)


def _horner(coefficients: tuple[float, ...], t: Expr) -> Expr:
    """c0 + t*(c1 + t*(c2 + ...)): one multiply and one scalar add per coefficient."""
    result: Expr = _num(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        result = _add(_mul(result, t), _num(c))
    return result


# ------------------------------------------------------------------------------------- float64 evaluations
#
# The helpers below are also the source of the numpy helpers of generated scripts (copied by `inspect`), so
# they use only `np` and `math` and no other module-level name.


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _sign(x):
    # torch.sign: 0 for NaN (numpy's sign gives NaN) and +0 for -0
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, 0.0))


def _maximum(a, b):
    # torch.maximum (and clamp's lower bound): NaN if either is NaN, else the larger; the first argument on a tie, so
    # max(-0.0, 0.0) is -0.0 (np.maximum takes the second)
    return np.where((a < b) | np.isnan(b), b, a)


def _minimum(a, b):
    # torch.minimum (and clamp's upper bound): NaN if either is NaN, else the smaller; the first argument on a tie
    return np.where((b < a) | np.isnan(b), b, a)


def _row_max(values, axis, shape=None):
    # rowmax along axis, kept (length 1) so that it broadcasts back along the row: the values broadcast to `shape`
    # first (the formula's tensors' shape); NaN propagates, an empty row's max is -inf, a 0-d value is its own row
    values = np.asarray(values, dtype=np.float64)
    values = values if shape is None else np.broadcast_to(values, shape)
    if values.ndim == 0:
        return values
    return np.max(values, axis=axis, keepdims=True, initial=-np.inf)


def _row_sum(values, axis, shape=None):
    # rowsum along axis, kept (length 1) as _row_max; an empty row's sum is 0
    values = np.asarray(values, dtype=np.float64)
    values = values if shape is None else np.broadcast_to(values, shape)
    if values.ndim == 0:
        return values
    return np.sum(values, axis=axis, keepdims=True)


def _softplus(x):
    # log(1 + exp(x)) without overflow or cancellation: max(x, 0) + log1p(exp(-|x|)); NaN stays NaN
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _erfinv(y):
    # Inverse error function to ~1 ulp: a series (|y| <= 0.5) or tail (|y| > 0.5) first guess refined by three
    # Halley steps on erf(x) = |y|; in the tail the residual uses erfc and 1 - |y| (exact there), which keeps it
    # accurate next to +-1. erfinv(+-1) = +-inf, NaN outside [-1, 1].
    y = np.asarray(y, dtype=np.float64)
    a = np.abs(y)
    with np.errstate(all="ignore"):
        tail = a > 0.5
        rest = 1.0 - a
        z = a * a
        guess = a * (math.sqrt(math.pi) / 2) * (1 + z * (math.pi / 12 + z * (7 * math.pi**2 / 480)))
        t = -np.log(np.where(tail, rest, 0.5))
        asymptotic = np.sqrt(np.maximum(t - 0.5 * np.log(np.maximum(math.pi * t, 1e-300)), 0.0))
        x = np.where(tail, asymptotic, guess)
        x = np.where((a >= 1) | np.isnan(a), 0.0, x)
        erf = np.vectorize(math.erf, otypes=[np.float64])
        erfc = np.vectorize(math.erfc, otypes=[np.float64])
        for _ in range(3):
            residual = np.where(tail, rest - erfc(x), erf(x) - a)
            step = residual / (2 / math.sqrt(math.pi) * np.exp(-x * x))
            x = x - step / (1 + x * step)  # Halley: f''/f' = -2x for f = erf
        x = np.where(a == 1, np.inf, np.where((a > 1) | np.isnan(a), np.nan, x))
        return np.copysign(x, y)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    return 1.0 / x


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def _square(x: np.ndarray) -> np.ndarray:
    return x * x


# ------------------------------------------------------------------------------------------- C++ helpers

_CPP_SIGN = "inline double FormulaSign(double a) { return std::isnan(a) ? 0.0 : (a > 0.0) - (a < 0.0); }\n"
_CPP_SOFTPLUS = (
    "inline double FormulaSoftplus(double x) { return (x > 0.0 ? x : 0.0) + std::log1p(std::exp(-std::fabs(x))); }\n"
)
# The same method as `_erfinv` (no std:: function exists): first guess, three Halley steps on erf/erfc.
_CPP_ERFINV = """\
inline double FormulaErfinv(double y) {
  const double a = std::fabs(y);
  if (std::isnan(a) || a > 1.0) return NAN;
  if (a == 1.0) return std::copysign(INFINITY, y);
  const double kPi = 3.14159265358979323846;
  const bool tail = a > 0.5;
  const double rest = 1.0 - a;
  double x;
  if (tail) {
    const double t = -std::log(rest);
    x = std::sqrt(std::fmax(t - 0.5 * std::log(kPi * t), 0.0));
  } else {
    const double z = a * a;
    x = a * (std::sqrt(kPi) / 2) * (1 + z * (kPi / 12 + z * (7 * kPi * kPi / 480)));
  }
  for (int i = 0; i < 3; ++i) {
    const double residual = tail ? rest - std::erfc(x) : std::erf(x) - a;
    const double step = residual / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x = x - step / (1 + x * step);
  }
  return std::copysign(x, y);
}
"""

# ---------------------------------------------------------------------------------- compositions (lowering)
#
# Built from APIs every SoC with a vector unit has (Exp, Ln, Abs, Sqrt, Adds, Muls, Mul, Div, Maxs, Compare,
# Select). Where-branches are ordered so that a scalar lands in the else branch (tensor-scalar Select) and so
# that NaN (every comparison false) takes the branch that propagates it.


def _log1p_lowering(x: Expr) -> Expr:
    # u = 1 + x rounds away the low bits of x; ln(u) * x / (u - 1) puts them back (Goldberg), exactly x where
    # u == 1; x = +inf would give inf / inf, so u itself is taken when it is infinite.
    u = _add(_num(1.0), x)
    core = _mul(_call("log", u), _div(x, _sub(u, _num(1.0))))
    return _where(Compare("eq", u, _num(1.0)), x, _where(Compare("lt", u, _num(math.inf)), core, u))


def _expm1_lowering(x: Expr) -> Expr:
    # |x| < 0.5: (u - 1) * x / ln(u) with u = exp(x) (Kahan), exactly x where u == 1; elsewhere u - 1 loses at
    # most a factor u / (u - 1) < 2.6 of exp's rounding. +-inf and NaN fail |x| < 0.5 and give inf, -1, NaN.
    u = _call("exp", x)
    u_minus_1 = _sub(u, _num(1.0))
    small = _where(Compare("eq", u, _num(1.0)), x, _div(_mul(u_minus_1, x), _call("log", u)))
    return _where(Compare("lt", _call("abs", x), _num(0.5)), small, u_minus_1)


def _softplus_lowering(x: Expr) -> Expr:
    # max(x, 0) + log1p(exp(-|x|)); log1p's argument is in [0, 1], so its u == inf case cannot arise.
    v = _call("exp", _neg(_call("abs", x)))
    w = _add(_num(1.0), v)
    log1p_v = _where(Compare("eq", w, _num(1.0)), v, _mul(_call("log", w), _div(v, _sub(w, _num(1.0)))))
    return _add(Binary("max", x, _num(0.0)), log1p_v)


# erfinv(y) / y as polynomials: in t = w - 2.5 for w = -ln((1 - y)(1 + y)) < 5, and in s = sqrt(w) - 3 beyond
# (up to w = 16.3, past float32's largest finite w). Degree-9 near-minimax fits of relative error (Lawson's
# reweighted least squares on 4000 Chebyshev nodes, float64): 5.6e-9 and 7.3e-9. tests/formula/
# test_functions.py refits them.
ERFINV_CENTRAL = (
    1.501409359282522,
    0.24664028615344324,
    -0.00417738678107722,
    -0.0012527418784434958,
    0.0002183444394273787,
    -4.963347855130307e-06,
    -3.4627047583030146e-06,
    4.6617066404470997e-07,
    2.3232644252857426e-08,
    -8.791056466117553e-09,
)
ERFINV_TAIL = (
    2.832976797339202,
    1.0016750378761745,
    0.009445554227611064,
    -0.007638513731079238,
    0.0056844861159973115,
    -0.003591477145287958,
    0.0014919883564324943,
    -6.803091892737534e-05,
    -0.000315340202101666,
    0.00012326888181685147,
)
ERFINV_SPLIT = 5.0  # w at which the tail polynomial takes over
ERFINV_TAIL_END = 16.3  # the tail fit's upper end in w


def _erfinv_lowering(y: Expr) -> Expr:
    # (1 - y)(1 + y) rather than 1 - y*y: exact factors near +-1, where w carries the information. |y| = 1 gives
    # w = inf and the result y * inf; |y| > 1 gives ln(negative) = NaN, which every comparison sends to the tail.
    w = _neg(_call("log", _mul(_sub(_num(1.0), y), _add(_num(1.0), y))))
    central = _mul(y, _horner(ERFINV_CENTRAL, _sub(w, _num(2.5))))
    tail = _mul(y, _horner(ERFINV_TAIL, _sub(_call("sqrt", w), _num(3.0))))
    edge = _where(Compare("eq", w, _num(math.inf)), _mul(y, _num(math.inf)), tail)
    return _where(Compare("lt", w, _num(ERFINV_SPLIT)), central, edge)


def _square_lowering(x: Expr) -> Expr:
    return _mul(x, x)


# --------------------------------------------------------------------------------------------- LaTeX rules


def _plain(spelling: str) -> Callable[[LatexWriter], tuple[str, int]]:
    """`name(arg)`: the function's name applied to its parenthesised argument."""

    def latex(w: LatexWriter) -> tuple[str, int]:
        return spelling + w.paren(w.arg(0)), Prec.ATOM

    return latex


# --------------------------------------------------------------------------------------------------- the table

_ALL_SOCS: tuple[str, ...] = ()
_ADVANCED_MATH = ("arch22", "arch20", "arch35")  # A2/A3, Atlas inference (310P), Ascend 950 (asc-devkit #if)
_ADV_HEADER = "adv_api/math/{}.h"
_UNARY_HEADER = "basic_api/kernel_operator_vec_unary_intf.h"

_TABLE: tuple[MathFunction, ...] = (
    MathFunction(
        name="exp",
        doc="e to the power x",
        evaluate=np.exp,
        numpy="np.exp({})",
        cpp="std::exp({})",
        latex=_plain("exp"),
        partials=lambda x: (_call("exp", x),),
        lowering=VectorApi("Exp", _UNARY_HEADER, np.exp, _ALL_SOCS),
        max_error={"float32": 5.96e-08, "float16": 4.88e-04, "bfloat16": 3.89e-03},
    ),
    MathFunction(
        name="expm1",
        doc="exp(x) - 1, accurate near 0",
        evaluate=np.expm1,
        numpy="np.expm1({})",
        cpp="std::expm1({})",
        latex=lambda w: (f"exp{w.paren(w.arg(0))} - 1", Prec.ADD),
        partials=lambda x: (_call("exp", x),),
        lowering=Composition(
            _expm1_lowering,
            "|x| < 0.5: (u - 1) * x / Ln(u) with u = Exp(x), x where u == 1 (Kahan); else u - 1",
        ),
        max_error={"float32": 1.19e-07, "float16": 9.21e-04, "bfloat16": 6.83e-03},
    ),
    MathFunction(
        name="log",
        doc="natural logarithm",
        evaluate=np.log,
        numpy="np.log({})",
        cpp="std::log({})",
        latex=_plain(r"\log"),
        partials=lambda x: (_div(_num(1.0), x),),
        lowering=VectorApi("Ln", _UNARY_HEADER, np.log, _ALL_SOCS),
        max_error={"float32": 5.95e-08, "float16": 4.87e-04, "bfloat16": 3.89e-03},
    ),
    MathFunction(
        name="log1p",
        doc="log(1 + x), accurate near 0",
        evaluate=np.log1p,
        numpy="np.log1p({})",
        cpp="std::log1p({})",
        latex=lambda w: (r"\log" + w.paren(f"1 + {w.arg(0, Prec.MUL)}"), Prec.ATOM),
        partials=lambda x: (_div(_num(1.0), _add(_num(1.0), x)),),
        lowering=Composition(
            _log1p_lowering,
            "Ln(u) * (x / (u - 1)) with u = 1 + x (Goldberg); x where u == 1, u where u is +inf",
        ),
        max_error={"float32": 1.75e-07, "float16": 1.42e-03, "bfloat16": 1.06e-02},
    ),
    MathFunction(
        name="sqrt",
        doc="square root",
        evaluate=np.sqrt,
        numpy="np.sqrt({})",
        cpp="std::sqrt({})",
        latex=lambda w: (f"\\sqrt{{{w.arg(0)}}}", Prec.ATOM),
        partials=lambda x: (_div(_num(0.5), _call("sqrt", x)),),
        lowering=VectorApi("Sqrt", _UNARY_HEADER, np.sqrt, _ALL_SOCS),
        max_error={"float32": 5.96e-08, "float16": 4.88e-04, "bfloat16": 3.89e-03},
    ),
    MathFunction(
        name="rsqrt",
        doc="1 / sqrt(x)",
        evaluate=_rsqrt,
        numpy="(1.0 / np.sqrt({}))",
        cpp="(1.0 / std::sqrt({}))",
        latex=lambda w: (f"\\frac{{1}}{{\\sqrt{{{w.arg(0)}}}}}", Prec.ATOM),
        partials=lambda x: (_div(_mul(_num(-0.5), _call("rsqrt", x)), x),),
        lowering=VectorApi("Rsqrt", _UNARY_HEADER, _rsqrt, _ALL_SOCS),
        max_error={"float32": 5.97e-08, "float16": 4.88e-04, "bfloat16": 3.87e-03},
    ),
    MathFunction(
        name="reciprocal",
        doc="1 / x",
        evaluate=_reciprocal,
        numpy="(1.0 / {})",
        cpp="(1.0 / ({}))",
        latex=lambda w: (f"\\frac{{1}}{{{w.arg(0)}}}", Prec.ATOM),
        partials=lambda x: (_neg(_div(_num(1.0), _mul(x, x))),),
        lowering=VectorApi("Reciprocal", _UNARY_HEADER, _reciprocal, _ALL_SOCS),
        max_error={"float32": 5.97e-08, "float16": 4.88e-04, "bfloat16": 3.88e-03},
    ),
    MathFunction(
        name="tanh",
        doc="hyperbolic tangent",
        evaluate=np.tanh,
        numpy="np.tanh({})",
        cpp="std::tanh({})",
        latex=_plain(r"\tanh"),
        partials=lambda x: (_sub(_num(1.0), Binary("pow", _call("tanh", x), _num(2.0))),),
        lowering=VectorApi("Tanh", _ADV_HEADER.format("tanh"), np.tanh, _ADVANCED_MATH, bf16=False, in_place=False),
        max_error={"float32": 2.99e-08, "float16": 2.45e-04, "bfloat16": None},
    ),
    MathFunction(
        name="erf",
        doc="error function",
        evaluate=_erf,
        numpy="_erf({})",
        cpp="std::erf({})",
        latex=_plain("erf"),
        partials=lambda x: (_mul(_num(2.0 / math.sqrt(math.pi)), _call("exp", _neg(_mul(x, x)))),),
        lowering=VectorApi("Erf", _ADV_HEADER.format("erf"), _erf, _ADVANCED_MATH, bf16=False, in_place=False),
        numpy_helpers=(_erf,),
        max_error={"float32": 2.99e-08, "float16": 2.45e-04, "bfloat16": None},
    ),
    MathFunction(
        name="erfinv",
        doc="inverse error function: erf(erfinv(x)) = x on [-1, 1]",
        evaluate=_erfinv,
        numpy="_erfinv({})",
        cpp="FormulaErfinv({})",
        latex=_plain(r"\mathrm{erf}^{-1}"),
        partials=lambda y: (
            _mul(_num(math.sqrt(math.pi) / 2), _call("exp", Binary("pow", _call("erfinv", y), _num(2.0)))),
        ),
        lowering=Composition(
            _erfinv_lowering,
            "w = -Ln((1 - y)(1 + y)); y * P9(w - 2.5) for w < 5, else y * Q9(Sqrt(w) - 3) (fitted polynomials)",
        ),
        numpy_helpers=(_erfinv,),
        cpp_helper=_CPP_ERFINV,
        max_error={"float32": 1.92e-07, "float16": 1.21e-03, "bfloat16": 7.69e-03},
    ),
    MathFunction(
        name="sigmoid",
        doc="logistic function 1 / (1 + exp(-x))",
        evaluate=_sigmoid,
        numpy="_sigmoid({})",
        cpp="(1.0 / (1.0 + std::exp(-({}))))",
        latex=_plain("sigmoid"),
        partials=lambda x: (_mul(_call("sigmoid", x), _sub(_num(1.0), _call("sigmoid", x))),),
        lowering=VectorApi(
            "Sigmoid",
            "adv_api/activation/sigmoid.h",
            _sigmoid,
            ("arch22", "arch20", "arch35", "arch12"),
            bf16=False,
            in_place=False,
        ),
        numpy_helpers=(_sigmoid,),
        max_error={"float32": 2.99e-08, "float16": 2.45e-04, "bfloat16": None},
    ),
    MathFunction(
        name="softplus",
        doc="log(1 + exp(x)) (torch's beta/threshold form is written with where())",
        evaluate=_softplus,
        numpy="_softplus({})",
        cpp="FormulaSoftplus({})",
        latex=lambda w: (r"\log" + w.paren(f"1 + exp{w.paren(w.arg(0))}"), Prec.ATOM),
        partials=lambda x: (_call("sigmoid", x),),
        lowering=Composition(
            _softplus_lowering,
            "Maxs(x, 0) + log1p(v) with v = Exp(-|x|) in [0, 1], log1p as Ln(w) * (v / (w - 1)), w = 1 + v",
        ),
        numpy_helpers=(_softplus,),
        cpp_helper=_CPP_SOFTPLUS,
        max_error={"float32": 1.12e-07, "float16": 8.46e-04, "bfloat16": 5.92e-03},
    ),
    MathFunction(
        name="abs",
        doc="absolute value",
        evaluate=np.abs,
        numpy="np.abs({})",
        cpp="std::fabs({})",
        latex=lambda w: (f"\\left|{w.arg(0)}\\right|", Prec.ATOM),
        partials=lambda x: (_call("sign", x),),
        lowering=VectorApi("Abs", _UNARY_HEADER, np.abs, _ALL_SOCS),
        max_error={"float32": 0.0, "float16": 0.0, "bfloat16": 0.0},
    ),
    MathFunction(
        name="sign",
        doc="-1, 0 or 1 by the sign of x; 0 for NaN (torch.sign)",
        evaluate=_sign,
        numpy="_sign({})",
        cpp="FormulaSign({})",
        latex=_plain("sign"),
        partials=lambda x: (_num(0.0),),
        lowering=VectorApi(
            "Sign", _ADV_HEADER.format("sign"), _sign, ("arch22", "arch20", "arch35"), bf16=False, in_place=False
        ),
        numpy_helpers=(_sign,),
        cpp_helper=_CPP_SIGN,
        max_error={"float32": 0.0, "float16": 0.0, "bfloat16": None},
    ),
    MathFunction(
        name="floor",
        doc="largest integer <= x",
        evaluate=np.floor,
        numpy="np.floor({})",
        cpp="std::floor({})",
        latex=lambda w: (f"\\lfloor {w.arg(0)} \\rfloor", Prec.ATOM),
        partials=lambda x: (_num(0.0),),
        lowering=VectorApi("Floor", _ADV_HEADER.format("floor"), np.floor, _ADVANCED_MATH, bf16=False, in_place=False),
        max_error={"float32": 0.0, "float16": 0.0, "bfloat16": None},
    ),
    MathFunction(
        name="trunc",
        doc="x rounded toward zero to an integer",
        evaluate=np.trunc,
        numpy="np.trunc({})",
        cpp="std::trunc({})",
        latex=_plain("trunc"),
        partials=lambda x: (_num(0.0),),
        lowering=VectorApi("Trunc", _ADV_HEADER.format("trunc"), np.trunc, _ADVANCED_MATH, bf16=False, in_place=False),
        max_error={"float32": 0.0, "float16": 0.0, "bfloat16": None},
    ),
    MathFunction(
        name="square",
        doc="x * x",
        evaluate=_square,
        numpy="np.square({})",
        cpp="({0} * {0})",
        latex=lambda w: (f"{w.arg(0, Prec.ATOM)}^{{2}}", Prec.POW),
        partials=lambda x: (_mul(_num(2.0), x),),
        lowering=Composition(_square_lowering, "Mul(x, x)"),
        max_error={"float32": 5.92e-08, "float16": 4.53e-04, "bfloat16": 3.49e-03},
    ),
)

FUNCTIONS: Mapping[str, MathFunction] = {f.name: f for f in _TABLE}

STRUCTURAL: Mapping[str, StructuralFunction] = {
    s.name: s
    for s in (
        StructuralFunction(
            "where",
            3,
            "where(c, a, b): a where c holds, else b (NaN comparisons are false)",
            r"\begin{cases} a, &if\ c \\ b, &otherwise \end{cases}",
            "Compare/CompareScalar to a bit mask, then Select",
        ),
        StructuralFunction(
            "select", 3, "the same as where", r"\begin{cases} a, &if\ c \\ b, &otherwise \end{cases}", "as where"
        ),
        StructuralFunction(
            "min",
            2,
            "the smaller argument; NaN if either is NaN; on a tie (-0.0 vs 0.0) the tensor against a host-known "
            "bound (clamp), else the first (torch.minimum)",
            r"\min(a, b)",
            "Min / Mins; where a zero may tie, Compare(EQ) + Select keep that operand's sign of zero",
        ),
        StructuralFunction(
            "max",
            2,
            "the larger argument; NaN if either is NaN; on a tie (-0.0 vs 0.0) the tensor against a host-known "
            "bound (relu, clamp: max(0, -0.0) is -0.0), else the first (torch.maximum)",
            r"\max(a, b)",
            "Max / Maxs; where a zero may tie, Compare(EQ) + Select keep that operand's sign of zero",
        ),
        StructuralFunction(
            "clamp",
            3,
            "clamp(x, lo, hi) = min(max(x, lo), hi) (hi wins when lo > hi; x itself, -0.0 included, when within the "
            "bounds, as in PyTorch)",
            r"\min(\max(x, lo), hi)",
            "Maxs then Mins (each as min / max)",
        ),
        StructuralFunction(
            "pow",
            2,
            "pow(a, b) = a ** b; the exponent must be known on the host",
            "a^{b}",
            "integer exponents up to 16: a Mul chain (x**3 = x * x * x), Reciprocal of it when negative; "
            "Sqrt for 0.5, Rsqrt for -0.5; x**0 is 1",
        ),
        StructuralFunction(
            "rowmax",
            1,
            "the largest element of x's row along the operator's dim (the elements sharing every other index), given "
            "to every element of the row; NaN if the row holds one; an expression of tensors, and may hold reductions",
            r"\max_{j} x_{j}",
            "the reduce_dim schedule's levels: a last dim through `ReduceMax` over the row (chunks folded with "
            "`Max`); a dim that is not the last, `Max` of the rows element by element across the columns",
        ),
        StructuralFunction(
            "rowsum",
            1,
            "the sum of x's row along the operator's dim, given to every element of the row (0 for an empty row)",
            r"\sum_{j} x_{j}",
            "the reduce_dim schedule's levels: groups of 64 elements through `WholeReduceSum`, the group sums "
            "added in a fixed binary-counter order (the same order for a dim that is not the last, with `Add`), so "
            "results do not depend on cores or tiles",
        ),
    )
}

VECTOR_APIS: Mapping[str, VectorApi] = {
    f.lowering.name: f.lowering for f in _TABLE if isinstance(f.lowering, VectorApi)
}

# The vector APIs arithmetic, comparisons, where, min/max and dtype changes lower to (the kernel's own lowering
# emits nothing else; its function calls lower to VECTOR_APIS).
STRUCTURAL_APIS: tuple[str, ...] = (
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Max",
    "Min",
    "Adds",
    "Muls",
    "Maxs",
    "Mins",
    "LeakyRelu",
    "Compare",
    "CompareScalar",
    "Select",
    "Duplicate",
    "Cast",
)
# Every vector API a lowered kernel may call: what a spec's `kernel.vector_apis` may name.
KERNEL_APIS: tuple[str, ...] = STRUCTURAL_APIS + tuple(VECTOR_APIS)


# The numpy spellings of the structural min and max (torch's ties and NaN), by the name `used` gives them.
MIN_MAX_HELPERS: Mapping[str, Callable[..., np.ndarray]] = {"min": _minimum, "max": _maximum}


# The numpy spellings of the reductions along dim (a Reduce node's op): (values, axis, shape=None) -> kept axis.
REDUCTION_HELPERS: Mapping[str, Callable[..., np.ndarray]] = {"max": _row_max, "sum": _row_sum}


def numpy_helper_source(used: Collection[str] | None = None) -> str:
    """The helper functions the numpy spellings of the functions `used` (default: all; `min`/`max` for the structural
    ones, `rowmax`/`rowsum` for the reductions) call, as Python source separated by two blank lines; empty when they
    call none."""
    seen: dict[str, str] = {}
    for name, helper in MIN_MAX_HELPERS.items():
        if used is None or name in used:
            seen.setdefault(helper.__name__, inspect.getsource(helper).strip())
    for op, helper in REDUCTION_HELPERS.items():
        if used is None or REDUCTION_SPELLING[op] in used:
            seen.setdefault(helper.__name__, inspect.getsource(helper).strip())
    for function in _TABLE:
        if used is None or function.name in used:
            for helper in function.numpy_helpers:
                seen.setdefault(helper.__name__, inspect.getsource(helper).strip())
    return "\n\n\n".join(seen.values()) + "\n" if seen else ""


def cpp_helper_source(used: Collection[str] | None = None) -> str:
    """The C++ helper functions the C++ spellings of the functions `used` (default: all) call."""
    return "".join(f.cpp_helper for f in _TABLE if used is None or f.name in used)
