"""IR -> numpy source text (float64 semantics of the reference), for standalone generated test files.

The emitted expression uses only `np` and the helpers in `NUMPY_HELPERS`, so a generated file can carry
the spec's reference implementation without importing opgen.
"""

from __future__ import annotations

from collections.abc import Mapping

from opgen.lang import python

from .ir import Expr
from .source_printer import Dialect, print_source

NUMPY_HELPERS = """\
def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _sign(x):
    return np.where(np.isnan(x), 0.0, np.sign(x))
"""


def _literal(value: float) -> str:
    text = python.float_literal(value)  # the one Python float formatter (math.nan, math.inf)
    return f"({text})" if text.startswith("-") else text


NUMPY = Dialect(
    literal=_literal,
    true="True",
    false="False",
    infix={"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"},
    binary_calls={"min": "np.minimum({a}, {b})", "max": "np.maximum({a}, {b})"},
    logical={"and": "np.logical_and({a}, {b})", "or": "np.logical_or({a}, {b})", "not": "np.logical_not({a})"},
    calls={
        "exp": "np.exp({})",
        "log": "np.log({})",
        "sqrt": "np.sqrt({})",
        "abs": "np.abs({})",
        "tanh": "np.tanh({})",
        "erf": "_erf({})",
        "log1p": "np.log1p({})",
        "expm1": "np.expm1({})",
        "sigmoid": "_sigmoid({})",
        "rsqrt": "(1.0 / np.sqrt({}))",
        "reciprocal": "(1.0 / {})",
        "sign": "_sign({})",
    },
    select="np.where({c}, {a}, {b})",
)


def to_numpy(expr: Expr, names: Mapping[str, str] | None = None) -> str:
    """Python source computing `expr` with numpy (operands float64 arrays or scalars, flags bools)."""
    return print_source(expr, NUMPY, names)
