"""Binds a spec's parameters to the formula language: symbol tables, LaTeX names, reference evaluation."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from opgen import formula
from opgen.formula.complex import evaluate_complex
from opgen.formula.integer import evaluate_integer
from opgen.lang import python
from opgen.spec.base import Direction, ParamKind
from opgen.spec.channel_broadcast import CHANNEL_SOURCE, REDUCE_SOURCE, channel_sum, channel_view
from opgen.spec.dtypes import wrap_integer
from opgen.spec.half_split import SPLIT_SOURCE, join_halves, split_half

if TYPE_CHECKING:
    from opgen.spec.model import OpSpec

_SYMBOL_KIND = {
    ParamKind.SCALAR: formula.SymbolKind.SCALAR,
    ParamKind.BOOL: formula.SymbolKind.FLAG,
    ParamKind.INT64: formula.SymbolKind.SCALAR,  # a host-known number (with `values`, a kernel mode)
    ParamKind.DOUBLE: formula.SymbolKind.SCALAR,  # a host-known number
    ParamKind.STRING: formula.SymbolKind.STRING,  # compared with string literals only; a kernel mode
}


def formula_symbols(spec: OpSpec, *, tensors: bool = True) -> dict[str, formula.Symbol]:
    """Names a formula (tensors=True) or an error condition (tensors=False) may use."""
    table: dict[str, formula.Symbol] = {}
    for param in spec.params:
        if param.kind is ParamKind.TENSOR:
            if tensors and param.direction is Direction.INPUT:
                # a one-element tensor is one value, the same at every element: a scalar the kernel reads from GM
                kind = formula.SymbolKind.SCALAR if param.shape.one_element else formula.SymbolKind.TENSOR
                table[param.name] = formula.Symbol(kind)
        else:
            table[param.name] = formula.Symbol(_SYMBOL_KIND[param.kind])
    if tensors and spec.split is not None:
        # the formula reads the split tensor through its halves only
        table.pop(spec.split.tensor, None)
        for half in spec.split.halves:
            table[half] = formula.Symbol(formula.SymbolKind.TENSOR)
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
    or string that is None (a null pointer) stands for its null_default."""
    names = {p.name: p.python for p in spec.params}
    for p in spec.params:
        if p.null_default is not None:
            names[p.name] = f"({p.python} if {p.python} is not None else {python.literal(p.null_default)})"
        if p.shape.one_element:  # read as a scalar: its one value, whatever its shape
            names[p.name] = f"np.reshape({p.python}, ())"
        if p.shape.channel_of is not None:  # laid along dim 1 of the tensor it follows (CHANNEL_SOURCE)
            names[p.name] = f"channel_view({p.python}, {spec.param(p.shape.channel_of).python})"
    split = spec.split
    if split is not None:  # each half of the split tensor (SPLIT_SOURCE)
        dim = split.dim if isinstance(split.dim, int) else spec.param(split.dim).python
        for index, half in enumerate(split.halves):
            which = str(index)
            if split.swap_when is not None:
                flag = spec.param(split.swap_when).python
                which = f"{1 - index} if {flag} else {index}"
            names[half] = f"split_half({spec.param(split.tensor).python}, {dim}, {which})"
    return names


def half_index(spec: OpSpec, half: str, values: Mapping[str, object]) -> int:
    """Which half of the split tensor the formula's half `half` is in a call with these values (swap_when)."""
    assert spec.split is not None
    return spec.split.halves.index(half) ^ spec.split_swapped(values)


def reference_helpers(spec: OpSpec) -> str:
    """Python the generated references call besides the formula's functions: `channel_view` for channel inputs."""
    source = CHANNEL_SOURCE if any(p.shape.channel_of for p in spec.params) else ""
    source += "\n\n\n" + SPLIT_SOURCE if spec.split is not None else ""
    return source + ("\n\n\n" + REDUCE_SOURCE if spec.formula.reduce else "")


def reduction_of(spec: OpSpec, output: str) -> tuple[str, str] | None:
    """(the tensor whose channels a reduced output keeps, the channel input it is shaped like), or None when the
    output is elementwise."""
    reduction = spec.formula.reduce.get(output)
    if reduction is None:
        return None
    like = spec.param(output).shape.same_as
    assert like is not None  # validated: a reduced output has a channel input's shape
    return reduction.sum_over_channels_of, like


