"""A backward spec's link to its forward spec (`derivative_of`): the derived formula, and the check that the
backward formula is the derivative of the forward one.

For a forward `y = f(x, scalars)` the backward computes `grad * f'(x)`. The check differentiates the forward
formula symbolically (opgen.formula.differentiate) and compares the two numerically (first_difference: random
points and points either side of every branch boundary) for each combination of the backward's golden scalar
values that its error table accepts. When the backward is handed the forward's result instead of its input
(`holds: result`, or a `result_flag` that is true), its formula is evaluated at `y = f(x)`, so `isResult`-style
modes are checked on the same footing. An input holding another of the forward's outputs (`saved: {gelu: outGelu}`,
GeGluBackward's gelu) stands for that output's formula at the same point. A backward spec may leave `formula.expr`
out and take the derived one.

A forward that reduces along dim (rowmax, rowsum: softmax) makes each output element depend on its row: the
backward must compute the gradient times the forward's Jacobian along the row (formula.vjp, derived symbolically),
compared over sample rows (formula.first_row_difference: rows of 1, 2, 3 and 5 elements, random and either side of
every branch boundary, including where the row's maximum moves to another element).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from opgen import formula
from opgen.spec.diagnostics import Diagnostic, FieldPath, Location, SpecError
from opgen.spec.formula_binding import derived_inputs, formula_symbols, kernel_formula, kernel_formulas
from opgen.spec.model import DerivativeOf, Direction, OpSpec, Param, ParamKind
from opgen.spec.names import UNLINKED_BACKWARD, ClaimedName
from opgen.spec.yaml_source import load_yaml

# Scalar combinations checked per pair: the golden values' product, capped (first ones in order).
MAX_COMBINATIONS = 64
# Both sides are float64 evaluations of formulas that are equal in exact arithmetic but may be written
# differently (e.g. y * (1 - y) against the derivative's sigmoid(x) * (1 - sigmoid(x))).
RTOL = 1e-7
ATOL = 1e-10


@dataclass(frozen=True)
class LinkProblem:
    path: FieldPath
    message: str


def forward_spec_path(backward_path: Path, link: DerivativeOf) -> Path:
    """The forward spec: `<forward>.yaml` in the backward spec's folder."""
    return backward_path.parent / f"{link.forward}.yaml"


def derived_formula_text(backward: OpSpec, forward: OpSpec) -> str:
    """`grad * d forward / d x` over the backward's parameter names, as formula text."""
    wrt, names = _forward_names(backward, forward)
    return formula.to_text(_expected(backward, forward, wrt, names))


def check_backward(backward: OpSpec, forward: OpSpec, forward_file: str) -> list[LinkProblem]:
    """Problems with the link, or the first point where the backward formula is not the derivative."""
    link = _link(backward)
    try:
        wrt, names = _forward_names(backward, forward)
    except _Unlinked as exc:
        return [LinkProblem(exc.path, exc.message)]
    if backward.formula.per_half or forward.split is not None:
        return _check_halves(backward, forward, forward_file, names)
    expected = _expected(backward, forward, wrt, names)
    saved = _saved_outputs(backward, forward)
    if isinstance(saved, LinkProblem):
        return [saved]
    written = formula.substitute(kernel_formula(backward), {k: formula.substitute(v, names) for k, v in saved.items()})
    forward_at_x = formula.substitute(kernel_formula(forward), names)
    flags = [False, True] if link.result_flag else [link.holds == "result"]
    for values in _scalar_combinations(backward):
        for takes_result in flags:
            point_values = {**values, **({link.result_flag: takes_result} if link.result_flag else {})}
            if backward.rejects_scalars(point_values):  # the pair need not agree where the API refuses
                continue
            actual = formula.substitute(written, {link.input: forward_at_x}) if takes_result else written
            rows = formula.has_reduction(actual) or formula.has_reduction(expected)
            compare = formula.first_row_difference if rows else formula.first_difference
            difference = compare(actual, expected, point_values, rtol=RTOL, atol=ATOL)
            if difference is not None:
                point = {**difference.point, **point_values}
                shown = {k: repr(v) for k, v in point.items()}
                mode = f" ({link.input} holding {link.forward}'s result)" if takes_result else ""
                if takes_result:  # the sample is the forward's input x; the backward's input held f(x)
                    x = point[link.input]
                    held = _row_at(forward_at_x, point) if rows else _value_at(forward_at_x, point)  # type: ignore[arg-type]
                    shown[link.input] = f"{held!r} ({link.forward}'s result at {x!r})"
                where = ", ".join(f"{k}={v}" for k, v in shown.items())
                if rows:  # a reduction: the backward is the gradient times the forward's Jacobian along the row
                    message = (
                        f"the formula is not the gradient times the Jacobian of {link.forward}'s formula along the row "
                        f"({forward_file}){mode}: on the row {where}, element {difference.element} is "
                        f"{difference.first!r}, the vector-Jacobian product's {difference.second!r}"
                    )
                else:
                    message = (
                        f"the formula is not the derivative of {link.forward}'s formula ({forward_file}){mode}: "
                        f"at {where} it gives {difference.first!r}, the derivative {difference.second!r}"
                    )
                path: FieldPath = (
                    backward.formula.expr_path(backward.formula.main_output)
                    if backward.formula.main_expr
                    else ("derivative_of",)
                )
                return [LinkProblem(path, message)]
    return []


