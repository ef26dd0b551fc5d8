"""Names a spec gives that become identifiers in generated code: each checked against the reserved words
and names of every language it lands in, and, across specs, against each other.

Where a name lands:
- parameter `name`: C++ parameter and local-variable stems in op_api, tests and the calling example;
- parameter `opdef_name`: OpDef input/attribute names and kernel arguments (C++);
- parameter Python name (`py_name`): Python parameters of `opgen_ops` and of the golden scripts;
- `formula.vars`: formula names (docs only), which must not shadow formula constants or functions;
- `operator.dir`: the kernel's `extern "C"` entry function, so it must not be a C library symbol;
- `operator.type`: C++ class, namespace-level function and macro argument names.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.lang import cpp, python
from opgen.spec.checks import BROADCAST_LOCAL, CHECK_FUNCTION_NAMES
from opgen.spec.diagnostics import FieldPath
from opgen.spec.model import Direction, OpSpec, snake_case
from opgen.spec.yaml_source import SourceDocument

# Locals and parameters the generated C++ declares next to the API's parameters (op_api, tests, example).
GENERATED_CPP_NAMES = frozenset(
    [
        "ret",
        "l0Result",
        "castOut",
        "viewCopyResult",
        "computeDtype",
        "outShape",
        "outShapeArray",
        "merged",
        "workspace",
        "workspaceSize",
        "workspaceAddr",
        "executor",
        "stream",
        "uniqueExecutor",
        "size",
        "deviceId",
        "context",
        "expected",
        "i",
    ]
)
# What the generated kernel (outQueue_, outGm_, outLocal) and L0 op (`auto out`) call an operator's one computed
# output, whatever its parameter's name (opgen/plan/kernel.py, templates/op/op_api/l0.cpp.j2): no other parameter
# may take it.
OUTPUT_LOCAL = "out"
# Python names the generated bindings and golden tests use next to the parameters' names (the out= keyword above
# all); other locals start with '_', which no parameter's Python name may.
GENERATED_PY_NAMES = frozenset({"out", "args", "scalars", "shape", "dtype", "call_args", "rejection"})


@dataclass(frozen=True)
class ClaimedName:
    """A name an operator generates that no other operator may generate."""

    kind: str
    value: str
    path: tuple[str | int, ...]
    line: int
    column: int


@dataclass(frozen=True)
class NameProblem:
    path: FieldPath
    message: str


def _cpp(name: str, what: str) -> str | None:
    reason = cpp.reserved_reason(name)
    if reason is None and (
        name in GENERATED_CPP_NAMES or name in CHECK_FUNCTION_NAMES or BROADCAST_LOCAL.fullmatch(name)
    ):
        reason = "is a name the generated C++ uses for its own variables"
    return f"{what} '{name}' {reason}" if reason else None


def _python(name: str, what: str) -> str | None:
    reason = python.reserved_reason(name)
    if reason is None and name in GENERATED_PY_NAMES:
        reason = "is a name the generated Python uses for its own variables"
    return f"{what} '{name}' {reason}" if reason else None


def identifier_problems(spec: OpSpec) -> list[NameProblem]:
    """Every name of one spec that cannot be used in the code it generates, with the reason."""
    problems: list[NameProblem] = []

    def add(path: FieldPath, message: str | None) -> None:
        if message:
            problems.append(NameProblem(path, message))

    for i, param in enumerate(spec.params):
        base = ("params", i)
        add(base + ("name",), _cpp(param.name, "parameter name"))
        if param.name == OUTPUT_LOCAL and param.direction is not Direction.OUTPUT:
            add(
                base + ("name",),
                f"parameter name '{OUTPUT_LOCAL}' is what the generated kernel and L0 op call the operator's output: "
                f"rename this {'input' if param.is_tensor else 'parameter'} (e.g. 'output', aten's name for a "
                "backward's forward result; `py_name` keeps the binding's keyword)",
            )
        if param.opdef != param.name:
            opdef_path = base + ("opdef_name",) if param.opdef_name else base + ("name",)
            add(opdef_path, _cpp(param.opdef, "OpDef name"))
        py_path = base + ("py_name",) if param.py_name else base + ("name",)
        if param.direction is Direction.OUTPUT and param.python == "out":
            continue  # the output is the binding's out= keyword itself
        add(py_path, _python(param.python, "Python name"))
    inplace = spec.api.inplace
    if inplace is not None:
        add(("api", "inplace", "param"), _cpp(inplace.param, "in-place parameter name"))
    entry_path: FieldPath = ("operator", "stem") if spec.operator.stem else ("operator", "dir")
    add(entry_path, _kernel_entry(spec.operator.file_stem, spec.operator.stem is not None))
    add(("operator", "type"), _cpp(spec.operator.type, "OpType"))
    return problems


def _kernel_entry(name: str, is_stem: bool) -> str | None:
    """The kernel's entry function is named after the file stem (operator.stem, by default operator.dir)."""
    reason = cpp.reserved_reason(name)
    if reason is None:
        return None
    field = "operator.stem" if is_stem else "operator.dir"
    better = f"{name}_op" if cpp.reserved_reason(f"{name}_op") is None else f"{name}_kernel"
    return (
        f"{field} '{name}' names the kernel's entry function, and '{name}' {reason}: set `stem: {better}` under "
        f"operator (it names the kernel entry and the op_host/op_kernel files; the directory keeps its name)"
    )


