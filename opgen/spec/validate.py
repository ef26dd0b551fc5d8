"""Cross-reference checks on a shape-valid `OpSpec`: every name a spec uses must exist and fit its role.

Each problem becomes a Diagnostic at the exact YAML location of the offending value; all problems are
collected, so one `opgen check` run reports everything.
"""

from __future__ import annotations

from collections.abc import Iterable

from opgen import formula
from opgen.spec.checks import IMPLICIT_POINTERS
from opgen.spec.diagnostics import Diagnostic, FieldPath, suggest
from opgen.spec.formula_binding import formula_symbols
from opgen.spec.model import Direction, OpSpec, Param, ParamKind
from opgen.spec.socs import SOC_BY_NAME
from opgen.spec.yaml_source import SourceDocument

KNOWN_FORMATS = ("ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z", "HWCN", "NDHWC", "FRACTAL_NZ", "NCDHW")
# Vector APIs a spec may require the kernel to use (those the lowering knows how to emit).
KNOWN_VECTOR_APIS = ("LeakyRelu", "Relu", "Exp", "Ln", "Abs", "Sqrt", "Muls", "Adds", "Maxs", "Mins")
SPECIAL_VALUES = ("inf", "-inf", "nan")


class _Checker:
    def __init__(self, spec: OpSpec, source: SourceDocument):
        self.spec = spec
        self.source = source
        self.problems: list[Diagnostic] = []
        self.params: dict[str, Param] = {}

    def report(self, path: FieldPath, message: str, kind: str) -> None:
        self.problems.append(Diagnostic(self.source.location_of(path), path, message, kind))

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
        self.check_formula()
        self.check_errors()
        self.check_example()
        self.check_golden()
        self.check_kernel()
        return self.problems

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
            self.resolve_all(
                dtype.promote_with, base + ("dtype", "promote_with"), kinds=tensors, what="a dtype relation"
            )
            self.resolve_all(
                dtype.castable_from, base + ("dtype", "castable_from"), kinds=tensors, what="a dtype relation"
            )
            if dtype.same_as:
                self.resolve(dtype.same_as, base + ("dtype", "same_as"), kinds=tensors, what="a dtype relation")
            if dtype.castable_to is not None and param.kind is not ParamKind.SCALAR:
                self.report(
                    base + ("dtype", "castable_to"), "'castable_to' applies to scalar parameters only", "wrong-kind"
                )
            if param.kind is not ParamKind.TENSOR and (
                shape.broadcast_with or shape.same_as or shape.broadcast_result_of
            ):
                self.report(base + ("shape",), "shape relations apply to tensor parameters only", "wrong-kind")
        if not self.spec.outputs:
            self.report(
                ("params",), "the operator needs at least one output tensor (direction: output)", "missing-output"
            )

    def check_socs(self) -> None:
        seen: set[str] = set()
        all_dtypes = {d for p in self.spec.params for d in p.dtypes}
        for i, entry in enumerate(self.spec.socs):
            if entry.soc not in SOC_BY_NAME:
                self.report(
                    ("socs", i, "soc"), f"unknown SoC '{entry.soc}'{suggest(entry.soc, SOC_BY_NAME)}", "unknown-value"
                )
            if entry.soc in seen:
                self.report(("socs", i, "soc"), f"SoC '{entry.soc}' is listed twice", "duplicate-name")
            seen.add(entry.soc)
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

    def check_api(self) -> None:
        inplace = self.spec.api.inplace
        if inplace is None:
            return
        if inplace.param in self.params:
            self.report(
                ("api", "inplace", "param"),
                f"'{inplace.param}' clashes with a parameter of the main API",
                "duplicate-name",
            )
        replaced = self.resolve_all(
            inplace.replaces, ("api", "inplace", "replaces"), kinds=(ParamKind.TENSOR,), what="an in-place variant"
        )
        if replaced and not any(p.direction is Direction.OUTPUT for p in replaced):
            self.report(("api", "inplace", "replaces"), "an in-place variant must replace the output", "invalid")

    def parse(self, text: str, path: FieldPath, symbols: dict[str, formula.Symbol], what: str) -> None:
        try:
            formula.parse(text, symbols)
        except formula.FormulaError as exc:
            self.report(path, f"{what}: {exc.message} (at column {exc.column + 1} of the expression)", "formula")

    def check_formula(self) -> None:
        f = self.spec.formula
        self.resolve(f.output, ("formula", "output"), kinds=(ParamKind.TENSOR,), what="the formula output")
        if f.output in self.params and self.params[f.output].direction is not Direction.OUTPUT:
            self.report(
                ("formula", "output"), f"'{f.output}' is an input; the formula must compute an output", "wrong-kind"
            )
        for var, target in f.vars.items():
            if var in self.params:
                self.report(("formula", "vars", var), f"variable '{var}' shadows a parameter", "duplicate-name")
            self.resolve(target, ("formula", "vars", var))
        self.parse(f.expr, ("formula", "expr"), formula_symbols(self.spec), "formula")

    def check_errors(self) -> None:
        for i, row in enumerate(self.spec.errors):
            row.check.resolve_names(self, ("errors", i, "check"))

    def check_example(self) -> None:
        example = self.spec.example
        for name, tensor in example.tensors.items():
            path = ("example", "tensors", name)
            param = self.resolve(name, path, kinds=(ParamKind.TENSOR,), what="an example tensor")
            if param and tensor.dtype not in param.dtypes:
                self.report(path + ("dtype",), f"{tensor.dtype.value} is not a dtype of '{name}'", "invalid")
        for name in example.scalars:
            self.resolve(
                name, ("example", "scalars", name), kinds=(ParamKind.SCALAR, ParamKind.BOOL), what="an example scalar"
            )
        for name in example.scalar_dtypes:
            self.resolve(name, ("example", "scalar_dtypes", name), kinds=(ParamKind.SCALAR,), what="a scalar dtype")
        for param in self.spec.params:
            given = example.tensors if param.is_tensor else example.scalars
            if param.name not in given:
                self.report(("example",), f"the example gives no value for '{param.name}'", "missing-key")

    def check_golden(self) -> None:
        golden = self.spec.golden
        for name in golden.scalar_values:
            self.resolve(
                name,
                ("golden", "scalar_values", name),
                kinds=(ParamKind.SCALAR, ParamKind.BOOL),
                what="golden scalar values",
            )
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
        lo, hi = golden.value_range
        if not lo < hi:
            self.report(("golden", "value_range"), f"empty range [{lo}, {hi}]", "invalid")

    def check_kernel(self) -> None:
        for j, api in enumerate(self.spec.kernel.vector_apis):
            if api not in KNOWN_VECTOR_APIS:
                self.report(
                    ("kernel", "vector_apis", j),
                    f"unknown vector API '{api}'{suggest(api, KNOWN_VECTOR_APIS)}",
                    "unknown-value",
                )


def check_spec(spec: OpSpec, source: SourceDocument) -> list[Diagnostic]:
    return _Checker(spec, source).run()
