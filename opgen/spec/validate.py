"""Cross-reference checks on a shape-valid `OpSpec`: every name a spec uses must exist and fit its role.

Each problem becomes a Diagnostic at the exact YAML location of the offending value; all problems are
collected, so one `opgen check` run reports everything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from opgen import attr_kinds, formula
from opgen.formula.complex import COMPLEX_FUNCTIONS, complex_problem
from opgen.formula.grammar import CONSTANTS, KEYWORDS, REDUCTION_SPELLING, RESERVED
from opgen.formula.integer import integer_problem
from opgen.spec import aten_form, aten_unused
from opgen.spec.channel_broadcast import accepts as channel_accepts
from opgen.spec.channel_broadcast import channel_count
from opgen.spec.checks import CHECK_KINDS, IMPLICIT_POINTERS
from opgen.spec.diagnostics import Diagnostic, FieldPath, suggest
from opgen.spec.dtypes import AICORE_DTYPES, AICPU_COMPLEX_DTYPES, AICPU_DTYPES, AICPU_INTEGER_DTYPES, DType
from opgen.spec.formula_binding import formula_symbols, kernel_formulas, let_symbol, local_lets, output_symbols
from opgen.spec.half_split import half_shape, split_axis
from opgen.spec.model import (
    Direction,
    EmptyReturn,
    HalvesFormula,
    OpDefTensor,
    OpSpec,
    Param,
    ParamKind,
    ctype_base,
)
from opgen.spec.names import identifier_problems
from opgen.spec.socs import REGBASE_QUERY, SOC_BY_NAME, regbase_socs
from opgen.spec.yaml_source import SourceDocument

KNOWN_FORMATS = ("ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z", "HWCN", "NDHWC", "FRACTAL_NZ", "NCDHW")
SPECIAL_VALUES = ("inf", "-inf", "nan")
# Parameters passed by value (not tensors): what examples and golden settings give values for.
HOST_KINDS = (ParamKind.SCALAR, ParamKind.BOOL, ParamKind.INT64, ParamKind.DOUBLE, ParamKind.STRING)


def formula_name_problem(name: str) -> str | None:
    """Why a formula could not refer to a parameter or variable called `name`, or None."""
    if name in CONSTANTS:
        return f"'{name}' is a formula constant; a formula could not refer to a parameter of that name"
    if name in KEYWORDS:
        return f"'{name}' is a formula keyword; a formula could not refer to a parameter of that name"
    return None


def reduction_missing(expr: formula.Expr, sectioned: bool = False) -> str:
    """Why an expression reducing along dim is refused: outside the formula (a golden expression, a condition) the
    rest of the pipeline cannot compute it; in the formula, a `reduce_dim` section must say along which dim."""
    spelled = sorted({REDUCTION_SPELLING[node.op] + "()" for node in formula.reductions(expr)})
    verb = "reduces" if len(spelled) == 1 else "reduce"
    if sectioned:
        return f"{' and '.join(spelled)} {verb} along dim: only the formula's expressions may (TODO(reduce-dim))"
    return (
        f"{' and '.join(spelled)} {verb} along the operator's dim: give the spec a 'reduce_dim' section naming the "
        "tensor and the dim (the reduce_dim schedule computes it)"
    )


class _Checker:
    def __init__(self, spec: OpSpec, source: SourceDocument):
        self.spec = spec
        self.source = source
        self.problems: list[Diagnostic] = []
        self.params: dict[str, Param] = {}

    def report(self, path: FieldPath, message: str, kind: str) -> None:
        self.problems.append(Diagnostic(self.source.location_of(path), path, message, kind))

    def report_key(self, path: FieldPath, message: str, kind: str) -> None:
        """A problem with a mapping's key (not its value), shown at the key."""
        self.problems.append(Diagnostic(self.source.location_of(path, prefer_key=True), path, message, kind))

    # ---- name resolution helpers

    def resolve(
        self, name: str, path: FieldPath, *, kinds: Iterable[ParamKind] | None = None, what: str = ""
    ) -> Param | None:
        param = self.params.get(name)
        if param is None:
            self.report(path, f"undefined parameter '{name}'{suggest(name, self.params)}", "undefined-name")
            return None
        allowed = tuple(kinds) if kinds is not None else None
        if allowed is not None and param.kind not in allowed:
            expected = " or ".join(k.value for k in allowed)
            self.report(
                path, f"'{name}' is a {param.kind.value} parameter; {what or 'this'} needs a {expected}", "wrong-kind"
            )
            return None
        return param

    def resolve_all(self, names: list[str], path: FieldPath, **kwargs) -> list[Param]:
        found = [self.resolve(n, path + (i,), **kwargs) for i, n in enumerate(names)]
        return [p for p in found if p is not None]

    # ---- sections

    def run(self) -> list[Diagnostic]:
        self.check_params()
        self.check_socs()
        self.check_api()
        self.check_split()
        self.check_reduce_dim()
        self.check_formula()
        self.check_derivative_of()
        self.check_errors()
        self.check_example()
        self.check_golden()
        self.check_kernel()
        self.check_opdef()
        if not self.problems:  # names are checked once they are known to be well-formed parameters
            self.check_identifiers()
        return self.problems

    def check_identifiers(self) -> None:
        """Names that become identifiers in generated code, against each target language's reserved names."""
        for problem in identifier_problems(self.spec):
            self.report(problem.path, problem.message, "reserved-name")

    def check_params(self) -> None:
        for i, param in enumerate(self.spec.params):
            if param.name in self.params:
                self.report(("params", i, "name"), f"duplicate parameter name '{param.name}'", "duplicate-name")
                continue
            if param.name in IMPLICIT_POINTERS:
                self.report(
                    ("params", i, "name"),
                    f"'{param.name}' is reserved for the aclnn phase-one outputs",
                    "reserved-name",
                )
            problem = formula_name_problem(param.name)
            if problem is not None:
                self.report(("params", i, "name"), problem, "reserved-name")
            self.params[param.name] = param
        tensors = (ParamKind.TENSOR,)
        for i, param in enumerate(self.spec.params):
            base = ("params", i)
            for j, fmt in enumerate(param.formats):
                if fmt not in KNOWN_FORMATS:
                    self.report(
                        base + ("formats", j), f"unknown format '{fmt}'{suggest(fmt, KNOWN_FORMATS)}", "unknown-value"
                    )
            shape, dtype = param.shape, param.dtype
            related = {
                ("shape", "broadcast_with"): shape.broadcast_with,
                ("shape", "broadcast_result_of"): shape.broadcast_result_of,
                ("shape", "same_as"): [shape.same_as] if shape.same_as else [],
                ("dtype", "promote_with"): dtype.promote_with,
                ("dtype", "castable_from"): dtype.castable_from,
                ("dtype", "same_as"): [dtype.same_as] if dtype.same_as else [],
            }
            for field, names in related.items():
                for name in names:
                    other = self.params.get(name)
                    if other is not None and not other.written:  # it has no shape or dtype to relate to
                        message = f"'{name}' is left unwritten (written: false): it has no shape or dtype"
                        self.report(base + field, message, "invalid")
            self.resolve_all(
                shape.broadcast_with, base + ("shape", "broadcast_with"), kinds=tensors, what="a shape relation"
            )
            self.resolve_all(
                shape.broadcast_result_of,
                base + ("shape", "broadcast_result_of"),
                kinds=tensors,
                what="a shape relation",
            )
            if shape.same_as:
                self.resolve(shape.same_as, base + ("shape", "same_as"), kinds=tensors, what="a shape relation")
            if shape.rows_of:
                self.check_rows_of(param, base + ("shape", "rows_of"))
            if shape.channel_of:
                self.check_channel_of(param, base + ("shape", "channel_of"))
            if shape.one_element:
                self.check_one_element(param, base)
            self.resolve_all(
                dtype.promote_with, base + ("dtype", "promote_with"), kinds=tensors, what="a dtype relation"
            )
            self.resolve_all(
                dtype.castable_from, base + ("dtype", "castable_from"), kinds=tensors, what="a dtype relation"
            )
            if dtype.same_as:
                self.resolve(dtype.same_as, base + ("dtype", "same_as"), kinds=tensors, what="a dtype relation")
            if dtype.cast_inputs:
                self.check_cast_inputs(param, base + ("dtype", "cast_inputs"))
            if dtype.castable_to is not None and param.kind is not ParamKind.SCALAR:
                self.report(
                    base + ("dtype", "castable_to"), "'castable_to' applies to scalar parameters only", "wrong-kind"
                )
            self.resolve_all(
                dtype.castable_to_promoted_of,
                base + ("dtype", "castable_to_promoted_of"),
                kinds=tensors,
                what="a dtype relation",
            )
            if dtype.castable_to_promoted_of and (param.kind is not ParamKind.SCALAR or dtype.castable_to):
                self.report(
                    base + ("dtype", "castable_to_promoted_of"),
                    "'castable_to_promoted_of' applies to scalar parameters without 'castable_to'",
                    "wrong-kind",
                )
            if param.kind is not ParamKind.TENSOR and (
                shape.broadcast_with
                or shape.same_as
                or shape.broadcast_result_of
                or shape.channel_of
                or shape.one_element
            ):
                self.report(base + ("shape",), "shape relations apply to tensor parameters only", "wrong-kind")
        if not self.spec.outputs:
            self.report(
                ("params",), "the operator needs at least one output tensor (direction: output)", "missing-output"
            )
        self.check_channel_sources()

    def check_channel_of(self, param: Param, path: FieldPath) -> None:
        """A channel input follows another input's dim 1, and is not also numpy-broadcast."""
        of = param.shape.channel_of
        assert of is not None
        if param.direction is not Direction.INPUT:
            self.report(
                path, "'channel_of' applies to input tensors (an output's shape follows its sources)", "invalid"
            )
        if param.shape.broadcast_with:
            message = "a channel input broadcasts along the channel dim only: it cannot also have 'broadcast_with'"
            self.report(path, message, "invalid")
        target = self.resolve(of, path, kinds=(ParamKind.TENSOR,), what="a channel relation")
        if target is None:
            return
        if target.name == param.name:
            self.report(path, f"'{param.name}' cannot hold the channels of itself", "invalid")
        elif target.direction is not Direction.INPUT or target.shape.channel_of is not None:
            message = f"'{of}' must be an input tensor that is not itself a channel input"
            self.report(path, message, "invalid")

    def check_one_element(self, param: Param, base: FieldPath) -> None:
        """A one-element tensor is an input the kernel reads as a scalar, stored in the dtype of the input the kernel
        computes from (it reads the value as that storage type)."""
        path = base + ("shape", "one_element")
        if param.kind is not ParamKind.TENSOR:
            return  # reported with the other shape relations
        if param.direction is not Direction.INPUT:
            self.report(path, "'one_element' applies to input tensors (the kernel reads its one value)", "invalid")
            return
        shape = param.shape
        if shape.broadcast_with or shape.same_as or shape.channel_of:
            message = "a one-element tensor is read as a scalar: it has no other shape relation"
            self.report(path, message, "invalid")
        first = self.spec.tensor_inputs[0]
        if first.name == param.name:
            message = "the first input gives the kernel its dtype and shape: a one-element tensor cannot be it"
            self.report(path, message, "invalid")
        elif param.dtype.same_as != first.name:
            # the kernel reads its one value as the storage type T of the first input (GlobalTensor<T>::GetValue)
            message = f"a one-element tensor is read in the kernel's dtype: give it dtype: {{same_as: {first.name}}}"
            self.report(base + ("dtype", "same_as") if param.dtype.same_as else path, message, "invalid")
        if param.empty_tensor:
            self.report(base + ("empty_tensor",), "a one-element tensor holds one value: it is never empty", "invalid")

    def check_channel_sources(self) -> None:
        """An output takes its shape from full tensors: a channel input holds only one value per channel."""
        for i, param in enumerate(self.spec.params):
            if param.direction is not Direction.OUTPUT or param.name in self.spec.formula.reduce:
                continue  # a per-channel sum holds one value per channel: it has a channel input's shape
            for name in self.spec.shape_sources(param):
                source = self.params.get(name)
                if source is not None and source.shape.channel_of is not None:
                    message = (
                        f"'{param.name}' would take its shape from the channel input '{name}': name the tensor it "
                        "follows (shape: {same_as: ...})"
                    )
                    self.report(("params", i, "shape"), message, "invalid")

    def check_socs(self) -> None:
        seen: set[str] = set()
        all_dtypes = {d for p in self.spec.params for d in p.dtypes}
        tensor_dtypes = {d for p in self.spec.params if p.is_tensor for d in p.dtypes}
        for i, entry in enumerate(self.spec.socs):
            if entry.soc not in SOC_BY_NAME:
                self.report(
                    ("socs", i, "soc"), f"unknown SoC '{entry.soc}'{suggest(entry.soc, SOC_BY_NAME)}", "unknown-value"
                )
            if entry.soc in seen:
                self.report(("socs", i, "soc"), f"SoC '{entry.soc}' is listed twice", "duplicate-name")
            seen.add(entry.soc)
            soc = SOC_BY_NAME.get(entry.soc)
            if (
                soc is not None
                and entry.supported
                and not soc.bf16_supported
                and DType.BFLOAT16 in tensor_dtypes
                and DType.BFLOAT16 not in entry.exclude_dtypes
            ):
                # the kernel registered for it could not run: the chip handles no bfloat16 data (opgen/spec/socs.py)
                self.report(
                    ("socs", i),
                    f"{entry.soc} has no bfloat16: add exclude_dtypes: [BFLOAT16] (or mark the SoC unsupported)",
                    "invalid",
                )
            for j, dtype in enumerate(entry.exclude_dtypes):
                if dtype not in all_dtypes:
                    self.report(
                        ("socs", i, "exclude_dtypes", j),
                        f"no parameter accepts {dtype.value}, so excluding it means nothing",
                        "invalid",
                    )
        if not self.spec.supported_socs:
            self.report(("socs",), "at least one SoC must be supported", "invalid")
        for j, dtype in enumerate(self.spec.routing.aicpu):
            if dtype not in all_dtypes:
                self.report(("routing", "aicpu", j), f"no parameter accepts {dtype.value}", "invalid")
            elif dtype not in AICPU_DTYPES:
                self.report(
                    ("routing", "aicpu", j),
                    f"the AICPU kernel takes {'/'.join(d.value for d in AICPU_DTYPES)} tensors, not {dtype.value}",
                    "invalid",
                )
            elif dtype in AICPU_INTEGER_DTYPES:
                self.check_integer_formula(j, dtype)
            elif dtype in AICPU_COMPLEX_DTYPES:
                self.check_complex_formula(j, dtype)
        for first in self.spec.tensor_inputs[:1]:  # the tensor whose dtype picks the kernel
            self.check_kernel_dtypes(first)

    def check_cast_inputs(self, param: Param, path: tuple) -> None:
        """The kernel computes in the output's dtype: one written output says so, and each of its dtypes has a
        kernel (a dtype of the first input)."""
        if param.kind is not ParamKind.TENSOR or param.direction is not Direction.OUTPUT:
            self.report(path, "'cast_inputs' applies to an output tensor only", "wrong-kind")
            return
        if [p.name for p in self.spec.outputs if p.dtype.cast_inputs] != [param.name]:
            self.report(path, "only one output may say the inputs are cast to its dtype", "invalid")
            return
        kernels = self.spec.tensor_inputs[0].dtypes if self.spec.tensor_inputs else []
        missing = [d.value for d in param.dtypes if d not in kernels]
        if missing:
            self.report(
                path,
                f"the kernel would compute in {', '.join(missing)}, which the first input does not take: no kernel",
                "invalid",
            )

    def check_integer_formula(self, index: int, dtype: DType) -> None:
        """The AICPU kernel computes a routed integer dtype in the integer itself: the formula must mean the same
        there (no division, powers, math functions or fractional constants)."""
        self._check_routed_formula(
            index,
            integer_problem,
            lambda name, problem: (
                f"the AICPU kernel computes {dtype.value} in {dtype.value} itself, and {name}'s "
                f"formula cannot be: {problem} (allowed: + - * min max, comparisons, where, integral constants)"
            ),
        )

    def check_complex_formula(self, index: int, dtype: DType) -> None:
        """The AICPU kernel computes a routed complex dtype in std::complex: the formula must have a complex meaning
        (no comparison, where, min/max, power or function without a complex definition)."""
        self._check_routed_formula(
            index,
            complex_problem,
            lambda name, problem: (
                f"the AICPU kernel computes {dtype.value} on complex values, and {name}'s formula "
                f"has no complex meaning: {problem} (allowed: + - * /, real constants, {', '.join(COMPLEX_FUNCTIONS)})"
            ),
        )

    def _check_routed_formula(
        self,
        index: int,
        problem_of: Callable[[formula.Expr], str | None],
        message: Callable[[str, str], str],
    ) -> None:
        """Reports at routing.aicpu[index] the first output formula `problem_of` finds a problem in."""
        try:
            exprs = kernel_formulas(self.spec)
        except (formula.FormulaError, KeyError, ValueError):
            return  # check_formula reports the formula
        for name, expr in exprs.items():
            problem = problem_of(expr)
            if problem is not None:
                self.report(("routing", "aicpu", index), message(name, problem), "invalid")
                return

    def check_kernel_dtypes(self, first: Param) -> None:
        integers_as = self.spec.kernel.integers_as
        if integers_as is not None and not (integers_as.is_floating and integers_as in AICORE_DTYPES):
            self.report(("kernel", "integers_as"), f"{integers_as.value} is not a floating AI Core dtype", "invalid")
        for dtype in first.dtypes:
            if self.spec.result_dtype(dtype) is not dtype:
                continue  # cast to kernel.integers_as before the kernel
            if dtype not in AICORE_DTYPES and dtype not in self.spec.routing.aicpu:
                index = self.spec.params.index(first)
                self.report(
                    ("params", index, "dtypes", first.dtypes.index(dtype)),
                    f"{dtype.value} has no AI Core kernel (A2/A3 have no vector arithmetic for it) and is not routed "
                    "to AICPU (routing.aicpu)",
                    "invalid",
                )

    def check_api(self) -> None:
        for path, message in aten_form.problems(self.spec) + aten_unused.problems(self.spec):
            self.report(path, message, "invalid")
        inplace = self.spec.api.inplace
        if inplace is None:
            return
        # The in-place tensor may keep the name of a parameter it replaces (aclnnInplaceHardswish keeps `self`).
        if inplace.param in self.params and inplace.param not in inplace.replaces:
            self.report(
                ("api", "inplace", "param"),
                f"'{inplace.param}' clashes with a parameter of the main API that it does not replace",
                "duplicate-name",
            )
        replaced = self.resolve_all(
            inplace.replaces, ("api", "inplace", "replaces"), kinds=(ParamKind.TENSOR,), what="an in-place variant"
        )
        if replaced and not any(p.direction is Direction.OUTPUT for p in replaced):
            self.report(("api", "inplace", "replaces"), "an in-place variant must replace the output", "invalid")
        if inplace.ctype is not None and ctype_base(inplace.ctype) != "aclTensor":
            message = f"the in-place parameter is an aclTensor, not {inplace.ctype!r}"
            self.report(("api", "inplace", "ctype"), message, "invalid")

    def parse(self, text: str, path: FieldPath, symbols: dict[str, formula.Symbol], what: str) -> formula.Expr | None:
        """The parsed expression, or None after reporting why it does not parse."""
        # Names a formula cannot bind (e.g. a parameter called 'pi') are reported at the name itself.
        symbols = {name: symbol for name, symbol in symbols.items() if name not in RESERVED}
        try:
            expr = formula.parse(text, symbols)
        except formula.FormulaError as exc:
            self.report(path, f"{what}: {exc.message} (at column {exc.column + 1} of the expression)", "formula")
            return None
        if formula.has_reduction(expr) and (self.spec.reduce_dim is None or path[0] != "formula"):
            self.report(path, f"{what}: {reduction_missing(expr, self.spec.reduce_dim is not None)}", "unsupported")
            return None
        return expr

    def check_reduce_dim(self) -> None:
        """A reduction along dim: the reduced tensor is an input, the dim an int64 parameter (or a literal); every
        tensor has its shape (no broadcast or channel relation: a row is the same elements in each)."""
        section = self.spec.reduce_dim
        if section is None:
            return
        path: FieldPath = ("reduce_dim",)
        if self.spec.split is not None:
            self.report(path, "an operator reduces along dim or splits in halves, not both", "invalid")
        tensor = self.resolve(section.tensor, path + ("tensor",), kinds=(ParamKind.TENSOR,), what="the reduction")
        if tensor is not None and tensor.direction is not Direction.INPUT:
            self.report(
                path + ("tensor",), f"'{section.tensor}' is an output; the reduction reads an input", "wrong-kind"
            )
        if isinstance(section.dim, str):
            self.resolve(section.dim, path + ("dim",), kinds=(ParamKind.INT64,), what="the reduced dim")
            if section.dim in self.params and self.params[section.dim].values is not None:
                message = f"'{section.dim}' lists 'values' (kernel modes); a reduced dim is any dim of the tensor"
                self.report(path + ("dim",), message, "invalid")
        for i, param in enumerate(self.spec.params):
            shape = param.shape
            # another input may broadcast to the reduced tensor's shape (SCE's labels [1, C], [N, 1], [1, 1]): the
            # outputs keep the reduced tensor's shape, so the broadcast is one way
            to_reduced = (
                param.direction is Direction.INPUT
                and param.name != section.tensor
                and shape.broadcast_with == [section.tensor]
                and not shape.same_as
            )
            if (shape.broadcast_with and not to_reduced) or shape.broadcast_result_of or shape.channel_of:
                message = "a reduce_dim operator's tensors all have the reduced tensor's shape (no broadcast or "
                message += f"channel), but another input's 'broadcast_with: [{section.tensor}]' (to its shape)"
                self.report(("params", i, "shape"), message, "invalid")
            elif shape.one_element:
                message = "a reduce_dim operator's tensors all have the reduced tensor's shape (no one_element)"
                self.report(("params", i, "shape"), message, "invalid")

    def check_rows_of(self, param: Param, path: FieldPath) -> None:
        """A per-row output: of a reduce_dim operator's reduced tensor (its expression is checked with the formula)."""
        section = self.spec.reduce_dim
        if param.direction is not Direction.OUTPUT or section is None or param.shape.rows_of != section.tensor:
            message = "'rows_of' is for an output of a reduce_dim operator, naming the reduced tensor"
            self.report(path, message + (f" ('{section.tensor}')" if section is not None else ""), "invalid")
            return
        if param.shape.same_as or param.shape.broadcast_result_of:
            self.report(path, "give an output either 'rows_of' or another shape relation", "invalid")
        if section.dim != -1:  # a non-last dim takes the columns path (a0 > 1), which has no per-row output
            message = "a per-row output needs reduce_dim.dim -1 (the last dim): the columns path (a0 > 1) has none"
            self.report(path, message, "invalid")
        if self.spec.routing.aicpu:  # the AICPU element loop writes every output per element
            self.report(path, "a per-row output runs on AI Core only: leave routing.aicpu out", "invalid")

    def check_formula(self) -> None:
        f = self.spec.formula
        for name in f.outputs or f.computed:
            self.check_formula_output(name)
        if not f.outputs:
            computed = [p.name for p in self.spec.outputs]
            if len(computed) > 1:
                message = f"the operator writes {', '.join(computed)}: give each its expression in formula.outputs"
                self.report(("formula", "output"), message, "missing")
        else:
            for param in self.spec.outputs:
                if param.name not in f.outputs:
                    message = f"the output '{param.name}' has no expression (or say written: false on it)"
                    self.report(("formula", "outputs"), message, "missing")
            listed = [name for name in f.outputs if name in self.params]
            in_api_order = [p.name for p in self.spec.outputs if p.name in f.outputs]
            if listed != in_api_order and set(listed) == set(in_api_order):
                message = f"list the outputs in the API's order: {', '.join(in_api_order)}"
                self.report(("formula", "outputs"), message, "invalid")
        for name, reduction in f.reduce.items():
            self.check_reduction(name, reduction.sum_over_channels_of)
        for var, target in f.vars.items():
            problem = formula_name_problem(var)
            if problem is not None:
                self.report_key(("formula", "vars", var), problem, "reserved-name")
            if var in self.params:
                self.report(("formula", "vars", var), f"variable '{var}' shadows a parameter", "duplicate-name")
            self.resolve(target, ("formula", "vars", var))
        self.check_lets()
        parsed: list[formula.Expr | None] = []
        for name, text in f.computed.items():
            if text:
                parsed.append(self.parse(text, f.expr_path(name), output_symbols(self.spec), "formula"))
                per_row = name in self.params and self.params[name].shape.rows_of
                if per_row and parsed[-1] is not None and formula.varies_along_row(parsed[-1]):
                    message = f"'{name}' holds one value per row: it may read tensors only inside rowmax/rowsum"
                    self.report(f.expr_path(name), message, "invalid")
            elif self.spec.derivative_of is None:
                self.report(
                    ("formula",),
                    "formula.expr is missing (only a backward spec with derivative_of may leave it out)",
                    "missing",
                )
        if None not in parsed:
            self.check_lets_used([expr for expr in parsed if expr is not None])

    def check_lets(self) -> None:
        """Each formula.let: a name free for it (no parameter, alias, function or formula word), a number computed
        from the parameters, the vars and the let names before it (not itself, nor one after it)."""
        lets = self.spec.formula.let
        symbols = formula_symbols(self.spec)
        functions = set(formula.FUNCTIONS) | set(formula.STRUCTURAL)
        for i, (name, text) in enumerate(lets.items()):
            path: FieldPath = ("formula", "let", name)
            problem = formula_name_problem(name)
            if problem is not None:
                self.report_key(path, problem.replace("a parameter", "a local name"), "reserved-name")
            elif name in functions:
                self.report_key(path, f"'{name}' is a formula function; name the value otherwise", "reserved-name")
            if name in self.params:
                self.report_key(path, f"local name '{name}' shadows a parameter", "duplicate-name")
            elif name in self.spec.formula.vars:
                self.report_key(path, f"local name '{name}' is also a formula.vars alias", "duplicate-name")
            later = list(lets)[i:]
            # itself and the names after it parse (as tensors), to say what is wrong with using them
            expr = self.parse(text, path, symbols | dict.fromkeys(later, formula.Symbol.tensor()), f"let '{name}'")
            symbol = None
            if expr is not None:
                ahead = [n for n in formula.free_names(expr) if n in later]
                if name in ahead:
                    self.report(path, f"let '{name}' uses itself; a local name is computed once, from others", "cycle")
                elif ahead:
                    message = (
                        f"let '{name}' uses '{ahead[0]}', which is defined after it: a local name may use only the "
                        "local names before it (reorder formula.let)"
                    )
                    self.report(path, message, "cycle")
                else:
                    symbol = let_symbol(expr)
                    if symbol is None:
                        kind = "a boolean" if formula.type_of(expr).is_bool else "a string"
                        self.report(path, f"let '{name}': {kind}; a local name stands for a number", "formula")
            symbols = symbols | {name: symbol or formula.Symbol.tensor()}

    def check_lets_used(self, outputs: list[formula.Expr]) -> None:
        """Every formula.let is used by an output expression, directly or through a later let."""
        used = {n for expr in outputs for n in formula.free_names(expr)}
        definitions = local_lets(self.spec)
        for name in reversed(self.spec.formula.let):
            if name in used:
                definition = definitions.get(name)
                used.update(formula.free_names(definition) if definition is not None else ())
        for name in self.spec.formula.let:
            if name not in used:
                message = f"local name '{name}' is never used by the output expressions (remove it or use it)"
                self.report_key(("formula", "let", name), message, "unused")

    def check_reduction(self, name: str, of: str) -> None:
        """A reduced output is one of formula.outputs, summed over the channels of an input tensor, shaped like a
        channel input of that tensor."""
        path = ("formula", "reduce", name)
        if name not in self.spec.formula.outputs:
            self.report(path, f"'{name}' is not one of formula.outputs", "invalid")
            return
        target = self.resolve(of, path + ("sum_over_channels_of",), kinds=(ParamKind.TENSOR,), what="a reduction")
        if target is None:
            return
        if target.direction is not Direction.INPUT:
            self.report(path + ("sum_over_channels_of",), f"'{of}' must be an input tensor", "invalid")
            return
        like = self.params[name].shape.same_as
        source = self.params.get(like) if like else None
        if source is None or source.shape.channel_of != of:
            message = f"'{name}' holds one value per channel of '{of}': give it the shape of a channel input of '{of}'"
            self.report(path, message + " (shape: {same_as: ...})", "invalid")

    def check_split(self) -> None:
        """A half split: the split tensor is an input, the dim an int64 parameter (or a literal), the halves are
        free names, swap_when a bool; no tensor takes a broadcast or channel relation (the halves meet elementwise);
        an output written per half (`{halves: [...]}`) needs a split."""
        split = self.spec.split
        if split is None:
            for name, text in self.spec.formula.outputs.items():
                if isinstance(text, HalvesFormula):
                    message = "an output written per half needs a 'split' section (the tensor and dim it follows)"
                    self.report(("formula", "outputs", name), message, "invalid")
            return
        path: FieldPath = ("split",)
        tensor = self.resolve(split.tensor, path + ("tensor",), kinds=(ParamKind.TENSOR,), what="the split")
        if tensor is not None and tensor.direction is not Direction.INPUT:
            self.report(path + ("tensor",), f"'{split.tensor}' is an output; the split cuts an input", "wrong-kind")
        if isinstance(split.dim, str):
            self.resolve(split.dim, path + ("dim",), kinds=(ParamKind.INT64,), what="the split dim")
            if split.dim in self.params and self.params[split.dim].values is not None:
                message = f"'{split.dim}' lists 'values' (kernel modes); a split dim is any dim of the tensor"
                self.report(path + ("dim",), message, "invalid")
        if split.swap_when is not None:
            self.resolve(split.swap_when, path + ("swap_when",), kinds=(ParamKind.BOOL,), what="swap_when")
        if split.halves[0] == split.halves[1]:
            self.report(path + ("halves", 1), f"both halves are named '{split.halves[0]}'", "duplicate-name")
        for j, half in enumerate(split.halves):
            problem = formula_name_problem(half)
            if problem is None and half in self.params:
                problem = f"half '{half}' is the name of a parameter"
            if problem is None and (half in self.spec.formula.vars or half in self.spec.formula.let):
                problem = f"half '{half}' is also a formula.vars or formula.let name"
            if problem is not None:
                self.report(path + ("halves", j), problem, "duplicate-name")
        for i, param in enumerate(self.spec.params):
            shape = param.shape
            if shape.broadcast_with or shape.broadcast_result_of or shape.channel_of:
                message = "a half-split operator's tensors follow the split (no broadcast or channel relation)"
                self.report(("params", i, "shape"), message, "invalid")
            elif shape.same_as is not None:
                message = "a half-split operator's shapes follow the split: full-size for the split tensor and the "
                message += "outputs written per half, half-size for the others"
                self.report(("params", i, "shape", "same_as"), message, "invalid")

    def check_formula_output(self, name: str) -> None:
        """`name` is an output tensor the operator writes."""
        outputs = self.spec.formula.outputs
        path: FieldPath = ("formula", "outputs", name) if outputs else ("formula", "output")
        if outputs and name not in self.params:  # reported at the key, the name as written
            location = self.source.location_of(path, prefer_key=True)
            message = f"undefined parameter '{name}'{suggest(name, self.params)}"
            self.problems.append(Diagnostic(location, path, message, "undefined-name"))
            return
        param = self.resolve(name, path, kinds=(ParamKind.TENSOR,), what="the formula output")
        if param is None:
            return
        if param.direction is not Direction.OUTPUT:
            self.report(path, f"'{name}' is an input; the formula must compute an output", "wrong-kind")
        elif not param.written:
            self.report(path, f"'{name}' is left unwritten (written: false); it has no expression", "invalid")

    def check_derivative_of(self) -> None:
        link = self.spec.derivative_of
        if link is None:
            return
        base: FieldPath = ("derivative_of",)
        tensor = (ParamKind.TENSOR,)
        for field in ("grad", "input"):
            param = self.resolve(getattr(link, field), base + (field,), kinds=tensor, what="derivative_of")
            if param is not None and param.direction is not Direction.INPUT:
                self.report(base + (field,), f"'{param.name}' is an output; derivative_of needs an input", "wrong-kind")
        if link.result_flag is not None:
            self.resolve(link.result_flag, base + ("result_flag",), kinds=(ParamKind.BOOL,), what="result_flag")
            if link.holds == "result":
                self.report(base + ("holds",), "holds: result and a result_flag contradict each other", "invalid")
        for name in link.saved:
            param = self.resolve(name, base + ("saved", name), kinds=tensor, what="derivative_of.saved")
            if param is not None and param.direction is not Direction.INPUT:
                message = f"'{param.name}' is an output; a saved forward result is an input here"
                self.report(base + ("saved", name), message, "wrong-kind")
        for forward_name, name in link.params.items():
            self.resolve(name, base + ("params", forward_name), kinds=HOST_KINDS)
        for forward_name, mapping in link.values.items():
            param = self.resolve(
                link.params.get(forward_name, forward_name),
                base + ("values", forward_name),
                kinds=(ParamKind.INT64, ParamKind.STRING),
                what="derivative_of.values",
            )
            if param is None or param.values is None:
                continue
            for forward_value, mine in mapping.items():
                if mine not in param.values:
                    allowed = ", ".join(map(str, param.values))
                    path = base + ("values", forward_name, forward_value)
                    self.report(path, f"{mine!r} is not one of '{param.name}''s values ({allowed})", "invalid")
        if not self.spec.formula.main_expr and (link.holds == "result" or link.result_flag is not None):
            self.report(
                ("formula",),
                "formula.expr is missing: a backward taking the forward's result needs its formula written "
                "(the derived one is in terms of the forward's input)",
                "missing",
            )

    def check_errors(self) -> None:
        for i, row in enumerate(self.spec.errors):
            row.check.resolve_names(self, ("errors", i, "check"))
            for name in row.check.names():
                if name in self.params and not self.params[name].written:
                    message = f"'{name}' is left unwritten (written: false): the API checks nothing of it"
                    self.report(("errors", i, "check"), message, "invalid")
            self.check_aten_accepts(i)
        self.check_empty_return()
        self.check_tiling_rows()
        self.check_host_params()

    def check_aten_accepts(self, i: int) -> None:
        """errors[i].aten_accepts: a reason, on a row rejecting parameter values, of an operator with an aten op."""
        reason = self.spec.errors[i].aten_accepts
        if reason is None:
            return
        path: FieldPath = ("errors", i, "aten_accepts")
        if self.spec.errors[i].check.kind != "reject_if":
            self.report(path, "only a reject_if row (a check of parameter values) can be one aten accepts", "invalid")
        elif not self.spec.api.aten:
            self.report(path, "api.aten is not set: there is no torch op", "invalid")
        elif not reason.strip():
            self.report(path, "empty reason", "invalid")

    def check_tiling_rows(self) -> None:
        """Rows the host tiling checks (status ACLNN_ERR_INNER_TILING_ERROR) end the table (the tiling runs at the
        launch, after every op_api check), read only what the tiling sees (shapes and attributes of the launched
        operands: dtypes are the op_api's), and need an AI Core kernel of this operator's own to be launched."""
        spec = self.spec
        first: int | None = None
        for i, row in enumerate(spec.errors):
            path = ("errors", i, "status")
            if not row.in_tiling:
                if first is not None:
                    message = f"row {first} is checked by the tiling, at the launch: the rows after it must be too"
                    self.report(path, message, "invalid")
                continue
            first = i if first is None else first
            if not row.check.tiling:
                kinds = ", ".join(k.kind for k in CHECK_KINDS if k.tiling)
                message = f"a {row.check.kind} row is the op_api's: the tiling checks only {kinds}"
                self.report(("errors", i, "check"), message, "invalid")
            elif spec.kernel.runs is not None or spec.routing.aicpu:
                what = "kernel.runs" if spec.kernel.runs is not None else "routing.aicpu"
                message = f"the tiling checks this row, but {what} launches a kernel without this operator's tiling"
                self.report(path, message, "invalid")

    def check_empty_return(self) -> None:
        """The empty-tensor return sits at one place in the table: rows after it end the table, and it reads what
        tensors point to, so null checks come before it."""
        given = self.spec.empty_return
        where: FieldPath = ("empty_return", "tensors") if isinstance(given, EmptyReturn) else ("empty_return",)
        self.resolve_all(self.spec.empty_return_named, where, kinds=(ParamKind.TENSOR,), what="an empty return")
        if isinstance(given, EmptyReturn):
            self.check_empty_return_socs(given)
        after: int | None = None
        for i, row in enumerate(self.spec.errors):
            path = ("errors", i, "after_empty_return")
            if row.after_empty:
                after = i if after is None else after
                if row.check.kind == "not_null":
                    self.report(path, "a null check must come before the empty-tensor return", "invalid")
            elif after is not None and not self.spec.errors[after].in_tiling:  # else check_tiling_rows says why
                message = f"row {after} is checked after the empty-tensor return: the rows after it must be too"
                self.report(path, message, "invalid")

    def check_empty_return_socs(self, given: EmptyReturn) -> None:
        """`after_checks_on` names the SoCs on which the rows after the empty return are checked before it: ops-nn
        tells them apart with one query (IsRegbase), so the list is the regbase SoCs the spec supports, and there
        must be such rows."""
        path: FieldPath = ("empty_return", "after_checks_on")
        supported = {s.soc for s in self.spec.supported_socs}
        for i, name in enumerate(given.after_checks_on):
            if name not in SOC_BY_NAME:
                self.report(path + (i,), f"unknown SoC '{name}'{suggest(name, SOC_BY_NAME)}", "unknown-value")
            elif name not in supported:
                self.report(path + (i,), f"SoC '{name}' is not a supported row of 'socs'", "invalid")
            elif given.after_checks_on.index(name) != i:
                self.report(path + (i,), f"SoC '{name}' is listed twice", "duplicate-name")
        wanted = [s for s in regbase_socs() if s in supported]
        if set(given.after_checks_on) <= set(SOC_BY_NAME) and set(given.after_checks_on) != set(wanted):
            message = (
                f"ops-nn's op_api places its empty return per SoC with {REGBASE_QUERY}: list the regbase SoCs the "
                f"spec supports ({', '.join(wanted) or 'none'})"
            )
            self.report(path, message, "invalid")
        if not any(row.after_empty_return and not row.in_tiling for row in self.spec.errors):
            message = "no op_api row is marked after_empty_return: the empty return's place is the same on every SoC"
            self.report(path, message, "invalid")

    def check_host_params(self) -> None:
        """A string parameter is a pointer the error table must null-check; a parameter with `values` needs
        the table to reject the others (one_of); Python binding defaults and keyword-only order are valid."""
        checked: dict[str, set[str]] = {
            "not_null": set(),
            "one_of": set(),
            "channel_size": set(),
            "one_element": set(),
            "same_dtype": set(),
        }
        for row in self.spec.errors:
            if row.check.kind in checked:
                checked[row.check.kind].update(row.check.names())
        positional_default: str | None = None
        keyword: str | None = None
        integral = sorted({d.value for p in self.spec.tensor_inputs for d in p.dtypes if d.is_integral})
        for i, param in enumerate(self.spec.params):
            path = ("params", i)
            if param.kind is ParamKind.STRING and not param.nullable and param.name not in checked["not_null"]:
                message = (
                    f"'{param.name}' is a string (a pointer): name it in a not_null error row (status 161001), or "
                    "give it a null_default"
                )
                self.report(path + ("kind",), message, "missing-check")
            if param.kind is ParamKind.DOUBLE and integral:
                # the op_api converts only aclScalars to an integer compute dtype (ScalarInIntegerDtype)
                message = (
                    f"'{param.name}' is a double, which reaches the kernel as a float: the tensors' integer dtypes "
                    f"({', '.join(integral)}) cannot take it"
                )
                self.report(path + ("kind",), message, "invalid")
            if param.values is not None and param.name not in checked["one_of"]:
                message = f"'{param.name}' lists 'values': name it in a one_of error row, which rejects the others"
                self.report(path + ("values",), message, "missing-check")
            if param.shape.channel_of is not None and param.name not in checked["channel_size"]:
                message = (
                    f"'{param.name}' holds channel values: name it in a channel_size error row, which refuses an "
                    "element count other than 1 or the channel count"
                )
                self.report(path + ("shape", "channel_of"), message, "missing-check")
            if param.shape.one_element and param.name not in checked["one_element"]:
                message = (
                    f"'{param.name}' holds one element: name it in a one_element error row, which refuses any other "
                    "element count"
                )
                self.report(path + ("shape", "one_element"), message, "missing-check")
            if param.shape.one_element and param.name not in checked["same_dtype"]:
                message = (
                    f"'{param.name}' is read in the kernel's dtype: name it in a same_dtype error row with the input "
                    "whose dtype it shares"
                )
                self.report(path + ("dtype",), message, "missing-check")
            if param.direction is Direction.OUTPUT:
                continue
            has_default = param.default is not None or param.nullable
            if param.keyword_only:
                keyword = param.name
            elif keyword is not None:
                message = (
                    f"'{param.name}' is positional but follows the keyword-only '{keyword}' (aten puts those last)"
                )
                self.report(path + ("name",), message, "invalid")
            elif has_default:
                positional_default = param.name
            elif positional_default is not None:
                message = (
                    f"'{param.name}' has no default but follows '{positional_default}', which has one: a Python"
                    " binding cannot take them in this order"
                )
                self.report(path + ("name",), message, "invalid")

    def check_example(self) -> None:
        example = self.spec.example
        for name, tensor in example.tensors.items():
            path = ("example", "tensors", name)
            param = self.resolve(name, path, kinds=(ParamKind.TENSOR,), what="an example tensor")
            if param and param.written and tensor.dtype not in param.dtypes:  # an unwritten one takes any
                self.report(path + ("dtype",), f"{tensor.dtype.value} is not a dtype of '{name}'", "invalid")
            if param and param.rank and not param.rank[0] <= len(tensor.shape) <= param.rank[1]:
                lo, hi = param.rank
                self.report(
                    path + ("shape",),
                    f"shape {tensor.shape} has rank {len(tensor.shape)}, but '{name}' accepts rank {lo} to {hi}",
                    "invalid",
                )
        self.check_example_shapes()
        for name, value in example.scalars.items():
            param = self.resolve(name, ("example", "scalars", name), kinds=HOST_KINDS, what="an example scalar")
            if param is not None:
                self.check_host_value(param, value, ("example", "scalars", name))
        for name in example.scalar_dtypes:
            self.resolve(name, ("example", "scalar_dtypes", name), kinds=(ParamKind.SCALAR,), what="a scalar dtype")
        for param in self.spec.params:
            given = example.tensors if param.is_tensor else example.scalars
            if param.name not in given:
                self.report(("example",), f"the example gives no value for '{param.name}'", "missing-key")

    def check_host_value(self, param: Param, value: object, path: FieldPath) -> None:
        """A value given for a scalar, flag, int64 or string parameter fits it."""
        problem = None
        if value is None:
            if not param.nullable:
                problem = f"'{param.name}' is not optional (no 'null_default'): it needs a value"
        elif param.kind is ParamKind.BOOL and type(value) is not bool:
            problem = f"'{param.name}' is a bool parameter: use true or false"
        elif param.kind is ParamKind.INT64 and type(value) is not int:
            problem = f"'{param.name}' is an int64 parameter: use an integer"
        elif param.kind is ParamKind.DOUBLE and (type(value) is not float or not math.isfinite(value)):
            problem = f"'{param.name}' is a double parameter: use a finite number with a decimal point, e.g. 1.0"
        elif param.kind is ParamKind.STRING and type(value) is not str:
            problem = f"'{param.name}' is a string parameter: use one of {param.values}"
        elif param.kind is ParamKind.SCALAR and type(value) not in (int, float):
            problem = f"'{param.name}' is a scalar parameter: use a number"
        elif param.values is not None and value not in param.values:
            problem = f"{value!r} is not one of the values of '{param.name}' {param.values}"
        if problem is not None:
            self.report(path, problem, "invalid")

    def check_example_shapes(self) -> None:
        """The operator is elementwise: the example's inputs must broadcast together, and each output must
        have the broadcast shape of its shape sources (else its expected values could not be computed); a
        half-split operator's tensors follow its split."""
        tensors = self.spec.example.tensors
        given = {name: tuple(tensor.shape) for name, tensor in tensors.items()}
        if self.spec.split is not None:
            self.check_example_split(given)
            return
        common: tuple[int, ...] = ()
        for param in self.spec.tensor_inputs:
            if param.name not in tensors:
                continue
            of = param.shape.channel_of
            if of is not None:
                if of in given and not channel_accepts(math.prod(given[param.name]), given[of]):
                    message = (
                        f"{math.prod(given[param.name])} elements: '{param.name}' holds 1 value or one per channel "
                        f"of '{of}' ({channel_count(given[of])})"
                    )
                    self.report(("example", "tensors", param.name, "shape"), message, "invalid")
                    return
                if of not in given:
                    continue
            shape = self.spec.aligned_shape(param.name, given)
            joined = _broadcast(common, shape)
            if joined is None:
                self.report(
                    ("example", "tensors", param.name, "shape"),
                    f"shape {list(shape)} does not broadcast with the other example inputs ({list(common)})",
                    "invalid",
                )
                return
            common = joined
        for out in self.spec.outputs:
            sources = self.spec.shape_sources(out)
            if out.name not in tensors or not all(s in tensors for s in sources):
                continue
            want = _broadcast(*(tuple(tensors[s].shape) for s in sources))
            if want is not None and out.shape.rows_of and self.spec.reduce_dim is not None:
                want = self.spec.row_shape(want, self.spec.example.scalars)
            out_shape = tensors[out.name].shape
            if want is not None and tuple(out_shape) != want:
                message = f"shape {out_shape} must be {list(want)}, the broadcast shape of {', '.join(sources)}"
                self.report(("example", "tensors", out.name, "shape"), message, "invalid")

    def check_example_split(self, given: dict[str, tuple[int, ...]]) -> None:
        split = self.spec.split
        assert split is not None
        if split.tensor not in given:
            return
        full = given[split.tensor]
        value = split.dim if isinstance(split.dim, int) else self.spec.example.scalars.get(split.dim)
        if type(value) is not int or split_axis(len(full), value) is None or full[split_axis(len(full), value)] % 2:
            message = f"shape {list(full)} cannot be split in two halves along dim {value}"
            self.report(("example", "tensors", split.tensor, "shape"), message, "invalid")
            return
        half = half_shape(full, value)
        for name, shape in given.items():
            if name in self.params and self.params[name].shape.one_element:
                continue  # one value in any shape, following no split
            wanted = full if self.spec.full_size(name) else half
            if name != split.tensor and shape != wanted:
                message = f"shape {list(shape)} must be {list(wanted)}, {'self' if wanted == full else 'a half'} of "
                message += f"'{split.tensor}' split along dim {value}"
                self.report(("example", "tensors", name, "shape"), message, "invalid")

    def check_golden(self) -> None:
        golden = self.spec.golden
        for name, values in golden.scalar_values.items():
            held = self.params.get(name)
            if held is not None and held.shape.one_element:  # the values a one-element tensor holds: numbers
                for j, value in enumerate(values):
                    if type(value) not in (int, float):
                        message = f"'{name}' holds one number: use a number (.nan, .inf and -.inf too)"
                        self.report(("golden", "scalar_values", name, j), message, "invalid")
                continue
            param = self.resolve(name, ("golden", "scalar_values", name), kinds=HOST_KINDS, what="golden scalar values")
            for j, value in enumerate(values if param is not None else []):
                assert param is not None
                self.check_host_value(param, value, ("golden", "scalar_values", name, j))
        for j, value in enumerate(golden.special_values):
            if isinstance(value, str) and value not in SPECIAL_VALUES:
                self.report(
                    ("golden", "special_values", j),
                    f"unknown special value '{value}'{suggest(value, SPECIAL_VALUES)}",
                    "unknown-value",
                )
        dtypes = {d for p in self.spec.tensor_inputs for d in p.dtypes}
        for dtype in dtypes:
            if dtype not in golden.tolerance:
                self.report(("golden", "tolerance"), f"no tolerance for {dtype.value}", "missing-key")
        for dtype in golden.tolerance:
            if dtype not in dtypes:
                self.report(("golden", "tolerance", dtype.value), f"no input accepts {dtype.value}", "invalid")
        ranks = [(p.name, p.rank) for p in self.spec.params if p.rank is not None]
        for j, shape in enumerate(golden.shapes):
            if self.spec.split is not None:
                continue  # a half's shape: the split tensor doubles it along dim (same rank)
            # Every tensor of a golden case has this shape (inputs) or its broadcast (outputs).
            outside = [f"'{name}' ({lo} to {hi})" for name, (lo, hi) in ranks if not lo <= len(shape) <= hi]
            if outside:
                self.report(
                    ("golden", "shapes", j),
                    f"shape {shape} has rank {len(shape)}, outside the rank range of {', '.join(outside)}",
                    "invalid",
                )
        lo, hi = golden.value_range
        if not lo < hi:
            self.report(("golden", "value_range"), f"empty range [{lo}, {hi}]", "invalid")
        self.check_torch_differences()
        self.check_derived_inputs()

    def check_torch_differences(self) -> None:
        """Each declared difference from torch is a boolean condition over the operator's inputs."""
        differences = self.spec.golden.differs_from_torch
        if differences and not self.spec.api.compared_aten:
            self.report(
                ("golden", "differs_from_torch"),
                "neither api.aten nor api.aten_form is set: there is no torch op to differ from",
                "invalid",
            )
        accepted = set(self.spec.tensor_inputs[0].dtypes) if self.spec.tensor_inputs else set()
        for j, dtype in enumerate(self.spec.golden.torch_refuses):
            if not self.spec.api.aten:
                self.report(("golden", "torch_refuses"), "api.aten is not set: there is no torch op", "invalid")
                break
            if not dtype.is_integral or dtype not in accepted:
                self.report(
                    ("golden", "torch_refuses", j),
                    f"{dtype.value} is not an integer dtype the first input takes",
                    "invalid",
                )
        self.check_aten_rounds_each_step(accepted)
        for j, difference in enumerate(differences):
            path: FieldPath = ("golden", "differs_from_torch", j, "when")
            expr = self.parse(difference.when, path, formula_symbols(self.spec), "condition")
            if expr is not None and not formula.type_of(expr).is_bool:
                self.report(path, "condition: not a boolean (write a comparison, e.g. self != self)", "formula")
            if not difference.note.strip():
                self.report(("golden", "differs_from_torch", j, "note"), "empty note", "invalid")

    def check_aten_rounds_each_step(self, accepted: set[DType]) -> None:
        """golden.aten_rounds_each_step names 16-bit dtypes the first input takes, of an operator with an aten op."""
        rounds = self.spec.golden.aten_rounds_each_step
        if rounds is None:
            return
        if not self.spec.api.aten:
            self.report(("golden", "aten_rounds_each_step"), "api.aten is not set: there is no torch op", "invalid")
        seen: set[DType] = set()
        for j, dtype in enumerate(rounds.dtypes):
            path: FieldPath = ("golden", "aten_rounds_each_step", "dtypes", j)
            if dtype in seen:
                self.report(path, f"{dtype.value} is listed twice", "invalid")
            elif dtype not in (DType.FLOAT16, DType.BFLOAT16) or dtype not in accepted:
                message = f"{dtype.value} is not a 16-bit floating dtype (FLOAT16, BFLOAT16) the first input takes"
                self.report(path, message, "invalid")
            seen.add(dtype)
        if not rounds.note.strip():
            self.report(("golden", "aten_rounds_each_step", "note"), "empty note", "invalid")

    def check_derived_inputs(self) -> None:
        """Each derived golden input is a tensor input, computed by a numeric expression of other tensor inputs
        (golden inputs are made before the scalar values are chosen; a half split's may read its halves and scalars,
        derived per case into a half-size input), and none is derived from itself."""
        # outputs are known to the expression, so that using one is reported as such (not as an unknown name)
        symbols = formula_symbols(self.spec) | {p.name: formula.Symbol.tensor() for p in self.spec.outputs}
        aliases = self.spec.formula.vars
        depends: dict[str, set[str]] = {}
        for name, text in self.spec.golden.derived_inputs.items():
            path: FieldPath = ("golden", "derived_inputs", name)
            param = self.params.get(name)
            if param is None:
                self.report_key(path, f"undefined parameter '{name}'{suggest(name, self.params)}", "undefined-name")
            elif param.kind is not ParamKind.TENSOR:
                message = f"'{name}' is a {param.kind.value} parameter; only a tensor input can be derived"
                self.report_key(path, message, "wrong-kind")
            elif param.direction is not Direction.INPUT:
                self.report_key(path, f"'{name}' is an output; only a tensor input can be derived", "wrong-kind")
            expr = self.parse(text, path, symbols, f"derived input '{name}'")
            if expr is None:
                continue
            value = formula.type_of(expr).value
            if value is not formula.ValueType.NUM:
                noun = "a boolean" if value is formula.ValueType.BOOL else "a string"
                self.report(path, f"derived input '{name}': {noun}, not a number", "formula")
                continue
            used = {aliases.get(n, n) for n in formula.free_names(expr)}
            # a half split's derived input may read the halves and the scalars: it is derived per case, once the
            # case's values are chosen and the split tensor is cut (GeGluBackward's gelu = gelu(B))
            split = self.spec.split
            halves = set(split.halves) if split is not None else set()
            problems = [
                f"the output '{n}'" if self.params[n].is_tensor else f"the {self.params[n].kind.value} parameter '{n}'"
                for n in sorted(used - halves)
                if (self.params[n].is_tensor and self.params[n].direction is not Direction.INPUT)
                or (not self.params[n].is_tensor and split is None)
            ]
            if problems:
                message = (
                    f"derived input '{name}': uses {', '.join(problems)}; a derived input is computed from the other"
                    " tensor inputs only"
                )
                if any(not self.params[n].is_tensor for n in used - halves):
                    message += " (golden inputs are made before the scalar values are chosen)"
                self.report(path, message, "formula")
            elif used & halves and self.spec.full_size(name):
                message = f"derived input '{name}': reads the halves, so it is half-size; '{name}' is full-size"
                self.report(path, message, "formula")
            elif name in used:
                self.report(path, f"'{name}' is derived from itself", "cycle")
            elif param is not None and param.is_tensor and param.direction is Direction.INPUT:
                depends[name] = {n for n in used if n in self.params and self.params[n].is_tensor}
        for name in depends:
            cycle = _cycle_through(name, depends)
            if cycle:
                chain = " -> ".join([name, *cycle])
                message = f"'{name}' is derived from itself through other derived inputs ({chain})"
                self.report(("golden", "derived_inputs", name), message, "cycle")

    def check_kernel(self) -> None:
        for j, api in enumerate(self.spec.kernel.vector_apis):
            if api not in formula.KERNEL_APIS:  # those the kernel lowering emits
                self.report(
                    ("kernel", "vector_apis", j),
                    f"unknown vector API '{api}'{suggest(api, formula.KERNEL_APIS)}",
                    "unknown-value",
                )

    def check_opdef(self) -> None:
        """opdef: each entry names a parameter of its role once; the kernel's tensors and host parameters are all
        carried; an attribute's kind, default and texts fit its parameter."""
        section = self.spec.opdef
        try:
            used = {n for expr in kernel_formulas(self.spec).values() for n in formula.free_names(expr)}
        except (formula.FormulaError, KeyError, ValueError):
            used = set()  # check_formula reports the formula
        inputs = self.spec.tensor_inputs
        for key, entries, role in (
            ("inputs", section.inputs, inputs),
            ("outputs", section.outputs, self.spec.outputs),
        ):
            if entries is None:
                continue
            names = {p.name for p in role}
            seen: set[str] = set()
            for i, entry in enumerate(entries):
                path: FieldPath = ("opdef", key, i)
                if entry.name in {e.name for e in entries[:i]}:
                    self.report(path + ("name",), f"'{entry.name}' is named twice in opdef.{key}", "duplicate")
                if entry.param is None:
                    if key == "outputs":
                        self.report(path + ("param",), "an output carries a computed output tensor", "invalid")
                    continue
                carried = self.params.get(entry.param)
                if key == "inputs" and carried is not None and carried.kind is ParamKind.SCALAR:
                    # a scalar carried as a one-element tensor the kernel reads its value from
                    self.check_scalar_input(entry, path, seen)
                    seen.add(entry.param)
                    continue
                if entry.param not in names:
                    what = "a tensor input or a scalar" if key == "inputs" else "a computed output"
                    hint = suggest(entry.param, names | self.scalar_names() if key == "inputs" else names)
                    if carried is not None and key == "inputs":
                        message = f"'{entry.param}' is a {carried.kind.value} parameter: an input carries {what}"
                        self.report(path + ("param",), message, "wrong-kind")
                    else:
                        self.report(path + ("param",), f"'{entry.param}' is not {what}{hint}", "undefined-name")
                elif not entry.read:
                    # the L0 op passes again a tensor it takes for an input the kernel reads
                    if key == "outputs":
                        self.report(path + ("read",), "an output is always written", "invalid")
                    elif entry.param not in {e.param for e in entries if e.read}:
                        message = f"an unread input repeats a tensor a read input carries; none carries '{entry.param}'"
                        self.report(path + ("param",), message, "invalid")
                elif entry.param in seen:
                    self.report(path + ("param",), f"'{entry.param}' is carried twice", "duplicate")
                elif self.spec.param(entry.param).opdef_name is not None:
                    message = f"'{entry.param}' has an opdef_name; name it here only"
                    self.report(path + ("name",), message, "duplicate")
                if entry.read:
                    seen.add(entry.param)
            if key == "outputs" and [e.param for e in entries] != [p.name for p in self.spec.outputs]:
                order = ", ".join(p.name for p in self.spec.outputs)
                self.report_key(("opdef", key), f"list every computed output, in order: {order}", "invalid")
            for p in role:
                if key == "inputs" and p.name not in seen and p.name in used:
                    message = f"the kernel reads '{p.name}': the OpDef must carry it"
                    self.report_key(("opdef", key), message, "invalid")
        if section.attrs is not None:
            self.check_opdef_attrs(used)

    def scalar_names(self) -> set[str]:
        return {p.name for p in self.spec.params if p.kind is ParamKind.SCALAR}

    def check_scalar_input(self, entry: OpDefTensor, path: FieldPath, seen: set[str]) -> None:
        """An OpDef input carrying an API scalar: the L0 op converts it to a one-element tensor of the kernel's
        dtype (ConvertToTensor) and the kernel reads that value once."""
        assert entry.param is not None
        param = self.spec.param(entry.param)
        if not entry.read:
            self.report(path + ("read",), "the kernel reads a scalar carried as a tensor", "invalid")
        elif entry.param in seen:
            self.report(path + ("param",), f"'{entry.param}' is carried twice", "duplicate")
        elif param.null_default is not None:
            # TODO(opdef): an optional scalar would need the L0 op to make its null_default a tensor
            message = f"'{entry.param}' may be a null pointer (null_default): carry it as an attribute"
            self.report(path + ("param",), message, "invalid")
        elif param.opdef_name is not None:
            self.report(path + ("name",), f"'{entry.param}' has an opdef_name; name it here only", "duplicate")

    def check_opdef_attrs(self, used: set[str]) -> None:
        assert self.spec.opdef.attrs is not None
        # scalars opdef.inputs carries as one-element tensors
        tensor_carried = {e.param for e in self.spec.opdef.inputs or [] if e.param in self.scalar_names()}
        carried = set(tensor_carried)
        for i, attr in enumerate(self.spec.opdef.attrs):
            path: FieldPath = ("opdef", "attrs", i)
            if attr.name in {a.name for a in self.spec.opdef.attrs[:i]}:
                self.report(path + ("name",), f"'{attr.name}' is named twice in opdef.attrs", "duplicate")
            kind: str | None = attr.kind
            if attr.param is None:
                if kind is None or attr.default is None:
                    message = "an attribute no parameter carries needs its 'kind' and the 'default' the L0 op passes"
                    self.report(path, message, "invalid")
                    continue
                if attr_kinds.kind(kind).is_list:
                    # TODO(opdef): the L0 op would allocate the fixed list (AllocIntArray) before its launch
                    self.report(path + ("kind",), f"a {kind} attribute carries an int64 parameter ('param')", "invalid")
                    continue
            else:
                param = self.resolve(attr.param, path + ("param",), kinds=HOST_KINDS, what="an attribute")
                if param is None:
                    continue
                if param.name in tensor_carried:
                    message = f"opdef.inputs carries '{param.name}' as a tensor; an attribute cannot carry it too"
                    self.report(path + ("param",), message, "duplicate")
                    continue
                carried.add(param.name)
                natural = attr_kinds.NATURAL[param.kind].name
                kind = kind or natural
                as_text = kind == "String" and param.kind is ParamKind.INT64
                if param.kind not in attr_kinds.kind(kind).carries:
                    ways = [k for k, known in attr_kinds.KINDS.items() if param.kind in known.carries and k != natural]
                    alternatives = "".join(f" or {k}" for k in ways)
                    carried_as = f"a {natural}{alternatives} attribute"
                    message = f"a {param.kind.value} parameter is carried as {carried_as}, not {kind}"
                    self.report(path + ("kind",), message, "wrong-kind")
                    continue
                reduced = self.spec.reduce_dim.dim if self.spec.reduce_dim is not None else None
                if attr_kinds.kind(kind).is_list and param.name != reduced:
                    # TODO(opdef): the tilings read a list attribute only as reduce_dim's dimension (dim_reader)
                    message = f"a {kind} attribute carries reduce_dim's dim; carry '{param.name}' as {natural}"
                    self.report(path + ("kind",), message, "invalid")
                    continue
                if as_text and sorted(attr.values) != sorted(param.values or []):
                    message = f"give the text of each of '{param.name}''s values {param.values}"
                    self.report(path + ("values",), message, "invalid")
                elif attr.values and not as_text:
                    self.report(
                        path + ("values",), "'values' applies to an int64 parameter carried as String", "invalid"
                    )
            if kind is not None and attr.default is not None and not attr_kinds.kind(kind).accepts(attr.default):
                message = f"{attr.default!r} is not a default for a {kind} attribute"
                self.report(path + ("default",), message, "wrong-kind")
        for param in self.spec.params:
            if not param.is_tensor and param.name in used and param.name not in carried:
                message = f"the kernel reads '{param.name}': an attribute must carry it"
                self.report_key(("opdef", "attrs"), message, "invalid")