def aligned_values(
    spec: OpSpec, values: Mapping[str, np.ndarray | float | bool | str]
) -> dict[str, np.ndarray | float | bool | str]:
    """`values` with every channel input laid along dim 1 of the tensor it follows, to broadcast against it, and
    every one-element tensor as its one value (0-d: a scalar, whatever its shape), and every optional parameter
    given as None (a null pointer) as its null_default."""
    aligned = dict(values)
    for p in spec.params:
        if p.null_default is not None and p.name in values and values[p.name] is None:
            aligned[p.name] = p.null_default
        if p.shape.one_element and p.name in values:
            aligned[p.name] = np.reshape(values[p.name], ())
        of = p.shape.channel_of
        if of is not None and p.name in values and of in values:
            aligned[p.name] = channel_view(values[p.name], values[of])
    split = spec.split
    if split is not None and split.tensor in values:
        dim = spec.split_dim(values)
        for half in split.halves:
            aligned[half] = split_half(values[split.tensor], dim, half_index(spec, half, values))
    return aligned


def latex_symbols(spec: OpSpec) -> dict[str, str]:
    return {p.name: p.latex for p in spec.params if p.latex}


def let_symbol(expr: formula.Expr) -> formula.Symbol | None:
    """What a local name (formula.let) stands for, by its expression's type: a number that varies per element is
    a tensor, a host-known one a scalar; a boolean or a string cannot be named (None)."""
    kind = formula.type_of(expr)
    if kind.value is not formula.ValueType.NUM:
        return None
    return formula.Symbol.tensor() if kind.varies else formula.Symbol.scalar()


def _local_table(spec: OpSpec) -> tuple[dict[str, formula.Symbol], dict[str, formula.Expr | None]]:
    """The symbols an output expression may use (the parameters, the vars and every formula.let name) and each
    let's expression as written, over the names before it (None where it does not parse or is not a number: such
    a name still counts as a tensor, so that validation reports the let once, not at every use)."""
    symbols = formula_symbols(spec)
    definitions: dict[str, formula.Expr | None] = {}
    for name, text in spec.formula.let.items():
        expr: formula.Expr | None
        try:
            expr = parse_with(text, symbols)
            symbol = let_symbol(expr)
        except formula.FormulaError:
            expr, symbol = None, None
        definitions[name] = expr if symbol is not None else None
        symbols = {**symbols, name: symbol or formula.Symbol.tensor()}
    return symbols, definitions


def output_symbols(spec: OpSpec) -> dict[str, formula.Symbol]:
    """Names an output expression may use: `formula_symbols` and the formula.let names."""
    return _local_table(spec)[0]


def local_lets(spec: OpSpec) -> dict[str, formula.Expr | None]:
    """Each formula.let as written, over the names before it; None where it does not parse or is not a number."""
    return _local_table(spec)[1]


def let_definitions(spec: OpSpec) -> dict[str, formula.Expr]:
    """Each formula.let as written (over the parameters, the vars and the let names before it), in order."""
    definitions = local_lets(spec)
    for name, expr in definitions.items():
        if expr is None:  # validation refuses the spec first; a caller that skipped it learns which let
            raise formula.FormulaError(f"formula.let '{name}' is not a numeric expression of the names before it", 0)
    return {name: expr for name, expr in definitions.items() if expr is not None}


def _names_of_params(spec: OpSpec) -> dict[str, formula.Expr]:
    """Each `formula.vars` alias and formula.let name -> its meaning over parameter names only (a let expanded:
    equal subtrees are one value to the lowering and the references, so a let used twice is computed once)."""
    symbols = formula_symbols(spec)
    meaning: dict[str, formula.Expr] = {
        var: formula.Name(target, symbols[target].kind) for var, target in spec.formula.vars.items()
    }
    for name, expr in let_definitions(spec).items():
        meaning[name] = formula.substitute(expr, meaning)
    return meaning


def _over_params(spec: OpSpec, expr: formula.Expr) -> formula.Expr:
    """`expr` over parameter names only: each `formula.vars` alias replaced by the parameter it names, each
    formula.let name by its expression."""
    if not spec.formula.vars and not spec.formula.let:
        return expr
    return formula.substitute(expr, _names_of_params(spec))


