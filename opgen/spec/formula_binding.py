"""Binds a spec's parameters to the formula language: symbol tables, LaTeX names, reference evaluation."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from opgen import formula
from opgen.lang import python
from opgen.spec.base import Direction, ParamKind

if TYPE_CHECKING:
    from opgen.spec.model import OpSpec

_SYMBOL_KIND = {
    ParamKind.SCALAR: formula.SymbolKind.SCALAR,
    ParamKind.BOOL: formula.SymbolKind.FLAG,
    ParamKind.INT64: formula.SymbolKind.SCALAR,  # a host-known number (with `values`, a kernel mode)
    ParamKind.STRING: formula.SymbolKind.STRING,  # compared with string literals only; a kernel mode
}


def formula_symbols(spec: OpSpec, *, tensors: bool = True) -> dict[str, formula.Symbol]:
    """Names a formula (tensors=True) or an error condition (tensors=False) may use."""
    table: dict[str, formula.Symbol] = {}
    for param in spec.params:
        if param.kind is ParamKind.TENSOR:
            if tensors and param.direction is Direction.INPUT:
                table[param.name] = formula.Symbol(formula.SymbolKind.TENSOR)
        else:
            table[param.name] = formula.Symbol(_SYMBOL_KIND[param.kind])
    if tensors:
        for var, target in spec.formula.vars.items():
            if target in table:
                table[var] = table[target]
    return table


@lru_cache(maxsize=512)
def _parse_cached(text: str, symbols: tuple[tuple[str, formula.Symbol], ...]) -> formula.Expr:
    return formula.parse(text, dict(symbols))


def parse_with(text: str, symbols: dict[str, formula.Symbol]) -> formula.Expr:
    """Parse `text` over `symbols`, once per distinct (text, symbol table): the IR is immutable."""
    return _parse_cached(text, tuple(sorted(symbols.items())))


def parse_condition(spec: OpSpec, text: str) -> formula.Expr:
    """An error-table condition over the spec's scalars and flags."""
    return parse_with(text, formula_symbols(spec, tensors=False))


def reference_names(spec: OpSpec) -> dict[str, str]:
    """How generated Python refers to each parameter in formulas: its Python name; an optional scalar that
    is None (a null pointer) stands for its null_default."""
    names = {p.name: p.python for p in spec.params}
    for p in spec.params:
        if p.null_default is not None:
            names[p.name] = f"({p.python} if {p.python} is not None else {python.float_literal(p.null_default)})"
    return names


def latex_symbols(spec: OpSpec) -> dict[str, str]:
    return {p.name: p.latex for p in spec.params if p.latex}


def parsed_formula(spec: OpSpec) -> formula.Expr:
    return parse_with(spec.formula.expr, formula_symbols(spec))


def kernel_formula(spec: OpSpec) -> formula.Expr:
    """The formula over parameter names only (`formula.vars` aliases replaced), as kernels see it."""
    expr = parsed_formula(spec)
    symbols = formula_symbols(spec)
    aliases = {var: formula.Name(target, symbols[target].kind) for var, target in spec.formula.vars.items()}
    return formula.substitute(expr, aliases) if aliases else expr


def evaluate_reference(
    spec: OpSpec, values: Mapping[str, np.ndarray | float | bool | str], out_dtype: np.dtype | None
) -> np.ndarray:
    """The spec's numpy reference: float64 inside, rounded once to `out_dtype` (None: float64 unrounded).

    With integer tensors the scalar parameters are truncated to integers first: torch and ops-nn (ConvertToTensor
    in self's dtype) both meet an integer tensor with the scalar in its dtype."""
    env = dict(values)
    if any(np.asarray(values[p.name]).dtype.kind in "iu" for p in spec.tensor_inputs if p.name in values):
        for p in spec.params:
            if p.kind is ParamKind.SCALAR and values.get(p.name) is not None:
                env[p.name] = float(np.trunc(np.float64(values[p.name])))
    for var, target in spec.formula.vars.items():
        env[var] = values[target]
    return formula.evaluate(parsed_formula(spec), env, out_dtype)


def torch_differences(spec: OpSpec) -> list[formula.Expr]:
    """The conditions of golden.differs_from_torch over parameter names (`formula.vars` aliases replaced)."""
    symbols = formula_symbols(spec)
    aliases = {var: formula.Name(target, symbols[target].kind) for var, target in spec.formula.vars.items()}
    parsed = [parse_with(d.when, symbols) for d in spec.golden.differs_from_torch]
    return [formula.substitute(e, aliases) if aliases else e for e in parsed]


def differs_from_torch(
    spec: OpSpec, values: Mapping[str, np.ndarray | float | bool | str], shape: tuple[int, ...]
) -> np.ndarray:
    """Boolean mask of `shape`: where a declared difference from torch.ops.aten holds for these inputs."""
    mask = np.zeros(shape, dtype=bool)
    for expr in torch_differences(spec):
        env = {name: values[name] for name in formula.free_names(expr)}
        mask |= np.broadcast_to(formula.evaluate(expr, env).astype(bool), shape)
    return mask
