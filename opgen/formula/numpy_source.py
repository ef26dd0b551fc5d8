"""IR -> numpy source text (float64 semantics of the reference), for standalone generated test files.

The emitted expression uses only `np` and the helpers in `NUMPY_HELPERS` (which use `np` and `math`), so a
generated file can carry the spec's reference implementation without importing opgen. Spellings come from
the function table (`functions.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from opgen.lang import python

from .functions import FUNCTIONS, MIN_MAX_HELPERS, REDUCTION_HELPERS, numpy_helper_source
from .grammar import REDUCTION_SPELLING
from .ir import Binary, Call, Expr, Reduce, walk
from .source_printer import Dialect, Row, print_source

# Every helper function the spellings call (blank-line separated); a generated file takes `numpy_helpers`.
NUMPY_HELPERS = numpy_helper_source()


def numpy_helpers(exprs: Iterable[Expr]) -> str:
    """Source of the helper functions `to_numpy` of these expressions calls, and no other ("" if none)."""
    used: set[str] = set()
    for e in exprs:
        for n in walk(e, unique=True):
            if isinstance(n, Call):
                used.add(n.func)
            elif isinstance(n, Binary) and n.op in ("min", "max"):
                used.add(n.op)
            elif isinstance(n, Reduce):
                used.add(REDUCTION_SPELLING[n.op])
    return numpy_helper_source(used)


def _literal(value: float) -> str:
    text = python.float_literal(value)  # the one Python float formatter (math.nan, math.inf)
    return f"({text})" if text.startswith("-") else text


NUMPY = Dialect(
    literal=_literal,
    true="True",
    false="False",
    infix={"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"},
    binary_calls={op: f"{helper.__name__}({{a}}, {{b}})" for op, helper in MIN_MAX_HELPERS.items()},
    logical={"and": "np.logical_and({a}, {b})", "or": "np.logical_or({a}, {b})", "not": "np.logical_not({a})"},
    calls={name: function.numpy for name, function in FUNCTIONS.items()},
    select="np.where({c}, {a}, {b})",
    string=lambda value: str(python.string(value)),
    string_compare={"eq": "({a} == {b})", "ne": "({a} != {b})"},
    reductions={op: f"{helper.__name__}({{}}, {{a}})" for op, helper in REDUCTION_HELPERS.items()},
    name="numpy",
)


def to_numpy(
    expr: Expr, names: Mapping[str, str] | None = None, *, axis: str | None = None, shape: str | None = None
) -> str:
    """Python source computing `expr` with numpy (operands float64 arrays or scalars, flags bools). A formula with
    reductions needs `axis`, the source of the axis they reduce along (e.g. `dim`), and, where the formula's tensors
    broadcast, `shape`, the source of their common shape, which each reduced operand is broadcast to first (as the
    reference does); each reduction keeps its axis (length 1), so that it broadcasts back along the row."""
    return print_source(expr, NUMPY, names, None if axis is None else Row(axis, shape))
