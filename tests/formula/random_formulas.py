"""Random well-typed formula IR for property tests (round trip, folding exactness, specialisation)."""

from __future__ import annotations

import math
import random

import numpy as np

from opgen import formula as F
from opgen.formula import (
    Binary,
    BoolConst,
    Call,
    Compare,
    Const,
    Expr,
    Logical,
    Name,
    Select,
    Symbol,
    SymbolKind,
    Unary,
)

SYMBOLS = {
    "x": Symbol.tensor(),
    "y": Symbol.tensor(),
    "s": Symbol.scalar(),
    "t": Symbol.scalar(),
    "f": Symbol.flag(),
    "g": Symbol.flag(),
}
CONSTANTS = [
    0.0,
    -0.0,
    1.0,
    2.0,
    -3.0,
    0.5,
    0.1,
    -2.5e-7,
    1e300,
    math.pi,
    -math.e,
    math.inf,
    -math.inf,
    math.nan,
    6.0,
]
FUNCTIONS = sorted(F.FUNCTIONS)  # every function of the table
ARITH = ["add", "sub", "mul", "div", "pow", "min", "max"]
COMPARE = ["lt", "le", "gt", "ge", "eq", "ne"]


def random_num(rng: random.Random, depth: int, uniform: bool = False) -> Expr:
    if depth <= 0 or rng.random() < 0.2:
        if rng.random() < 0.4:
            return Const(rng.choice(CONSTANTS))
        names = ["s", "t"] if uniform else ["x", "y", "s"]
        name = rng.choice(names)
        return Name(name, SYMBOLS[name].kind)
    pick = rng.random()
    if pick < 0.1:
        return Unary("neg", random_num(rng, depth - 1, uniform))
    if pick < 0.55:
        op = rng.choice(ARITH)
        exponent_uniform = uniform or op == "pow"
        return Binary(op, random_num(rng, depth - 1, uniform), random_num(rng, depth - 1, exponent_uniform))
    if pick < 0.8:
        return Call(rng.choice(FUNCTIONS), (random_num(rng, depth - 1, uniform),))
    return Select(
        random_bool(rng, depth - 1, uniform),
        random_num(rng, depth - 1, uniform),
        random_num(rng, depth - 1, uniform),
    )


def random_bool(rng: random.Random, depth: int, uniform: bool = False) -> Expr:
    if depth <= 0 or rng.random() < 0.15:
        if rng.random() < 0.3:
            return BoolConst(rng.random() < 0.5)
        name = rng.choice(["f", "g"])
        return Name(name, SymbolKind.FLAG)
    pick = rng.random()
    if pick < 0.5:
        return Compare(rng.choice(COMPARE), random_num(rng, depth - 1, uniform), random_num(rng, depth - 1, uniform))
    if pick < 0.7:
        return Logical("not", (random_bool(rng, depth - 1, uniform),))
    if pick < 0.9:
        op = rng.choice(["and", "or"])
        return Logical(op, (random_bool(rng, depth - 1, uniform), random_bool(rng, depth - 1, uniform)))
    return Select(
        random_bool(rng, depth - 1, uniform),
        random_bool(rng, depth - 1, uniform),
        random_bool(rng, depth - 1, uniform),
    )


def random_env(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 6.0, 1e-300, -1e300])
    return {
        "x": np.concatenate([specials, rng.standard_normal(22) * 5]),
        "y": np.concatenate([rng.standard_normal(22) * 5, specials[::-1]]),
        "s": 0.75,
        "t": -2.0,
        "f": True,
        "g": False,
    }


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equality, every NaN equal to every NaN."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    if a.dtype == np.bool_ or b.dtype == np.bool_:
        return a.dtype == b.dtype and bool(np.array_equal(a, b))
    a, b = a.astype(np.float64), b.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    return bool(np.array_equal(a[~nan_a].view(np.int64), b[~nan_b].view(np.int64)))
