"""The formula language of operator specs: text -> typed IR -> numpy reference, LaTeX, canonical text.

    expr = parse("where(self > 0, gradOutput, gradOutput * negativeSlope)",
                 {"self": Symbol.tensor(), "gradOutput": Symbol.tensor(), "negativeSlope": Symbol.scalar()})
    evaluate(expr, {"self": x, "gradOutput": g, "negativeSlope": 0.01}, np.float16)
    to_latex(expr)

The grammar is documented in `parser.py`; the type rules in `typecheck.py`.
"""

from .cpp import CPP_HELPERS, cpp_helpers, to_cpp
from .derivative import Difference, differentiate, first_difference, first_row_difference, vjp
from .errors import FormulaError
from .functions import (
    ELEMENT_TOLERANCE,
    FUNCTIONS,
    KERNEL_APIS,
    STRUCTURAL,
    VECTOR_APIS,
    Composition,
    MathFunction,
    VectorApi,
)
from .ir import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    Expr,
    Logical,
    Name,
    Reduce,
    Select,
    Str,
    Unary,
    children,
    depth,
    flags_used,
    free_names,
    has_reduction,
    is_string,
    reductions,
    replace_children,
    rewrite,
    tie_operands,
    varies_along_row,
    walk,
)
from .latex import describe_condition, to_latex
from .numpy_source import NUMPY_HELPERS, numpy_helpers, to_numpy
from .parser import parse
from .reference import evaluate, round_to_dtype
from .simplify import fold_constants, is_constant, specialize, substitute
from .symbols import Symbol, SymbolKind
from .text import to_text
from .typecheck import ExprType, ValueType, type_of

__all__ = [
    "CPP_HELPERS",
    "ELEMENT_TOLERANCE",
    "FUNCTIONS",
    "KERNEL_APIS",
    "NUMPY_HELPERS",
    "STRUCTURAL",
    "VECTOR_APIS",
    "Binary",
    "BoolConst",
    "Call",
    "Compare",
    "Composition",
    "Const",
    "Difference",
    "Expr",
    "ExprType",
    "FormulaError",
    "Logical",
    "MathFunction",
    "Name",
    "Reduce",
    "Select",
    "Str",
    "Symbol",
    "SymbolKind",
    "Unary",
    "ValueType",
    "VectorApi",
    "children",
    "cpp_helpers",
    "depth",
    "describe_condition",
    "differentiate",
    "evaluate",
    "first_difference",
    "first_row_difference",
    "flags_used",
    "fold_constants",
    "free_names",
    "has_reduction",
    "is_constant",
    "is_string",
    "numpy_helpers",
    "parse",
    "reductions",
    "replace_children",
    "rewrite",
    "round_to_dtype",
    "specialize",
    "substitute",
    "tie_operands",
    "to_cpp",
    "to_latex",
    "to_numpy",
    "to_text",
    "type_of",
    "varies_along_row",
    "vjp",
    "walk",
]
