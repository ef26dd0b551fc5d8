"""One frozen plan per operator: everything decided about it, computed once, read by every emitter.

The plan holds the parsed formulas, the API signatures, each error row's C++ check, the kernel plan
(lowered vector programs per dtype and mode), the OpDef attributes, the output rules and the concrete
valid and negative calls. Emitters are pure functions of it; none recomputes what it holds.
A spec that validates but cannot be generated (a formula that does not lower, an unreachable error row)
fails here with a `PlanError` naming the spec field at fault.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from opgen import formula as F
from opgen.lang import Code
from opgen.plan.aclnn_checks import AclnnChecks, aclnn_checks
from opgen.plan.aten_binding import AtenFormPlan, UnusedArgs, aten_form_plan, unused_args
from opgen.plan.aten_registration import AtenRegistration, aten_registration
from opgen.plan.cases import Call, NoCaseError, SocCall, empty_return_soc_calls, negative_calls, valid_calls
from opgen.plan.documentation import DocsPlan, docs_plan
from opgen.plan.example import ExamplePlan, example_plan
from opgen.plan.formulas import FormulaPlan, formula_plan
from opgen.plan.golden import GoldenPlan, golden_plan
from opgen.plan.kernel import KernelPlan, kernel_entry, kernel_plan, tiling_struct
from opgen.plan.lowering import LoweringError
from opgen.plan.op_api_expectations import SuccessData, success_data
from opgen.plan.opdef import OpDefAttr, OpDefPlan, opdef_plan
from opgen.plan.opdef_configs import AicoreRegistration, aicore_registration
from opgen.plan.precision import PrecisionRow, measure_precision, precision_misses
from opgen.plan.runs import RunsPlan, runs_plan
from opgen.plan.schedules import Schedule, schedule_for
from opgen.plan.signature import ApiSignature, signatures
from opgen.plan.tiling_checks import TilingChecks, tiling_checks
from opgen.plan.unit_cases import TilingCases, success_calls, tiling_cases
from opgen.spec.aten import has_out_overload
from opgen.spec.checks import CheckRejectIf, CppCheck
from opgen.spec.diagnostics import FieldPath
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import (
    derived_inputs,
    derived_per_case,
    kernel_formula,
    kernel_formulas,
    parsed_formula,
    reference_helpers,
    torch_differences,
)
from opgen.spec.model import Direction, ErrorRow, OpSpec, Param, snake_case
from opgen.spec.socs import REGBASE_HEADER, REGBASE_QUERY, get_soc


@dataclass(frozen=True)
class PlanProblem:
    path: FieldPath
    message: str
    kind: str


class PlanError(Exception):
    def __init__(self, problems: list[PlanProblem]):
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class OutputRule:
    """How one output's shape and dtype follow from the inputs (the same rule in every artifact)."""

    param: Param
    shape_sources: tuple[str, ...]  # its shape is the broadcast shape of these inputs
    dtype_sources: tuple[str, ...]  # its dtype is cast from the promoted dtype of these inputs

    @property
    def broadcast(self) -> bool:
        return bool(self.param.shape.broadcast_result_of)


@dataclass(frozen=True)
class Rejection:
    """An error row whose check is a condition over scalars and flags."""

    row: ErrorRow
    index: int
    condition: F.Expr
    python: str  # the condition in the generated Python, over the Python names (scalars read as the C++ does)