def _cycle_through(start: str, depends: dict[str, set[str]]) -> list[str]:
    """The shortest chain of derived inputs leading from `start` back to it (ending in `start`), or []."""
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for name in frontier:
            for used in sorted(depends.get(name, ())):
                if used == start:
                    chain = [used]
                    while name != start:
                        chain.insert(0, name)
                        name = parents[name]
                    return chain
                if used not in parents and used in depends:
                    parents[used] = name
                    following.append(used)
        frontier = following
    return []


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The broadcast shape of `shapes` (numpy's rules), or None when they do not broadcast."""
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def check_spec(spec: OpSpec, source: SourceDocument) -> list[Diagnostic]:
    return _Checker(spec, source).run()


# `TODO` as a word (TODO, TODO:, TODO(kind)) in a value; YAML comments are not values and may keep theirs.
_TODO = re.compile(r"\bTODO\b")


def todo_problems(source: SourceDocument) -> list[Diagnostic]:
    """Every text value that still says TODO (what `opgen new` leaves where only the writer knows the fact), at its
    line: left there, it would reach the generated code and docs."""
    problems: list[Diagnostic] = []

    def walk(value: Any, path: FieldPath) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, index))
        elif isinstance(value, str) and _TODO.search(value):
            message = f"still says TODO ({value[:60]!r}): write the real value here"
            problems.append(Diagnostic(source.location_of(path), path, message, "todo"))

    walk(source.data, ())
    return problems
