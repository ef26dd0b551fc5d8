"""Generated golden tests per operator (generated/<op>/tests/test_golden_<op>.py, pytest).

Standalone: they need numpy, ml_dtypes, the generated `opgen_ops` binding and, when importable, torch.
The reference implementation, the special values, the tolerances and the error cases are emitted from
the operator's plan (`opgen.plan.golden`), so the file can run wherever `opgen_ops` runs (on the twin or on a real
device).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from opgen import formula as F
from opgen.emit.templating import render
from opgen.formula.integer import to_numpy_integer
from opgen.lang import Code, code, ident, idents, python
from opgen.plan.cases import Arg
from opgen.plan.formulas import FormulaPlan
from opgen.plan.golden import GoldenError, GoldenPlan
from opgen.plan.operator import OperatorPlan
from opgen.plan.schedules import Schedule
from opgen.types import Direction, ParamKind


@dataclass(frozen=True)
class ReferenceSource:
    """A generated reference function's body: `locals` (Python name, expression) assigned in order, one per
    formula.let, then each computed output's expression over the parameters and those locals."""

    locals: tuple[tuple[Code, Code], ...]
    outputs: dict[str, str]

    @property
    def assignments(self) -> list[dict[str, Code]]:
        return [{"name": name, "expr": expr} for name, expr in self.locals]


def reference_source(
    formulas: FormulaPlan, names: Mapping[str, str], printer: Callable[[F.Expr, Mapping[str, str]], str] = F.to_numpy
) -> ReferenceSource:
    """Each computed output's reference as `printer` writes it (numpy in float64, or in the integer), over `names`
    (how the generated Python refers to each parameter); a formula with local names computes each once, into a
    local variable of its own."""
    dim = formulas.reduce_dim
    axis = None
    if dim is not None and printer is F.to_numpy:  # reductions reduce along the operator's dim
        axis = names.get(dim, dim) if isinstance(dim, str) else str(dim)
        printer = functools.partial(F.to_numpy, axis=axis)
    assigned, outputs = formulas.sources(names, printer)
    if axis is not None:  # a per-row output: its kept axis of length 1 dropped
        outputs |= {name: f"np.squeeze({outputs[name]}, axis={axis})" for name in formulas.per_row}
    return ReferenceSource(tuple((ident(name), code(text)) for name, text in assigned), outputs)


def derived_input_context(operator: OperatorPlan) -> dict:
    """golden.derived_inputs for a generated script (the golden tests, gen_data), from the golden plan: those made with
    the inputs, their Python names in dependency order (`derived_names`) and each one's numpy expression over
    `values`, a dict of the tensor inputs (by Python name) as float64 arrays; those made per case (`case_derived`,
    reading a half split's halves or the parameters' values), each one's numpy expression over the parameters'
    Python names (the halves cut from the split tensor), in dependency order (`case_derived_names`)."""
    golden = operator.golden
    values = {p.name: f"values[{python.string(p.python)}]" for p in operator.tensor_inputs}
    derived = [
        {"key": python.string(operator.param(name).python), "expr": code(F.to_numpy(expr, values))}
        for name, expr in golden.derived_inputs
    ]
    names = [operator.param(name).python for name, _ in golden.derived_inputs]
    formula_names = operator.formulas.python_names
    case_derived = [
        {
            "name": ident(operator.param(name).python),
            "key": python.string(operator.param(name).python),
            "expr": code(F.to_numpy(expr, formula_names)),
        }
        for name, expr in golden.case_derived
    ]
    case_names = [operator.param(name).python for name, _ in golden.case_derived]
    return {
        "derived": derived,
        "derived_names": python.literal(names),
        "case_derived": case_derived,
        "case_derived_names": python.literal(case_names),
    }


def _arg_literal(arg: Arg) -> Code:
    if arg.kind == "null":
        return Code("None")
    if arg.kind == "bool":
        return python.literal(bool(arg.value))
    if arg.kind in ("int64", "double", "string"):
        return python.literal(arg.value)
    assert arg.dtype is not None
    if arg.kind == "scalar":
        return code(f"scalar({python.literal(arg.value)}, {python.string(arg.dtype.value)})")
    return code(f"tensor({python.literal(tuple(arg.shape))}, {python.string(arg.dtype.value)})")


def _split_view(golden: GoldenPlan) -> dict | None:
    """A half-split operator's golden cases: the dim's key among the scalars (or its literal) and the half-size
    inputs, made as a half of a full-size array."""
    split = golden.split
    if split is None:
        return None
    return {
        "dim_key": python.string(split.dim_python) if split.dim_python is not None else python.literal(None),
        "dim_default": code(str(split.dim)) if split.dim is not None else code("None"),
        "half_inputs": [ident(name) for name in split.half_inputs],
        # the outputs written per half (full-size): a declared difference, over the halves, holds in each half
        "full_outputs": python.literal(list(split.full_outputs)) if split.full_outputs else None,
    }


def _computed_view(schedule: Schedule, name: str, elementwise: str, position: int | None) -> dict:
    """One computed output for the golden test: its reference (`elementwise`: its expression's source) and its
    position among the results (None: the one result); a per-channel sum also its sum of magnitudes and how aten's
    elementwise values are summed."""
    view = {
        "label": python.string(name),
        "position": python.literal(position),
        "reference": code(elementwise),
        "scale": None,
    }
    if schedule.sum_of(name) is not None:
        view["reference"] = code(schedule.reference(name, elementwise))
        view["scale"] = code(schedule.reference(name, f"np.abs({elementwise})"))
        view["reduce_call"] = code(schedule.reference(name, "values"))
    return view