def unlinked_backwards(specs: Sequence[tuple[Path, str, Sequence[ClaimedName]]]) -> list[Diagnostic]:
    """A warning for each aten `X_backward` spec without derivative_of whose forward X has a spec in the same
    folder: linked, `opgen check` would verify its formula against X's derivative. A warning, not an error, so that
    adding a forward spec never makes a backward spec that passed fail. `specs`: (file, as shown, claimed names)."""
    forwards = {(path.parent, name.value): path for path, _, names in specs for name in names if name.kind == "aten op"}
    warnings = []
    for path, shown, names in specs:
        for name in names:
            forward = forwards.get((path.parent, name.value.removesuffix("_backward")))
            if name.kind != UNLINKED_BACKWARD or forward is None:
                continue
            message = (
                f"warning: {name.value}'s forward {name.value.removesuffix('_backward')} is specified beside it "
                f"({forward.name}): add `derivative_of: {{forward: {forward.stem}, grad: <the gradient input>, "
                f"input: <the tensor holding the forward's input>}}` (`holds: result` where it holds the forward's "
                "result), so that opgen check verifies this formula against its derivative"
            )
            warnings.append(Diagnostic(Location(shown, name.line, name.column), name.path, message, "unlinked"))
    return warnings


# ---------------------------------------------------------------------------------------------- internals


def _value_at(expr: formula.Expr, point: Mapping[str, float | bool | int | str]) -> float:
    """A formula's float64 value at one point (tensors as 0-d arrays)."""
    env = {k: np.float64(v) if isinstance(v, float) else v for k, v in point.items()}
    return float(np.asarray(formula.evaluate(expr, env), dtype=np.float64))


def _row_at(expr: formula.Expr, point: Mapping[str, tuple[float, ...] | float | bool | int | str]) -> tuple[float, ...]:
    """A formula's float64 values on one row (tensors as the row's elements; reductions along it)."""
    env = {k: np.array(v) if isinstance(v, tuple) else v for k, v in point.items()}
    return tuple(float(v) for v in np.atleast_1d(formula.evaluate(expr, env, axis=-1)))