@dataclass(frozen=True)
class OperatorPlan:
    spec: OpSpec
    source: str  # the spec as named in generated-file notices, e.g. specs/leaky_relu.yaml
    formula: F.Expr  # as written (with the spec's short variable names)
    kernel_formula: F.Expr  # over parameter names only
    signatures: tuple[ApiSignature, ...]  # the main API first, then the in-place one
    checks: tuple[CppCheck, ...]  # one per error row, in order
    rejections: tuple[Rejection, ...]
    torch_differences: tuple[F.Expr, ...]  # golden.differs_from_torch's conditions (with api.aten), over params
    kernel: KernelPlan
    # the supported SoCs the AI Core kernel is built and registered for (CMake COMPUTE_UNIT, OpDef AddConfig)
    kernel_socs: tuple[str, ...]
    kernel_entry: str  # the kernel's entry function and the OpDef's opFile.value
    opdef: OpDefPlan  # the graph interface: OpDef inputs, outputs and attributes in order
    registration: AicoreRegistration  # the OpDef's AI Core dtypes and its AddConfig groups per SoC
    formulas: FormulaPlan  # the formulas as generated sources print them: as written, over params, lets, names
    example: ExamplePlan  # the calling program's inputs and the numbers it prints
    # the golden facts the golden tests and the golden scripts print: cases, inputs (derived ones too), how a split
    # cuts them, tolerances, the scripts' options, results, error rows
    golden: GoldenPlan
    # the rows of status ACLNN_ERR_INNER_TILING_ERROR, checked by the host tiling (None: no such row)
    tiling_checks: TilingChecks | None
    aten_form: AtenFormPlan | None  # the aten-named binding over the main API (api.aten_form); None: none
    aten: AtenRegistration  # the aten functions registered with torch_npu (op-plugin) and the APIs they run
    aten_unused: UnusedArgs  # aten arguments the bindings take and the API does not (api.aten_unused)
    outputs: tuple[OutputRule, ...]
    valid_calls: tuple[Call, ...]
    negative_calls: tuple[Call, ...]
    # an empty tensor tripping a row checked after the empty return, per SoC where its place differs (the return
    # first: success; the checks first: the row's status); none when the place is the same on every SoC
    empty_soc_calls: tuple[SocCall, ...]
    bindings: tuple[str, ...]  # the Python binding of each signature: its aten name, else the API in snake case
    binding_out: bool  # the main binding takes out=: aten has an out overload (or the binding is not aten's)
    numpy_helpers: str  # the helper functions the generated Python (reference, rejections) calls, no other
    cpp_helpers: str  # the helper functions the AICPU kernel's formula calls, no other
    precision: tuple[PrecisionRow, ...]  # the docs' precision table: the modelled output vs float64, per dtype
    aclnn: AclnnChecks  # the op_api's dtype lists per SoC, compute dtype, scalar reads
    schedule: Schedule  # how the operator maps onto the hardware: shape rules, channel inputs, sums
    success_calls: tuple[Call, ...]  # the C++ op_api tests' success calls (each dtype, each further kernel mode)
    tiling: TilingCases | None  # the C++ tiling tests' expected plans; None: the operator runs another's kernel
    docs: DocsPlan  # what the README and API docs state: parameter and error tables, formulas, constraints
    success_data: tuple[SuccessData, ...]  # each success call's inputs and expected outputs, in success_calls' order
    # kernel.runs: the other operator's L0 op the op_api calls; None: this operator's own OpDef, tiling and kernel
    runs: RunsPlan | None = None

    @property
    def main(self) -> ApiSignature:
        return self.signatures[0]

    @property
    def attrs(self) -> tuple[OpDefAttr, ...]:
        return self.opdef.attrs

    @property
    def inplace(self) -> ApiSignature | None:
        return self.signatures[1] if len(self.signatures) > 1 else None

    @property
    def result_index(self) -> int | None:
        return binding_result_index(self.spec)

    @property
    def op(self) -> str:
        return self.spec.operator.dir

    @property
    def op_type(self) -> str:
        """The OpType (OpDef, L0 op, tiling registration), e.g. LeakyRelu."""
        return self.spec.operator.type

    @property
    def file_stem(self) -> str:
        """The stem of the operator's own files (op_kernel/<stem>.cpp, op_host/<stem>_def.cpp...)."""
        return self.spec.operator.file_stem

    @property
    def tiling_struct(self) -> Code:
        return tiling_struct(self.spec)

    # The validated spec facts the emitters print as they are (names, parameters, error rows): read through the
    # plan, so an emitter depends on the plan alone.

    @property
    def params(self) -> list[Param]:
        return self.spec.params

    def param(self, name: str) -> Param:
        return self.spec.param(name)

    @property
    def tensor_inputs(self) -> list[Param]:
        return self.spec.tensor_inputs

    @property
    def unwritten_outputs(self) -> list[Param]:
        """The outputs the API takes but never writes (`written: false`)."""
        return self.spec.unwritten_outputs

    @property
    def errors(self) -> list[ErrorRow]:
        return self.spec.errors

    @property
    def aicpu_dtypes(self) -> list[DType]:
        """The dtypes routed to the AICPU kernel (routing.aicpu); empty: the AI Core kernel serves every one."""
        return self.spec.routing.aicpu

    @property
    def empty_return(self) -> list[str]:
        """The tensors whose emptiness returns early, as written (empty: the output's)."""
        return self.spec.empty_return_named

    @property
    def checks_first_query(self) -> str | None:
        """The C++ condition under which the op_api checks its `after_empty_return` rows before returning on an
        empty tensor (ops-nn's IsRegbase(); validation keeps `after_checks_on` to exactly the SoCs it selects), or
        None when the return comes first on every SoC."""
        return REGBASE_QUERY if self.spec.checks_before_empty_return_on else None

    @property
    def checks_first_header(self) -> str:
        """The header declaring `checks_first_query`, as ops-nn's op_api includes it."""
        return REGBASE_HEADER

    @property
    def header_name(self) -> str:
        """The API's public header, e.g. aclnn_leaky_relu.h."""
        return self.spec.api.header_name

    @property
    def api_snake(self) -> str:
        return self.spec.api.snake

    @property
    def function(self) -> str:
        """What the operator computes, in words (operator.function)."""
        return self.spec.operator.function

    @property
    def main_output(self) -> str:
        """The output the main formula computes, as the formula names it."""
        return self.spec.formula.main_output

    def error_doc(self, row: ErrorRow) -> str:
        return self.spec.error_doc(row)

    @property
    def out_keywords(self) -> dict[str, str]:
        return binding_out_keywords(self.spec)

    @property
    def integers_as(self) -> DType | None:
        """kernel.integers_as: the dtype integer inputs take part in the promotion as (None: their own)."""
        return self.spec.kernel.integers_as

    @property
    def binding_name(self) -> str:
        return self.spec.api.binding_name

    def output_rule(self, name: str) -> OutputRule:
        return next(rule for rule in self.outputs if rule.param.name == name)

    @property
    def api_source(self) -> str:
        """The API's source file: named after its header, or after the API when it shares a header it does not name
        after itself (each source keeps its own static checks)."""
        api = self.spec.api
        if api.header is not None and api.header != f"aclnn_{api.snake}.h" and self.spec.operator.stem:
            return f"aclnn_{api.snake}.cpp"
        return api.header_name.removesuffix(".h") + ".cpp"

    def rejects(self, values: dict[str, float | bool | int | str | None]) -> bool:
        """True when some error-table condition holds for these scalar and flag values."""
        return rejected(self.spec, self.rejections, values)


