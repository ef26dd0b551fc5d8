"""Generated golden tests per operator (generated/<op>/tests/test_golden_<op>.py, pytest).

Standalone: they need numpy, ml_dtypes, the generated `opgen_ops` binding and, when importable, torch.
The reference implementation, the special values, the tolerances and the error cases are emitted from
the spec, so the file can run wherever `opgen_ops` runs (on the twin or on a real device).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit.templating import render
from opgen.formula.integer import to_numpy_integer
from opgen.lang import Code, code, ident, idents, python
from opgen.plan.cases import Arg, allocated_by_binding
from opgen.plan.formulas import FormulaPlan
from opgen.plan.operator import OperatorPlan, binding_out_keywords
from opgen.plan.schedules import Schedule
from opgen.plan.schedules.half_split import HalfSplit
from opgen.spec.model import OpSpec
from opgen.types import Direction, ParamKind

# Smallest positive subnormal-range values per dtype (their negatives are added too).
_SUBNORMALS = {
    "FLOAT": 1e-40,
    "FLOAT16": 1e-7,
    "BFLOAT16": 1e-40,
    "DOUBLE": 1e-310,
    "COMPLEX64": 1e-40,  # of each part
    "COMPLEX128": 1e-310,
}


def branch_points(expr: F.Expr) -> list[float]:
    """Constants the formula compares tensors with: where the result switches branches."""
    points = set()
    for node in F.walk(expr):
        if isinstance(node, F.Compare):
            for side in (node.a, node.b):
                folded = F.fold_constants(side)
                if isinstance(folded, F.Const):
                    points.add(folded.value)
    return sorted(points)


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


def _python_names(spec: OpSpec) -> dict[str, str]:
    return {p.name: p.python for p in spec.params}


def derived_input_context(operator: OperatorPlan) -> dict:
    """golden.derived_inputs for a generated script: their Python names in dependency order (`derived_names`) and
    each one's numpy expression over `values`, a dict of the tensor inputs (by Python name) as float64 arrays."""
    spec = operator.spec
    values = {p.name: f"values[{python.string(p.python)}]" for p in spec.tensor_inputs}
    derived = [
        {"key": python.string(spec.param(name).python), "expr": code(F.to_numpy(expr, values))}
        for name, expr in operator.derived_inputs
    ]
    names = [spec.param(name).python for name, _ in operator.derived_inputs]
    return {"derived": derived, "derived_names": python.literal(names)}


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