def _check_halves(
    backward: OpSpec, forward: OpSpec, forward_file: str, names: Mapping[str, formula.Expr]
) -> list[LinkProblem]:
    """A backward over a half-split forward writes one full-size gradient per half: each half of the gradient must be
    the gradient times the forward's derivative with respect to the half of the split tensor lying where it is
    written. Each half is compared at sample points as a plain backward is; the first difference is named with its
    half and point.

    With swap_when (a flag trading the halves' places, GeGluV3's activateLeft), the kernel reads a formula's half k
    from, and writes an output's half k to, the place of the split tensor's half k: both swap together. So, for each
    value of the flags (both values of each, whatever the golden values list), the backward's formula half k is
    compared with the derivative with respect to the forward's half k when the two specs' flags agree, and with
    respect to the forward's other half when only one of them swaps (its halves then name the other places)."""
    link = _link(backward)
    split, mine = forward.split, backward.split
    if split is None or mine is None or len(backward.formula.per_half) != 1:
        message = (
            f"a backward of a half-split forward writes its gradient per half ({link.forward} has "
            f"{'a' if split is not None else 'no'} split): give this spec a split of '{link.input}' and "
            "formula.outputs: {<gradient>: {halves: [<first>, <second>]}}"
        )
        return [LinkProblem(("derivative_of",), message)]
    forward_expr = kernel_formula(forward)
    written = kernel_formulas(backward)
    saved = _saved_outputs(backward, forward)
    if isinstance(saved, LinkProblem):
        return [saved]
    ((output, written_halves),) = backward.formula.per_half.items()
    grad = formula.Name(link.grad, formula.SymbolKind.TENSOR)
    slopes = [formula.differentiate(forward_expr, half) for half in split.halves]
    ordinal = ("first", "second")
    flags = tuple(f for f in (mine.swap_when,) if f is not None)
    for values in _scalar_combinations(backward, every=flags):
        if backward.rejects_scalars(values):  # the pair need not agree where the API refuses
            continue
        ours = bool(values.get(mine.swap_when)) if mine.swap_when is not None else False
        theirs = split.swap_when is not None and bool(_value_at(names[split.swap_when], values))
        traded = int(ours != theirs)  # the forward's half k lies where this spec's half k ^ traded does
        # the forward's halves are this spec's halves; the forward's split tensor is not read
        renamed = {k: v for k, v in names.items() if k != split.tensor}
        renamed |= {
            half: formula.Name(mine.halves[index ^ traded], formula.SymbolKind.TENSOR)
            for index, half in enumerate(split.halves)
        }
        held = {ours: formula.substitute(expr, renamed) for ours, expr in saved.items()}
        problem = _check_saved_derivations(backward, held, values)
        if problem is not None:
            return [problem]
        at_halves = formula.Binary("mul", grad, formula.substitute(forward_expr, renamed))
        for index, name in enumerate(written_halves):
            theirs_index = index ^ traded
            want = formula.fold_constants(
                formula.Binary("mul", grad, formula.substitute(slopes[theirs_index], renamed))
            )
            actual = formula.substitute(written[name], held)
            estimate = _central_difference(at_halves, mine.halves[index])
            difference = formula.first_difference(actual, want, values, rtol=RTOL, atol=ATOL, estimate=estimate)
            if difference is None:
                continue
            point = {**difference.point, **values}
            where = ", ".join(f"{k}={v!r}" for k, v in point.items())
            message = (
                f"the {ordinal[index]} half of '{output}' is not the gradient times the derivative of "
                f"{link.forward}'s formula ({forward_file}) with respect to its {ordinal[theirs_index]} half "
                f"'{split.halves[theirs_index]}' ({mine.halves[index]} here): at {where} it gives "
                f"{difference.first!r}, the derivative {difference.second!r}"
            )
            return [LinkProblem(backward.formula.expr_path(name), message)]
    return []


def _check_saved_derivations(
    backward: OpSpec, held: Mapping[str, formula.Expr], values: Mapping[str, Any]
) -> LinkProblem | None:
    """A saved input the golden tests derive (golden.derived_inputs) must be derived as the forward computes the
    output it holds (`held`: that output's formula over this spec's names), or its golden values are another
    function than the one a real backward pass receives."""
    derived = dict(derived_inputs(backward))
    for name, expr in held.items():
        if name not in derived:
            continue
        difference = formula.first_difference(derived[name], expr, values, rtol=RTOL, atol=ATOL)
        if difference is not None:
            link = _link(backward)
            where = ", ".join(f"{k}={v!r}" for k, v in {**difference.point, **values}.items())
            message = (
                f"'{name}' holds {link.forward}'s {link.saved[name]}, but its derivation is another function: at "
                f"{where} it gives {difference.first!r}, {link.saved[name]} {difference.second!r}"
            )
            return LinkProblem(("golden", "derived_inputs", name), message)
    return None