def _unique_keys(spec: OpSpec) -> list[tuple[str, str, FieldPath]]:
    """(kind, value, path) of every name that must be unique across all specs of one build."""
    api = spec.api
    keys: list[tuple[str, str, FieldPath]] = [
        ("operator.dir", spec.operator.dir, ("operator", "dir")),
        ("operator.type", spec.operator.type, ("operator", "type")),
        ("aclnn API", api.name, ("api", "name")),
        # two API names can map to one header: aclnnLeakyRElu and aclnnLeakyRelu -> aclnn_leaky_relu.h
        ("header", api.header_name, ("api", "header") if api.header else ("api", "name")),
        ("Python binding", api.binding_name, ("api", "binding" if api.binding else "aten" if api.aten else "name")),
    ]
    if api.aten:
        keys.append(("aten op", api.aten, ("api", "aten")))
    if api.aten_form is not None:
        keys.append(("Python binding", api.aten_form.name, ("api", "aten_form", "name")))
        keys.append(("aten op", api.aten_form.name, ("api", "aten_form", "name")))
    if api.inplace is not None:
        inplace_snake = snake_case(api.inplace.name.removeprefix("aclnn"))
        keys += [
            ("aclnn API", api.inplace.name, ("api", "inplace", "name")),
            ("header", f"aclnn_{inplace_snake}.h", ("api", "inplace", "name")),
            (
                "Python binding",
                api.inplace.aten or inplace_snake,
                ("api", "inplace", "aten" if api.inplace.aten else "name"),
            ),
        ]
        if api.inplace.aten:
            keys.append(("aten op", api.inplace.aten, ("api", "inplace", "aten")))
    return keys


# Facts a spec records beside its names for cross-spec rules, which other specs may share (not claims).
UNLINKED_BACKWARD = "unlinked backward"
SHARED_KINDS = frozenset({UNLINKED_BACKWARD})


def claimed_names(spec: OpSpec, source: SourceDocument) -> list[ClaimedName]:
    """The names this spec's artifacts take, each with the YAML position of the field that gives it, and the
    facts of SHARED_KINDS (an aten `..._backward` op without derivative_of: see backward.unlinked_backwards)."""
    keys = _unique_keys(spec)
    if spec.api.aten and spec.api.aten.endswith("_backward") and spec.derivative_of is None:
        keys.append((UNLINKED_BACKWARD, spec.api.aten, ("api", "aten")))
    claimed = []
    for kind, value, path in keys:
        location = source.location_of(path)
        claimed.append(ClaimedName(kind, value, path, location.line, location.column))
    return claimed