def let_local(name: str) -> str:
    """The local variable holding formula.let `name` in generated code (numpy references, AICPU C++): `_let_` and
    the name, which no parameter's generated name (Python names do not start with '_') nor helper function takes."""
    return f"_let_{name}"


def parsed_formula(spec: OpSpec) -> formula.Expr:
    return parse_with(spec.formula.main_expr, output_symbols(spec))


def parsed_formulas(spec: OpSpec) -> dict[str, formula.Expr]:
    """Each computed output's formula as written (with the spec's short variable names and local names), in the
    outputs' order."""
    symbols = output_symbols(spec)
    return {name: parse_with(text, symbols) for name, text in spec.formula.computed.items()}


def over_params(spec: OpSpec, text: str) -> formula.Expr:
    """Formula-language `text` of this spec (it may use the `formula.vars` aliases) over parameter names only."""
    return _over_params(spec, parse_with(text, formula_symbols(spec)))


def kernel_formula(spec: OpSpec) -> formula.Expr:
    """The formula over parameter names only (`formula.vars` aliases and formula.let names replaced), as kernels
    see it."""
    return _over_params(spec, parsed_formula(spec))


def kernel_formulas(spec: OpSpec) -> dict[str, formula.Expr]:
    """Each computed output's formula over parameter names only, in the outputs' order (the first is
    `kernel_formula`)."""
    return {name: _over_params(spec, expr) for name, expr in parsed_formulas(spec).items()}


def evaluate_reference(
    spec: OpSpec,
    values: Mapping[str, np.ndarray | float | bool | str],
    out_dtype: np.dtype | None,
    output: str | None = None,
) -> np.ndarray:
    """The spec's numpy reference of `output` (default: the first computed one; an output written per half, its
    halves joined, as is the default of such an operator): float64 inside, rounded once to
    `out_dtype` (None: float64 unrounded); for integer inputs in a dtype the spec routes to the AICPU kernel, in that
    integer itself, wrapping (None: that integer dtype); for complex inputs, in complex128 (None: unrounded).

    With integer tensors the scalar parameters are truncated to integers and wrapped into the tensors' promoted
    dtype first: torch and ops-nn (ConvertToTensor in self's dtype) both meet an integer tensor with the scalar in
    its dtype."""
    if output is None and spec.formula.per_half:
        output = next(iter(spec.formula.outputs))
    halves = spec.formula.per_half.get(output or "")
    if halves is not None:  # an output written per half: its halves' references joined along the split dim
        first, second = (evaluate_reference(spec, values, out_dtype, half) for half in halves)
        return join_halves(first, second, spec.split_dim(values), spec.split_swapped(values))
    env = aligned_values(spec, values)
    kinds = [np.asarray(values[p.name]).dtype for p in spec.tensor_inputs if p.name in values]
    integer = None
    if any(k.kind in "iu" for k in kinds):
        integer = np.result_type(*(k for k in kinds if k.kind in "iu"))
        for p in spec.params:
            if p.kind is ParamKind.SCALAR and values.get(p.name) is not None:
                env[p.name] = wrap_integer(float(np.trunc(np.float64(values[p.name]))), integer)
    # over parameter names: a let used twice is one subtree, evaluated once
    expr = kernel_formulas(spec)[output] if output is not None else kernel_formula(spec)
    reduced = reduction_of(spec, output) if output is not None else None
    routed = [d.numpy for d in spec.routing.aicpu if d.is_integral]
    if reduced is None and integer is not None and all(k.kind in "iu" for k in kinds) and integer in routed:
        # the AICPU kernel computes this dtype in the integer itself: so does its reference, wrapping
        result = evaluate_integer(expr, env, integer)
        return result if out_dtype is None else result.astype(out_dtype)
    if reduced is None and any(k.kind == "c" for k in kinds):
        # a complex input: the formula on complex values (validation admits only formulas with a complex meaning)
        result = evaluate_complex(expr, env)
        return result if out_dtype is None else result.astype(out_dtype)
    if reduced is None:
        # a reduction along dim reduces along the spec's (reduce_dim), given in `values` or literal
        axis = spec.split_dim(values) if spec.reduce_dim is not None else None
        # a per-row output (`rows_of`): one value per row, the reduced dim removed
        per_row = (output or spec.formula.main_output) in spec.per_row_outputs
        return formula.evaluate(expr, env, out_dtype, axis=axis, keepdims=not per_row)
    of, like = reduced
    total = channel_sum(formula.evaluate(expr, env), values[of], values[like])
    return total if out_dtype is None else formula.round_to_dtype(total, out_dtype)