def _central_difference(expr: formula.Expr, name: str) -> Callable[[Mapping[str, Any]], np.ndarray]:
    """A central difference of `expr` along tensor `name`: where float64 breaks the symbolic derivative (GeGlu's
    tanh form B / (1 + exp(-2z)) differentiates to inf / inf for a very negative B), what it stands for."""

    def estimate(env: Mapping[str, Any]) -> np.ndarray:
        at = np.asarray(env[name], dtype=np.float64)
        step = 1e-6 * np.maximum(1.0, np.abs(at))
        with np.errstate(all="ignore"):
            above = formula.evaluate(expr, {**env, name: at + step})
            below = formula.evaluate(expr, {**env, name: at - step})
            return np.asarray((above - below) / (2 * step), dtype=np.float64)

    return estimate


def _saved_outputs(backward: OpSpec, forward: OpSpec) -> dict[str, formula.Expr] | LinkProblem:
    """Each input holding a forward output (`saved`) -> that output's formula over the forward's names."""
    outputs = kernel_formulas(forward)
    saved = {}
    for ours, theirs in _link(backward).saved.items():
        if theirs not in outputs:
            listed = ", ".join(outputs)
            message = f"'{theirs}' is not an output {_link(backward).forward} computes (one of: {listed})"
            return LinkProblem(("derivative_of", "saved", ours), message)
        saved[ours] = outputs[theirs]
    return saved


