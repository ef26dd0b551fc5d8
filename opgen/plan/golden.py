"""The golden facts of an operator, decided once from its spec, for both emitters that print golden data: the golden
tests (tests/test_golden_<op>.py, `opgen.emit.golden_tests`) and the CANN-style scripts (tests/golden/gen_data.py,
compare_data.py, `opgen.emit.tests`). The cases (dtypes, shapes, parameter values), how inputs are drawn (value
range, special values, derived inputs) and cut (a half split), the tolerances, the scripts' options, which outputs are
compared where the binding returns them, how torch.ops.aten is called, and the error rows a binding can be made to
hit. The emitters print these; they read nothing else of the spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opgen import formula as F
from opgen.dtypes import DType
from opgen.plan.cases import Arg, Call, SocCall, allocated_by_binding
from opgen.plan.op_api_expectations import Tolerance, tolerances
from opgen.spec.half_split import full_shape
from opgen.spec.model import Direction, OpSpec, ParamKind

if TYPE_CHECKING:
    from opgen.plan.kernel import KernelPlan
    from opgen.plan.schedules import Schedule

# Smallest positive subnormal-range values per dtype (their negatives are added too).
SUBNORMALS = {
    DType.FLOAT: 1e-40,
    DType.FLOAT16: 1e-7,
    DType.BFLOAT16: 1e-40,
    DType.DOUBLE: 1e-310,
    DType.COMPLEX64: 1e-40,  # of each part
    DType.COMPLEX128: 1e-310,
}

# The floating dtypes a kernel may compute in more narrowly than the float64 reference.
_NARROW = (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)


@dataclass(frozen=True)
class GoldenSplit:
    """How a half-split operator's golden inputs are cut (a Schedule's `golden_split`): a golden case's shape is a
    half's, the split tensor doubles it along dim (gen_data's `--shape` is the split tensor's), and each half-size
    input is a half of a full-size array (gen_data: the shape with size(dim) halved)."""

    tensor: str  # the split tensor's Python name
    halves: tuple[str, str]  # the halves' names in the formulas (golden.derived_inputs may read them)
    dim_python: str | None  # the dim parameter's Python name (gen_data's option); None: a literal dim
    dim: int | None  # the literal dim; None: the parameter's value
    example_dim: int  # the dim of gen_data's default call (the example's)
    half_inputs: tuple[str, ...]  # the half-size tensor inputs' Python names, in parameter order
    full_outputs: tuple[str, ...]  # the outputs written per half (full-size); empty: none


@dataclass(frozen=True)
class ScriptOption:
    """A gen_data.py option: a host parameter's (default: the example's value), or a one-element tensor's (`held`:
    the value it holds, default its first golden value)."""

    name: str
    python: str
    kind: ParamKind
    values: tuple[int | str, ...] | None  # the parameter's fixed set of values (a kernel mode), else None
    default: bool | int | float | str | None  # None: an optional scalar left out
    held: bool = False


@dataclass(frozen=True)
class GoldenError:
    """An error row's negative call as the golden test makes it through the binding."""

    name: str
    args: dict[str, Arg]  # each input by its Python name, in parameter order
    out: Arg  # the first output's argument (null: the binding allocates it)
    status: int
    message: str


@dataclass(frozen=True)
class GoldenPlan:
    aten: str | None  # the aten op compared with (api.aten); None: the spec reference alone
    input_dtypes: tuple[DType, ...]  # the first tensor input's dtypes, each a golden test
    # dtype -> the dtype the kernel computes it in, where that is a floating dtype narrower than float64
    compute_dtypes: dict[DType, DType]
    out_dtypes: dict[DType, DType]  # input dtype -> out's dtype, where they differ (kernel.integers_as)
    integer_reference_dtypes: tuple[DType, ...]  # integer dtypes the AICPU kernel computes in the integer itself
    torch_refuses: tuple[DType, ...]
    # 16-bit dtypes aten's CPU kernel rounds each step in (golden.aten_rounds_each_step): compared in float, as every
    # 16-bit dtype is, and the generated test says why
    aten_rounds_each_step: tuple[DType, ...]
    integer_extremes: bool
    tolerance: dict[DType, Tolerance]  # golden.tolerance, in the spec's order
    shapes: tuple[tuple[int, ...], ...]  # golden.shapes (a half split's: a half's)
    script_shapes: tuple[tuple[int, ...], ...]  # gen_data's --shape of each (a half split's: the split tensor's)
    # each scalar's golden values, then each one-element tensor's, by Python name
    scalar_values: dict[str, tuple[bool | int | float | str | None, ...]]
    held: tuple[str, ...]  # the one-element tensor inputs' Python names (a case holds one of their values)
    options: tuple[ScriptOption, ...]  # gen_data's: the host parameters' in order, then the one-element tensors'
    value_range: tuple[float, float]
    special_values: tuple[float, ...]  # golden.special_values (what gen_data's inputs are led by)
    branch_points: tuple[float, ...]  # the formulas' (the golden tests' inputs are led by these too)
    subnormals: dict[DType, float]  # of the input dtypes that have them
    # each computed output compared, with its position among what the binding returns (None: the one result)
    results: tuple[tuple[str, int | None], ...]
    out_keyword: str  # the binding's keyword of the first output
    errors: tuple[GoldenError, ...]
    # calls made on a given SoC (status 0: success): an empty tensor where the empty return's place differs per SoC
    soc_errors: tuple[tuple[str, GoldenError], ...]
    unwritten: tuple[str, ...]  # outputs never written, checked to keep their bytes (Python names)
    split: GoldenSplit | None
    # golden.derived_inputs made with the inputs: (input, its expression over parameter names), in dependency order
    derived_inputs: tuple[tuple[str, F.Expr], ...] = ()
    # golden.derived_inputs derived per case (over parameter names, the halves too), in dependency order: each
    # computed once the case's values are chosen and the split tensor is cut
    case_derived: tuple[tuple[str, F.Expr], ...] = ()

    @property
    def complexes(self) -> bool:
        return any(d.is_complex for d in self.input_dtypes)

    @property
    def leading_values(self) -> tuple[float, ...]:
        """What the golden tests' inputs are led by: the declared special values, then the branch points."""
        return self.special_values + self.branch_points


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