def plan_operator(spec: OpSpec, source: str, siblings: Sequence[OpSpec] = ()) -> OperatorPlan:
    """The operator's plan; `siblings`: every operator of its spec file (an operator may run another's kernel)."""
    problems: list[PlanProblem] = []
    runs, found = runs_plan(spec, siblings)
    problems += [PlanProblem(p.path, p.message, "invalid") for p in found]
    if len(spec.outputs) > 1 and spec.routing.aicpu:
        # one AI Core kernel writes every output; the AICPU kernel computes one (TODO(outputs))
        names = ", ".join(p.name for p in spec.outputs)
        message = f"the operator writes {names}; opgen generates AICPU kernels writing one output (routing.aicpu)"
        raise PlanError([PlanProblem(("routing", "aicpu"), message, "invalid")])
    if not kernel_socs(spec):
        legacy = ", ".join(s.soc for s in spec.supported_socs)
        message = f"no supported SoC runs the generated kernel ({legacy} lack DataCopyPad)"
        problems.append(PlanProblem(("socs",), message, "invalid"))
    try:
        kernel = kernel_plan(spec)
    except LoweringError as exc:
        message = f"the AI Core kernel cannot be generated: {exc}"
        problems.append(PlanProblem(("formula", "expr"), message, "not-lowerable"))
    else:
        for i, entry in enumerate(spec.opdef.inputs or []):
            if entry.param in kernel.gm_scalars and entry.param in kernel.guards:
                # the tiling picks the exact program by the scalar's value, which a tensor keeps on the device
                message = f"a non-finite '{entry.param}' selects another kernel program: carry it as an attribute"
                problems.append(PlanProblem(("opdef", "inputs", i, "param"), message, "invalid"))
        for i, param in enumerate(spec.params):
            if param.shape.one_element and param.name in kernel.guards:  # the same, for a one-element tensor
                message = (
                    f"a non-finite '{param.name}' selects another kernel program, but the tiling never sees the value "
                    "a one-element tensor holds"
                )
                problems.append(PlanProblem(("params", i, "shape", "one_element"), message, "invalid"))
        used = {instr.api for variant in kernel.variants for instr in variant.program.instrs}
        for j, api in enumerate(spec.kernel.vector_apis):
            if api not in used:
                message = f"the kernel must use {api}, but its lowered formula calls only {', '.join(sorted(used))}"
                problems.append(PlanProblem(("kernel", "vector_apis", j), message, "invalid"))
    try:
        negatives = tuple(negative_calls(spec))
    except NoCaseError as exc:
        path: FieldPath = ("errors", exc.row, "check") if exc.row is not None else ("errors",)
        problems.append(
            PlanProblem(path, f"{exc}; an earlier row always fails first, or the check cannot fail", "unreachable")
        )
    empty_soc_calls: tuple[SocCall, ...] = ()
    if not problems:
        try:
            empty_soc_calls = tuple(empty_return_soc_calls(spec))
        except NoCaseError as exc:
            problems.append(PlanProblem(("empty_return", "after_checks_on"), str(exc), "unreachable"))
    for name, tensor in spec.example.tensors.items():
        if spec.param(name).direction is Direction.OUTPUT and tensor.dtype not in (DType.FLOAT, DType.DOUBLE):
            message = "the example prints its output: use FLOAT or DOUBLE"
            problems.append(PlanProblem(("example", "tensors", name, "dtype"), message, "invalid"))
    if problems:
        raise PlanError(problems)
    precision = measure_precision(spec, kernel)
    misses = precision_misses(spec, kernel, precision)
    if misses:
        raise PlanError([PlanProblem(path, message, "imprecise") for path, message in misses])
    formula = kernel_formula(spec)
    checked = rejections(spec)
    # the golden tests compare with the aten op api.aten names; an aten form's differences serve its own test
    differences = tuple(torch_differences(spec)) if spec.api.aten else ()
    per_case = derived_per_case(spec)
    every_derived = derived_inputs(spec)
    valid = tuple(valid_calls(spec))
    socs = kernel_socs(spec)
    schedule = schedule_for(spec)
    apis = tuple(signatures(spec))
    binding_out = spec.api.aten is None or has_out_overload(spec.api.aten)
    formulas = formula_plan(spec)
    opdef = opdef_plan(spec)
    golden = golden_plan(
        spec,
        kernel,
        schedule,
        formulas.over_params,
        negatives,
        binding_out,
        binding_out_keywords(spec),
        {p.name: binding_result_index(spec, p.name) for p in spec.outputs},
        derived=tuple((name, expr) for name, expr in every_derived if name not in per_case),
        case_derived=tuple((name, expr) for name, expr in every_derived if name in per_case),
        soc_calls=empty_soc_calls,
    )

    def rejects(values: dict[str, float | bool | int | str | None]) -> bool:
        return rejected(spec, checked, values)

    successes = success_calls(spec, kernel, valid, rejects)

    return OperatorPlan(
        spec=spec,
        source=source,
        formula=parsed_formula(spec),
        kernel_formula=formula,
        signatures=apis,
        checks=tuple(row.check.cpp(spec, i) for i, row in enumerate(spec.errors)),
        rejections=checked,
        torch_differences=differences,
        kernel=kernel,
        kernel_socs=socs,
        kernel_entry=kernel_entry(spec),
        opdef=opdef,
        tiling_checks=tiling_checks(spec, opdef),
        registration=aicore_registration(spec, socs),
        formulas=formulas,
        example=example_plan(spec),
        golden=golden,
        aten_form=aten_form_plan(spec),
        aten=aten_registration(spec, binding_out, apis[0], apis[1] if len(apis) > 1 else None),
        aten_unused=unused_args(spec),
        outputs=tuple(
            OutputRule(out, tuple(spec.shape_sources(out)), tuple(spec.dtype_sources(out))) for out in spec.outputs
        ),
        valid_calls=valid,
        negative_calls=negatives,
        empty_soc_calls=empty_soc_calls,
        bindings=binding_names(spec),
        binding_out=binding_out,
        numpy_helpers=_joined_helpers(
            F.numpy_helpers(
                [
                    *kernel_formulas(spec).values(),
                    *(r.condition for r in checked),
                    *differences,
                    *(expr for _, expr in every_derived),
                ]
            ),
            reference_helpers(spec),
        ),
        cpp_helpers=F.cpp_helpers([formula]),
        precision=precision,
        aclnn=aclnn_checks(spec),
        schedule=schedule,
        success_calls=successes,
        success_data=tuple(success_data(spec, kernel, call) for call in successes),
        tiling=tiling_cases(spec, kernel, socs, schedule.gathers, schedule.interleaves) if runs is None else None,
        docs=docs_plan(spec, schedule, apis, kernel, precision),
        runs=runs,
    )