def render_golden_tests(operator: OperatorPlan) -> dict[str, str]:
    golden = operator.golden
    params = [p for p in operator.params if p.direction is Direction.INPUT]
    tensors = [p.python for p in params if p.kind is ParamKind.TENSOR]
    scalars = [p for p in params if p.kind is not ParamKind.TENSOR]
    formula_names = operator.formulas.python_names
    source = reference_source(operator.formulas, formula_names)
    schedule = operator.schedule
    # each API output's reference (an output written per half: its halves' joined)
    references = schedule.output_references(source.outputs)
    # dtypes the AICPU kernel computes in the integer itself: their reference too, wrapping (not float64)
    integer_dtypes = [d.value for d in golden.integer_reference_dtypes]
    integer_source = reference_source(operator.formulas, formula_names, to_numpy_integer) if integer_dtypes else None
    # each computed output compared with its own formula and its own result of the binding and of aten (one output:
    # the N = 1 case, the binding's result itself, or its element result_index where aten returns several)
    computed = [_computed_view(schedule, name, references[name], position) for name, position in golden.results]
    integer_references = (
        [code(text) for text in schedule.output_references(integer_source.outputs).values()] if integer_source else []
    )
    aten_args = []  # what aten's elementwise kernel takes, for an operator with a per-channel sum
    for p in params:
        if p.keyword_only:
            continue
        if p.kind is not ParamKind.TENSOR:
            aten_args.append(code(f"scalars[{python.string(p.python)}]"))
        else:
            aten_args.append(code(schedule.aten_arg(p.name, p.python)))
    rejections = [
        {"code": r.row.code, "condition": code(r.python), "message": python.string(r.row.message)}
        for r in operator.rejections
    ]

    def error_view(error: GoldenError) -> dict:
        args = {name: _arg_literal(arg) for name, arg in error.args.items()}
        return {
            "name": python.string(error.name),
            "args": [args[p.python] for p in params if not p.keyword_only],
            "kwargs": [code(f"{python.string(p.python)}: {args[p.python]}") for p in params if p.keyword_only],
            "out": _arg_literal(error.out),
            "status": error.status,
            "message": python.string(error.message),
        }

    errors = [error_view(error) for error in golden.errors]
    # calls made on a given SoC, each in a process of its own (the twin fixes its SoC when it starts)
    soc_errors = [{**error_view(error), "soc": python.string(soc)} for soc, error in golden.soc_errors]
    path = f"tests/test_golden_{operator.file_stem}.py"
    text = render(
        "op/tests/test_golden_op.py.j2",
        path,
        operator.source,
        op=ident(operator.op),
        api=ident(operator.main.name),
        function=ident(operator.bindings[0]),
        aten=ident(golden.aten) if golden.aten else None,
        params=[
            {
                "name": ident(p.python),
                "key": python.string(p.python),
                "kind": p.kind.value,
                "kind_literal": python.string(p.kind.value),
                "keyword": p.keyword_only,
            }
            for p in params
        ],
        keywords=any(p.keyword_only for p in params),
        tensors=idents(tensors),
        scalar_names=idents([p.python for p in scalars]),
        lets=source.assignments,
        integer_references=integer_references,
        integer_lets=integer_source.assignments if integer_source else [],
        integer_reference_dtypes=python.literal(integer_dtypes),
        computed=computed,
        reduces=bool(schedule.sums),
        aten_args=aten_args,
        differences=[code(F.to_numpy(c, formula_names)) for c in operator.torch_differences],
        helpers=code(operator.numpy_helpers),
        rejections=rejections,
        shapes=python.literal(list(golden.shapes)),
        scalar_values=python.literal({name: list(values) for name, values in golden.scalar_values.items()}),
        value_range=python.literal(golden.value_range),
        special=python.literal(list(golden.leading_values)),
        subnormals=python.literal({d.value: v for d, v in golden.subnormals.items()}),
        tolerance=python.literal(
            {d.value: (t.rtol, t.atol, t.max_fail_ratio, t.standard or "") for d, t in golden.tolerance.items()}
        ),
        compute_dtypes=python.literal({d.value: c.value for d, c in golden.compute_dtypes.items()}),
        torch_refuses=python.literal([d.value for d in golden.torch_refuses]),
        aten_rounds_each_step=python.comment(", ".join(d.value for d in golden.aten_rounds_each_step)),
        integer_extremes=python.literal(golden.integer_extremes),
        input_dtypes=python.literal([d.value for d in golden.input_dtypes]),
        complexes=golden.complexes,
        out_dtypes=python.literal({d.value: o.value for d, o in golden.out_dtypes.items()}),
        errors=errors,
        soc_errors=soc_errors,
        tensor_keys=python.literal(tensors),
        **derived_input_context(operator),
        channels=[{"name": ident(c.python), "of": ident(c.of_python)} for c in schedule.channel_inputs],
        held=[{"name": ident(name), "key": python.string(name)} for name in golden.held],
        held_keys=python.literal(list(golden.held)),
        split=_split_view(golden),
        # a reduction along a dim parameter: its cases keep the dims within each shape's rank (0-d: [-1, 0])
        reduce_dim_key=(
            python.string(operator.param(dim).python) if isinstance(dim := operator.formulas.reduce_dim, str) else None
        ),
        out_keyword=python.string(golden.out_keyword),
        unwritten=[{"key": python.string(name), "name": ident(name)} for name in golden.unwritten],
    )
    return {path: text}