def _golden_error(spec: OpSpec, call: Call, binding_out: bool) -> GoldenError | None:
    """The call as the binding makes it, or None when it cannot."""
    if call.null_outputs:
        return None  # a null workspaceSize/executor cannot be passed from Python (see the C++ op_api tests)
    if not binding_out and not allocated_by_binding(spec, call.args):
        return None  # a wrong out cannot be passed without out= (the C++ op_api tests hold this row)
    args = {p.python: call.args[p.name] for p in spec.params if p.direction is Direction.INPUT}
    # without out= the binding allocates the output itself
    given = call.args[spec.outputs[0].name] if binding_out else Arg("null")
    return GoldenError(call.name, args, given, call.status, call.message)


def _errors(spec: OpSpec, negatives: Sequence[Call], binding_out: bool) -> tuple[GoldenError, ...]:
    return tuple(e for call in negatives if (e := _golden_error(spec, call, binding_out)) is not None)


def _soc_errors(spec: OpSpec, soc_calls: Sequence[SocCall], binding_out: bool) -> tuple[tuple[str, GoldenError], ...]:
    found = ((c.soc, _golden_error(spec, c.call, binding_out)) for c in soc_calls)
    return tuple((soc, e) for soc, e in found if e is not None)


def golden_plan(
    spec: OpSpec,
    kernel: KernelPlan,
    schedule: Schedule,
    over_params: Mapping[str, F.Expr],
    negatives: Sequence[Call],
    binding_out: bool,
    out_keywords: Mapping[str, str],
    result_index: Mapping[str, int | None],
    derived: Sequence[tuple[str, F.Expr]] = (),
    case_derived: Sequence[tuple[str, F.Expr]] = (),
    soc_calls: Sequence[SocCall] = (),
) -> GoldenPlan:
    """The golden plan; `over_params`: each computed output's formula over parameter names, `result_index`: each
    output's position among the binding's results, `derived`/`case_derived`: the derived inputs made with the inputs
    and those made per case."""
    golden = spec.golden
    inputs = [p for p in spec.params if p.direction is Direction.INPUT]
    dtypes = tuple(spec.tensor_inputs[0].dtypes)
    compute_dtypes = {}
    for d in dtypes:
        if d in _NARROW and (compute := kernel.compute_of(d)) in _NARROW:
            compute_dtypes[d] = compute
    scalar_values: dict[str, tuple[bool | int | float | str | None, ...]] = {
        p.python: tuple(golden.scalar_values.get(p.name, [spec.example.scalars[p.name]]))
        for p in inputs
        if p.kind is not ParamKind.TENSOR
    }
    held = [p for p in inputs if p.shape.one_element]
    options = spec.golden_scalar_values()
    scalar_values |= {p.python: tuple(options[p.name]) for p in held}
    points = sorted({point for expr in over_params.values() for point in branch_points(expr)})
    tensor_inputs = {p.name: p.python for p in spec.tensor_inputs}
    split = schedule.golden_split(tensor_inputs)
    shapes = tuple(tuple(s) for s in golden.shapes)
    script_options = [
        ScriptOption(
            p.name,
            p.python,
            p.kind,
            tuple(p.values) if p.values is not None else None,
            spec.example.scalars[p.name],
        )
        for p in inputs
        if p.kind is not ParamKind.TENSOR
    ]
    # a one-element tensor's option: the value it holds, by default its first golden value
    script_options += [ScriptOption(p.name, p.python, p.kind, None, float(options[p.name][0]), held=True) for p in held]
    return GoldenPlan(
        aten=spec.api.aten,
        input_dtypes=dtypes,
        compute_dtypes=compute_dtypes,
        out_dtypes={d: spec.result_dtype(d) for d in dtypes if spec.result_dtype(d) is not d},
        integer_reference_dtypes=tuple(d for d in spec.routing.aicpu if d.is_integral),
        torch_refuses=tuple(golden.torch_refuses),
        aten_rounds_each_step=tuple(golden.aten_rounds_each_step.dtypes) if golden.aten_rounds_each_step else (),
        integer_extremes=golden.integer_extremes,
        tolerance=tolerances(spec),
        shapes=shapes,
        script_shapes=shapes if split is None else tuple(full_shape(s, split.example_dim) for s in shapes),
        scalar_values=scalar_values,
        held=tuple(p.python for p in held),
        options=tuple(script_options),
        value_range=(float(golden.value_range[0]), float(golden.value_range[1])),
        special_values=tuple(float(v) for v in golden.special_values),
        branch_points=tuple(points),
        subnormals={d: v for d, v in SUBNORMALS.items() if d in dtypes},
        results=tuple((name, result_index[name]) for name in schedule.outputs),
        out_keyword=out_keywords[spec.outputs[0].name],
        errors=_errors(spec, negatives, binding_out),
        soc_errors=_soc_errors(spec, soc_calls, binding_out),
        unwritten=tuple(p.python for p in spec.unwritten_outputs) if binding_out else (),
        split=split,
        derived_inputs=tuple(derived),
        case_derived=tuple(case_derived),
    )