def torch_differences(spec: OpSpec) -> list[formula.Expr]:
    """The conditions of golden.differs_from_torch over parameter names (`formula.vars` aliases replaced)."""
    return [over_params(spec, d.when) for d in spec.golden.differs_from_torch]


def differs_from_torch(
    spec: OpSpec, values: Mapping[str, np.ndarray | float | bool | str], shape: tuple[int, ...]
) -> np.ndarray:
    """Boolean mask of `shape`: where a declared difference from torch.ops.aten holds for these inputs. For a
    full-size output written per half (`shape` is the split tensor's), a condition over the halves holds at the
    same place of both halves."""
    if spec.formula.per_half and spec.split is not None:
        dim = spec.split_dim(values)
        half = differs_from_torch_halves(spec, values, split_half(np.zeros(shape), dim, 0).shape)
        return join_halves(half, half, dim)
    return differs_from_torch_halves(spec, values, shape)


def differs_from_torch_halves(
    spec: OpSpec, values: Mapping[str, np.ndarray | float | bool | str], shape: tuple[int, ...]
) -> np.ndarray:
    """`differs_from_torch` over the shape the conditions' tensors have (a half's, for a split operator)."""
    mask = np.zeros(shape, dtype=bool)
    aligned = aligned_values(spec, values)
    for expr in torch_differences(spec):
        env = {name: aligned[name] for name in formula.free_names(expr)}
        mask |= np.broadcast_to(formula.evaluate(expr, env).astype(bool), shape)
    return mask


def derived_inputs(spec: OpSpec) -> list[tuple[str, formula.Expr]]:
    """golden.derived_inputs as (input, expression over parameter names), `formula.vars` aliases replaced, in
    dependency order: an input derived from another derived one comes after it (validation refuses cycles)."""
    parsed = {name: over_params(spec, text) for name, text in spec.golden.derived_inputs.items()}
    ordered: list[tuple[str, formula.Expr]] = []
    seen: set[str] = set()

    def place(name: str) -> None:
        if name in parsed and name not in seen:
            seen.add(name)
            for used in formula.free_names(parsed[name]):
                place(used)
            ordered.append((name, parsed[name]))

    for name in parsed:
        place(name)
    return ordered


def derived_per_case(spec: OpSpec) -> set[str]:
    """The derived inputs of a half-split operator that read its halves or its scalars (or another such input): each
    is derived per golden case, once the case's values are chosen and the split tensor is cut (GeGluBackward's gelu,
    the forward's gelu of the gate half); the others are derived when the inputs are drawn."""
    if spec.split is None:
        return set()
    tensors = {p.name for p in spec.tensor_inputs}
    found: set[str] = set()
    for name, expr in derived_inputs(spec):  # dependency order: an input's sources are classified before it
        if any(n not in tensors or n in found for n in formula.free_names(expr)):
            found.add(name)
    return found


def derive_inputs(
    spec: OpSpec, values: Mapping[str, np.ndarray], dtype: np.dtype | None = None
) -> dict[str, np.ndarray]:
    """`values` (the tensor inputs, all of one shape) with each derived input (golden.derived_inputs) replaced by
    its expression of the others: computed in float64 from the values as given (an earlier derived one as
    rounded), rounded once to `dtype` (default: that input's dtype in `values`). Those derived per case
    (`derived_per_case`) are left as given."""
    result = dict(values)
    per_case = derived_per_case(spec)
    for name, expr in derived_inputs(spec):
        if name in per_case:
            continue
        shape = np.shape(values[name])
        env = {used: result[used] for used in formula.free_names(expr)}
        target = dtype if dtype is not None else np.asarray(values[name]).dtype
        derived = formula.evaluate(expr, env)
        result[name] = formula.round_to_dtype(np.broadcast_to(derived, shape), target)
    return result