def _split_view(operator: OperatorPlan) -> dict | None:
    """A half-split operator's golden cases: the dim's key among the scalars (or its literal) and the half-size
    inputs, made as a half of a full-size array."""
    schedule = operator.schedule
    if not isinstance(schedule, HalfSplit):
        return None
    named = isinstance(schedule.split_dim, str)
    return {
        "dim_key": python.string(schedule.dim_python) if named else python.literal(None),
        "dim_default": code(str(schedule.split_dim)) if not named else code("None"),
        "half_inputs": [ident(p.python) for p in operator.spec.tensor_inputs if p.name in schedule.half_size],
        # the outputs written per half (full-size): a declared difference, over the halves, holds in each half
        "full_outputs": python.literal([out for out, _, _ in schedule.per_half]) if schedule.per_half else None,
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
    spec, spec_name = operator.spec, operator.source
    names = _python_names(spec)
    params = [p for p in spec.params if p.direction is Direction.INPUT]
    tensors = [p.python for p in params if p.kind is ParamKind.TENSOR]
    scalars = [p for p in params if p.kind is not ParamKind.TENSOR]
    formula_names = operator.formulas.python_names
    source = reference_source(operator.formulas, formula_names)
    schedule = operator.schedule
    # each API output's reference (an output written per half: its halves' joined)
    references = schedule.output_references(source.outputs)
    # dtypes the AICPU kernel computes in the integer itself: their reference too, wrapping (not float64)
    integer_dtypes = [d.value for d in spec.routing.aicpu if d.is_integral]
    integer_source = reference_source(operator.formulas, formula_names, to_numpy_integer) if integer_dtypes else None
    every_output = [p.name for p in spec.params if p.direction is Direction.OUTPUT]
    # each computed output compared with its own formula and its own result of the binding and of aten (one output:
    # the N = 1 case, the binding's result itself, or its element result_index where aten returns several)
    if schedule.several:
        computed = [_computed_view(schedule, name, text, every_output.index(name)) for name, text in references.items()]
    else:
        main = next(iter(references))
        computed = [_computed_view(schedule, main, references[main], operator.result_index)]
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
    scalar_values: dict[str, list] = {
        p.python: list(spec.golden.scalar_values.get(p.name, [spec.example.scalars[p.name]])) for p in scalars
    }
    # one-element tensors: each case holds one of their golden values (iterated with the scalars' values)
    held = [p for p in params if p.shape.one_element]
    options = spec.golden_scalar_values()
    scalar_values |= {p.python: options[p.name] for p in held}
    tolerance = {
        d.value: (t.rtol, t.atol, t.max_fail_ratio, t.standard or "") for d, t in spec.golden.tolerance.items()
    }
    # Several outputs come back as aten returns them, a tuple in the API's order, and are passed by name.
    out_keyword = binding_out_keywords(spec)[operator.outputs[0].param.name]
    errors = []
    for call in operator.negative_calls:
        if call.null_outputs:
            continue  # a null workspaceSize/executor cannot be passed from Python (see the C++ op_api tests)
        args = {names[n]: _arg_literal(a) for n, a in call.args.items()}
        out_name = operator.outputs[0].param.name
        if not operator.binding_out:
            if not allocated_by_binding(spec, call.args):
                continue  # a wrong out cannot be passed without out= (the C++ op_api tests hold this row)
            args[names[out_name]] = code("None")
        for unwritten in spec.unwritten_outputs:  # left to the binding, which passes it as torch_npu does
            args.pop(names[unwritten.name])
        errors.append(
            {
                "name": python.string(call.name),
                "args": [args[p.python] for p in params if not p.keyword_only],
                "kwargs": [code(f"{python.string(p.python)}: {args[p.python]}") for p in params if p.keyword_only],
                "out": args[names[out_name]],
                "status": call.status,
                "message": python.string(call.message),
            }
        )
    points = sorted({point for expr in operator.formulas.over_params.values() for point in branch_points(expr)})
    special = [float(v) for v in spec.golden.special_values] + points
    dtypes = [d.value for d in spec.tensor_inputs[0].dtypes]
    # the dtype the kernel computes each floating dtype in, where it is narrower than float64
    compute_dtypes = {}
    for d in spec.tensor_inputs[0].dtypes:
        if d in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16):
            compute = operator.kernel.compute_of(d)
            if compute in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16):
                compute_dtypes[d.value] = compute.value
    path = f"tests/test_golden_{spec.operator.file_stem}.py"
    text = render(
        "op/tests/test_golden_op.py.j2",
        path,
        spec_name,
        op=ident(spec.operator.dir),
        api=ident(spec.api.name),
        function=ident(operator.bindings[0]),
        aten=ident(spec.api.aten) if spec.api.aten else None,
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
        shapes=python.literal([tuple(s) for s in spec.golden.shapes]),
        scalar_values=python.literal(scalar_values),
        value_range=python.literal(tuple(float(v) for v in spec.golden.value_range)),
        special=python.literal(special),
        subnormals=python.literal({k: v for k, v in _SUBNORMALS.items() if k in dtypes}),
        tolerance=python.literal(tolerance),
        compute_dtypes=python.literal(compute_dtypes),
        torch_refuses=python.literal([d.value for d in spec.golden.torch_refuses]),
        integer_extremes=python.literal(spec.golden.integer_extremes),
        input_dtypes=python.literal(dtypes),
        complexes=any(d.is_complex for d in spec.tensor_inputs[0].dtypes),
        out_dtypes=python.literal(
            {d.value: spec.result_dtype(d).value for d in spec.tensor_inputs[0].dtypes if spec.result_dtype(d) is not d}
        ),
        errors=errors,
        tensor_keys=python.literal(tensors),
        **derived_input_context(operator),
        channels=[{"name": ident(c.python), "of": ident(c.of_python)} for c in schedule.channel_inputs],
        held=[{"name": ident(p.python), "key": python.string(p.python)} for p in held],
        held_keys=python.literal([p.python for p in held]),
        split=_split_view(operator),
        out_keyword=python.string(out_keyword),
        unwritten=[{"key": python.string(p.python), "name": ident(p.python)} for p in spec.unwritten_outputs]
        if operator.binding_out
        else [],
    )
    return {path: text}
