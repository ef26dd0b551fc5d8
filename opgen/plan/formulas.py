"""The operator's formulas as the generated sources print them, computed once from the spec's formula section.

Emitters print formulas (numpy references, AICPU C++, the docs' LaTeX) from these tables; the printer is theirs,
the formulas, their local names (formula.let) and how each parameter is named are the plan's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from opgen import formula as F
from opgen.spec.formula_binding import (
    kernel_formulas,
    latex_symbols,
    let_definitions,
    let_local,
    parsed_formulas,
    reference_names,
)
from opgen.spec.model import OpSpec


@dataclass(frozen=True)
class FormulaPlan:
    written: dict[str, F.Expr]  # each computed output's formula as written (short variable and let names)
    over_params: dict[str, F.Expr]  # each computed output's formula over parameter names only
    lets: dict[str, F.Expr]  # each formula.let as written, in order (empty without formula.let)
    aliases: dict[str, str]  # formula.vars: short name -> the parameter (or half) it stands for
    latex: dict[str, str]  # each parameter's LaTeX symbol, where the spec gives one
    python_names: dict[str, str]  # how generated Python refers to each parameter in formulas (reference_names)
    # reduce_dim.dim: the int64 parameter (or literal dim) the formula's reductions run along; None: no reduction
    reduce_dim: str | int | None = None
    # the outputs holding one value per row (`rows_of`): their references drop the reduced dim
    per_row: tuple[str, ...] = ()

    def sources(
        self, names: Mapping[str, str], printer: Callable[[F.Expr, Mapping[str, str]], str]
    ) -> tuple[list[tuple[str, str]], dict[str, str]]:
        """Generated source of each computed output, `printer` writing an expression over `names` (how the generated
        code refers to each parameter): each formula.let's (local variable, source), in order, to be assigned once
        before the outputs' sources, which use those variables (none without formula.let)."""
        if not self.lets:
            return [], {name: printer(expr, names) for name, expr in self.over_params.items()}
        known = dict(names) | {var: names.get(target, target) for var, target in self.aliases.items()}
        assigned: list[tuple[str, str]] = []
        for name, expr in self.lets.items():
            assigned.append((let_local(name), printer(expr, known)))
            known[name] = let_local(name)
        return assigned, {name: printer(expr, known) for name, expr in self.written.items()}


def formula_plan(spec: OpSpec) -> FormulaPlan:
    return FormulaPlan(
        written=parsed_formulas(spec),
        over_params=kernel_formulas(spec),
        lets=let_definitions(spec) if spec.formula.let else {},
        aliases=dict(spec.formula.vars),
        latex=latex_symbols(spec),
        python_names=reference_names(spec),
        reduce_dim=spec.reduce_dim.dim if spec.reduce_dim is not None else None,
        per_row=tuple(spec.per_row_outputs),
    )