def _joined_helpers(*sources: str) -> str:
    """Helper sources as one block, two blank lines apart, ending in a newline (empty when there are none)."""
    parts = [source.strip() for source in sources if source.strip()]
    return "\n\n\n".join(parts) + "\n" if parts else ""


def rejections(spec: OpSpec) -> tuple[Rejection, ...]:
    """The error rows whose check is a condition over scalars and flags, with that condition."""
    found = []
    for index, row in enumerate(spec.errors):
        check = row.check
        if isinstance(check, CheckRejectIf):
            found.append(Rejection(row, index, check.condition(spec), check.python(spec)))
    return tuple(found)


def rejected(spec: OpSpec, found: Sequence[Rejection], values: dict[str, float | bool | int | str | None]) -> bool:
    """True when one of the error rows `found` (conditions over scalars and flags) holds for these values."""
    checks = (r.row.check for r in found)
    return any(check.rejects(spec, values) for check in checks if isinstance(check, CheckRejectIf))


def binding_out_keywords(spec: OpSpec) -> dict[str, str]:
    """Each output's keyword in a binding that takes outputs: `out` for one, else its Python name as aten's out
    overload names them (log_sigmoid_forward: output, buffer)."""
    every = [p for p in spec.params if p.direction is Direction.OUTPUT]
    return {p.name: "out" if len(every) == 1 else p.python for p in every}


def binding_result_index(spec: OpSpec, output: str | None = None) -> int | None:
    """Where output `output` (default: the computed one) is in what a binding returns: None when it returns that
    one array; its position in the tuple of every output (aten's order, e.g. log_sigmoid_forward -> (output,
    buffer), npu_geglu -> (out, outGelu))."""
    every = [p.name for p in spec.params if p.direction is Direction.OUTPUT]
    return every.index(output or spec.outputs[0].name) if len(every) > 1 else None


def kernel_socs(spec: OpSpec) -> tuple[str, ...]:
    """The supported SoCs the generated kernel runs on: those with DataCopyPad. ops-nn registers its Ascend C
    kernels the same way (leaky_relu_def.cpp: AddConfig for the SoCs its kernel targets only) and serves the
    others, whose aclnn API it still documents, from built-in kernels."""
    return tuple(s.soc for s in spec.supported_socs if get_soc(s.soc).data_copy_pad)


def binding_names(spec: OpSpec) -> tuple[str, ...]:
    names = [spec.api.binding_name]
    if spec.api.inplace is not None:
        names.append(spec.api.inplace.aten or snake_case(spec.api.inplace.name.removeprefix("aclnn")))
    return tuple(names)