class _Unlinked(Exception):
    def __init__(self, path: FieldPath, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


def _link(spec: OpSpec) -> DerivativeOf:
    if spec.derivative_of is None:
        raise ValueError(f"{spec.operator.dir} has no derivative_of")
    return spec.derivative_of


def _forward_names(backward: OpSpec, forward: OpSpec) -> tuple[str, dict[str, formula.Expr]]:
    """The forward tensor differentiated, and each forward name -> what stands for it in the backward spec."""
    link = _link(backward)
    inputs = [p.name for p in forward.params if p.is_tensor and p.direction is Direction.INPUT]
    wrt = link.wrt or (inputs[0] if len(inputs) == 1 else None)
    if wrt is None or wrt not in inputs:
        listed = ", ".join(inputs)
        raise _Unlinked(("derivative_of", "wrt"), f"name the forward tensor to differentiate (one of: {listed})")
    names: dict[str, formula.Expr] = {wrt: formula.Name(link.input, formula.SymbolKind.TENSOR)}
    forward_expr = kernel_formula(forward)
    needed = set(formula.free_names(formula.differentiate(forward_expr, wrt)))
    if forward.split is not None:  # differentiated per half: what either half's derivative reads
        needed = {
            n for half in forward.split.halves for n in formula.free_names(formula.differentiate(forward_expr, half))
        }
        if forward.split.swap_when is not None:  # which half lies where: the flag's value here
            needed.add(forward.split.swap_when)
    if formula.has_reduction(forward_expr):  # the Jacobian along the row reads what the vector-Jacobian product does
        needed = set(formula.free_names(formula.vjp(forward_expr, wrt, formula.Const(1.0))))
    if link.holds == "result" or link.result_flag is not None:  # the forward's result is computed too
        needed |= set(formula.free_names(forward_expr))
    outputs = kernel_formulas(forward)
    needed |= {n for theirs in link.saved.values() if theirs in outputs for n in formula.free_names(outputs[theirs])}
    symbols = formula_symbols(forward)
    for param in forward.params:
        if param.is_tensor:
            if param.direction is Direction.INPUT and param.name != wrt and param.name in needed:
                # another forward input the derivative reads (PRelu's weight): the backward's input of that name
                ours = link.params.get(param.name, param.name)
                mine = next((p for p in backward.params if p.name == ours), None)
                if mine is None or not mine.is_tensor or mine.direction is not Direction.INPUT:
                    message = f"the forward's tensor '{param.name}' has no input tensor of that name here"
                    raise _Unlinked(("derivative_of", "forward"), message)
                names[param.name] = formula.Name(ours, formula.SymbolKind.TENSOR)
            continue
        ours = link.params.get(param.name, param.name)
        mine = next((p for p in backward.params if p.name == ours), None)
        if mine is not None and param.name in link.values:
            names[param.name] = _translated(backward, mine, param, link.values[param.name])
            continue
        if mine is None or mine.kind is not param.kind:
            if param.name not in needed:
                continue  # e.g. Threshold's value: its derivative does not depend on it
            raise _Unlinked(
                ("derivative_of", "params"),
                f"the forward's {param.kind.value} '{param.name}' has no {param.kind.value} of that name here; "
                f"map it in derivative_of.params",
            )
        names[param.name] = formula.Name(ours, symbols[param.name].kind)
    return wrt, names


def _translated(backward: OpSpec, mine: Param, theirs: Param, mapping: Mapping[int | str, int | str]) -> formula.Expr:
    """The forward's mode value in terms of this spec's parameter: where(mine == b1, f1, where(mine == b2, f2, ...)),
    the last value taken otherwise (the error table refuses the rest)."""

    def literal(value: int | str, param: Param) -> formula.Expr:
        if param.kind is ParamKind.STRING:
            return formula.Str(str(value))
        try:
            return formula.Const(int(value))  # YAML mapping keys arrive as text
        except ValueError:
            raise _Unlinked(("derivative_of", "values", theirs.name), f"{value!r} is not an int64 value") from None

    pairs = [(literal(f, theirs), literal(b, mine)) for f, b in mapping.items()]
    known = theirs.values or []
    for (value, _), key in zip(pairs, mapping, strict=True):
        number = value.value if isinstance(value, (formula.Const, formula.Str)) else None
        if known and number not in known:
            listed = ", ".join(map(str, known))
            raise _Unlinked(
                ("derivative_of", "values", theirs.name, key),
                f"{key!r} is not one of the forward's '{theirs.name}' values ({listed})",
            )
    ours = formula.Name(mine.name, formula_symbols(backward)[mine.name].kind)
    expr = pairs[-1][0]
    for forward_value, value in reversed(pairs[:-1]):
        expr = formula.Select(formula.Compare("eq", ours, value), forward_value, expr)
    return expr


def _expected(backward: OpSpec, forward: OpSpec, wrt: str, names: Mapping[str, formula.Expr]) -> formula.Expr:
    link = _link(backward)
    grad = formula.Name(link.grad, formula.SymbolKind.TENSOR)
    forward_expr = kernel_formula(forward)
    if formula.has_reduction(forward_expr):
        # each element depends on its whole row: the gradient times the forward's Jacobian along the row
        return formula.vjp(formula.substitute(forward_expr, names), link.input, grad)
    slope = formula.substitute(formula.differentiate(forward_expr, wrt), names)
    return formula.fold_constants(formula.Binary("mul", grad, slope))


def _scalar_combinations(spec: OpSpec, every: tuple[str, ...] = ()) -> list[dict[str, float | bool | int | str]]:
    """The golden values' combinations; each flag in `every` takes both values."""
    options = spec.golden_scalar_values(skip=(_link(spec).result_flag or "",))
    options |= {flag: [False, True] for flag in every}
    combos = itertools.islice(itertools.product(*options.values()), MAX_COMBINATIONS)
    return [dict(zip(options, combo, strict=True)) for combo in combos]


def forward_dependency(backward_path: Path, spec_bytes: bytes) -> bytes:
    """The bytes a spec's build depends on besides its own: its forward spec's (a derived formula and the check
    read it), or nothing. Build cache keys add these, so editing a forward spec rebuilds its backward one."""
    if b"derivative_of" not in spec_bytes:
        return b""
    try:
        data = load_yaml(spec_bytes.decode("utf-8"), str(backward_path)).data
        forward = data["derivative_of"]["forward"]
    except (SpecError, UnicodeDecodeError, KeyError, TypeError):
        return b""  # the loader reports what is wrong
    if not isinstance(forward, str) or not forward.isidentifier():
        return b""
    try:
        return b"forward\0" + (backward_path.parent / f"{forward}.yaml").read_bytes()
    except OSError:
        return b"forward missing"
