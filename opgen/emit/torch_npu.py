"""torch_npu integration (generated/torch_npu): the op-plugin registrations and the `op_api` adapters that
bind each spec's aten op(s) to its aclnn API(s), in the conventions of Ascend/op-plugin.

`op_plugin_functions.yaml` lists one entry per aten function (functional, out variant, in-place variant)
with its schema string; `opapi/<AtenOp>KernelNpuOpApi.cpp` implements them in `namespace op_api`: fall back
to the aclop kernel when the CANN in use lacks the aclnn API (DO_COMPATIBILITY), allocate or resize the
output by the spec's shape and dtype rules, then run the API through EXEC_NPU_CMD with its arguments in
the C signature's order.

The functions registered, their schemas and the API each runs are the plan's (operator.aten,
opgen/plan/aten_registration.py); this module renders them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.emit.templating import render
from opgen.lang import Code, code
from opgen.plan.aten_registration import AtenArg, AtenFunction, Variant
from opgen.plan.operator import OperatorPlan, OutputRule
from opgen.types import ParamKind

ROOT = "torch_npu"
FUNCTIONS_YAML = f"{ROOT}/op_plugin_functions.yaml"

# op-plugin's `all_version`: the PyTorch versions the registrations apply to (its README and config list
# v2.1 to v2.10; its extension sample already lists v2.11).
TORCH_VERSIONS = ("v2.1", "v2.2", "v2.3", "v2.4", "v2.5", "v2.6", "v2.7", "v2.8", "v2.9", "v2.10", "v2.11")

_LINE_LIMIT = 120
_INDENT = "  "
_CPP_TYPES = {
    ParamKind.TENSOR: "const at::Tensor&",
    ParamKind.SCALAR: "const at::Scalar&",
    ParamKind.BOOL: "bool",
    ParamKind.INT64: "int64_t",
    ParamKind.DOUBLE: "double",
    ParamKind.STRING: "c10::string_view",
}
# An optional scalar or string (null_default, `Scalar?` / `str?` in aten).
_OPTIONAL = {
    ParamKind.SCALAR: "const c10::optional<at::Scalar>&",
    ParamKind.STRING: "c10::optional<c10::string_view>",
}


def _cpp_arg(arg: AtenArg) -> str:
    """An aten argument as the adapter's C++ signature declares it."""
    if arg.param is None:
        return f"{arg.unused_cpp} {arg.name}"
    if arg.mutable:
        return f"at::Tensor& {arg.name}"
    ctype = _OPTIONAL[arg.param.kind] if arg.param.nullable else _CPP_TYPES[arg.param.kind]
    return f"{ctype} {arg.name}"


# ---------------------------------------------------------------------------------------------- adapters


@dataclass(frozen=True)
class CppFunction:
    """C++ of one adapter, built from validated identifiers and schema literals."""

    signature: Code  # declarator, wrapped, without the opening brace
    compat: Code | None  # DO_COMPATIBILITY statement (official ops fall back to op-plugin's aclop kernel)
    prepare: list[Code]  # statements that allocate or check the output
    exec: Code
    result: Code


def _pack(first: str, pad: str, args: list[str], tail: str) -> list[str]:
    """Arguments packed greedily onto lines: the first line starts with `first`, the others with `pad`."""
    lines, current = [], first
    for i, arg in enumerate(args):
        piece = arg + (", " if i < len(args) - 1 else f"){tail}")
        if len(current) + len(piece.rstrip()) > _LINE_LIMIT and current.strip() and current != first:
            lines.append(current.rstrip())
            current = pad
        current += piece
    lines.append(current)
    return lines


def _call(head: str, args: list[str], indent: str, tail: str = "") -> str:
    """`head(args)tail` within the line limit: continuation lines aligned under the first argument, or,
    when an argument is too long for that, every argument on lines indented 4 more than the call."""
    one_line = f"{indent}{head}({', '.join(args)}){tail}"
    if len(one_line) <= _LINE_LIMIT:
        return one_line
    aligned = _pack(f"{indent}{head}(", " " * (len(indent) + len(head) + 1), args, tail)
    if all(len(line) <= _LINE_LIMIT for line in aligned):
        return "\n".join(aligned)
    pad = indent + "    "
    return "\n".join([f"{indent}{head}("] + _pack(pad, pad, args, tail))


def _size_expr(names: list[str]) -> str:
    """The broadcast shape of the tensors `names` (their Python names), or the one's shape."""
    if len(names) == 1:
        return f"{names[0]}.sizes()"
    expr = f"op_infer::broadcast_ops_npu_output_size({names[0]}, {names[1]})"
    for extra in names[2:]:
        expr = f"op_infer::broadcast_ops_npu_output_size({expr}, {extra}.sizes())"
    return expr


def _dtype_expr(names: list[str]) -> str:
    if len(names) == 1:
        return f"{names[0]}.scalar_type()"
    if len(names) == 2:
        return f"at::native::result_type({names[0]}, {names[1]})"
    return f"at::native::result_type({{{', '.join(names)}}})"


def _prepare(operator: OperatorPlan, fn: AtenFunction) -> list[str]:
    if fn.variant is Variant.INPLACE:
        return []  # the aclnn API checks the in-place tensor itself; nothing to allocate
    lines = _prepare_unwritten(operator, fn)
    if fn.variant is Variant.FUNCTIONAL:  # a per-channel sum's channel input passes flattened (op-plugin's way)
        lines += [
            f"{_INDENT}at::Tensor {like}_flat = {like}.reshape({{-1}});" for like in _flattened(operator).values()
        ]
    for index, rule in enumerate(operator.outputs):  # each computed output by its own rule
        lines += _prepare_output(operator, fn, rule, "output" if index == 0 else rule.param.python)
    return lines


def _flattened(operator: OperatorPlan) -> dict[str, str]:
    """The schedule's per-channel sums -> the Python name of the channel input each is shaped like: op-plugin's
    _prelu_kernel_backward passes that input flattened and returns the sum in its shape."""
    return {s.output: s.like_python for s in operator.schedule.sums}


def _prepare_output(operator: OperatorPlan, fn: AtenFunction, rule: OutputRule, local: str) -> list[str]:
    """Allocates (functional) or checks and resizes (out) one computed output; `local` names its locals."""
    param = rule.param
    shape = [operator.param(n).python for n in rule.shape_sources]
    dtype = [operator.param(n).python for n in rule.dtype_sources]
    out = param.python
    lines = []
    size = _size_expr(shape)
    flat = _flattened(operator).get(param.name) if fn.variant is Variant.FUNCTIONAL else None
    if flat is not None:  # the sum is allocated as the flattened input: [C] or [1], as the API's row wants
        size = f"{flat}_flat.sizes()"
    fixed = operator.schedule.adapter_size(param.name)  # e.g. a half split's half of its split tensor
    if fixed is not None:
        size = fixed
    if len(shape) > 1 or fixed is not None:
        lines.append(f"{_INDENT}auto {local}_size = {size};")
        size = f"{local}_size"
    if fn.variant is Variant.OUT:
        # The out tensor keeps its dtype (the API casts into it) and is resized to the output shape.
        sources = "{" + ", ".join(p.python for p in operator.tensor_inputs) + "}"
        lines.append(_call("npu_preparation::check_tensor", [sources, out, f"{out}.scalar_type()", size], _INDENT, ";"))
        return lines
    if len(shape) == 1 and shape == dtype and flat is None and fixed is None:
        lines.append(f"{_INDENT}at::Tensor {out} = npu_preparation::apply_tensor_without_format({shape[0]});")
        return lines
    lines.append(f"{_INDENT}at::ScalarType {local}_dtype = {_dtype_expr(dtype)};")
    options = f"{dtype[0]}.options().dtype({local}_dtype)"
    lines.append(
        _call(f"at::Tensor {out} = npu_preparation::apply_tensor_without_format", [size, options], _INDENT, ";")
    )
    return lines


def _prepare_unwritten(operator: OperatorPlan, fn: AtenFunction) -> list[str]:
    """An output the API never writes is allocated empty, in the first input's options, as torch_npu's
    log_sigmoid_forward does for buffer; the out form passes the caller's tensor as it is."""
    if fn.variant is not Variant.FUNCTIONAL:
        return []
    like = operator.tensor_inputs[0].python
    return [
        f"{_INDENT}at::Tensor {p.python} = npu_preparation::apply_tensor_without_format({{0}}, {like}.options());"
        for p in operator.unwritten_outputs
    ]


def _string_locals(fn: AtenFunction) -> tuple[list[str], dict[str, str]]:
    """A string argument reaches the API as the C string its header declares (char* or const char*): a local
    std::string keeps the bytes, with a terminating NUL, alive for the call; an optional string (null_default)
    left out passes a null pointer."""
    lines, renamed = [], {}
    for cparam in fn.api.user_params:
        param = cparam.param
        if param is None or param.kind is not ParamKind.STRING:
            continue
        name = fn.c_names[cparam.name]
        if param.nullable:
            lines.append(
                f"{_INDENT}std::string {name}_str = {name}.has_value() ? std::string({name}->data(), {name}->size())"
                " : std::string();"
            )
            text = f"{name}.has_value() ? {name}_str.c_str() : nullptr"
        else:
            lines.append(f"{_INDENT}std::string {name}_str({name}.data(), {name}.size());")
            text = f"{name}_str.c_str()"
        if cparam.ctype.startswith("const"):
            lines.append(f"{_INDENT}const char* {name}_ptr = {text};")
        else:
            lines.append(f"{_INDENT}char* {name}_ptr = const_cast<char*>({text});")
        renamed[cparam.name] = f"{name}_ptr"
    return lines, renamed


def _cpp_function(operator: OperatorPlan, fn: AtenFunction) -> CppFunction:
    returns = "at::Tensor" if fn.variant is Variant.FUNCTIONAL else "at::Tensor&"
    result = fn.results[0]
    # a per-channel sum comes back in the shape of the channel input it is shaped like (op-plugin's reshape)
    reshaped = {operator.param(name).python: like for name, like in _flattened(operator).items()}
    if fn.variant is not Variant.FUNCTIONAL:
        reshaped = {}
    if len(fn.results) > 1:
        returns = "std::tuple<" + ", ".join(returns for _ in fn.results) + ">"
        tie = "std::make_tuple" if fn.variant is Variant.FUNCTIONAL else "std::tie"
        parts = [f"{r}.reshape({reshaped[r]}.sizes())" if r in reshaped else r for r in fn.results]
        result = f"{tie}({', '.join(parts)})"
    signature = _call(f"{returns} {fn.cpp_name}", [_cpp_arg(a) for a in fn.args], "")
    arg_names = [a.name for a in fn.args]
    compat = None
    if fn.official:
        compat = _call(
            "DO_COMPATIBILITY", [fn.api.name, f"acl_op::{fn.cpp_name}({', '.join(arg_names)})"], _INDENT, ";"
        )
    prepare = _prepare(operator, fn)
    strings, renamed = _string_locals(fn)
    prepare += strings
    exec_args = [renamed.get(c.name, fn.c_names[c.name]) for c in fn.api.user_params]
    if fn.variant is Variant.FUNCTIONAL:
        flat_inputs = set(_flattened(operator).values())
        exec_args = [f"{a}_flat" if a in flat_inputs else a for a in exec_args]
    exec_call = _call("EXEC_NPU_CMD", [fn.api.name, *exec_args], _INDENT, ";")
    return CppFunction(
        code(signature), code(compat) if compat else None, [code(p) for p in prepare], code(exec_call), code(result)
    )


def _camel(snake: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_") if part)


def adapter_path(operator: OperatorPlan) -> str:
    """op-plugin names adapter files after the aten op: LeakyReluBackwardKernelNpuOpApi.cpp."""
    return f"{ROOT}/opapi/{_camel(operator.aten.adapter_op)}KernelNpuOpApi.cpp"


def _check_names(operator: OperatorPlan, functions: list[AtenFunction]) -> None:
    """Generated names must be C++/aten identifiers and must not shadow each other or the locals we emit."""
    for fn in functions:
        names = [a.name for a in fn.args] + (list(fn.results) if fn.variant is Variant.FUNCTIONAL else [])
        clashes = {n for n in names if names.count(n) > 1} | (set(names) & {"output_size", "output_dtype"})
        if clashes or not all(re.fullmatch(r"[a-z_][a-z0-9_]*", n) for n in names):
            raise ValueError(f"{operator.op_type}: unusable aten argument names for {fn.schema}: {sorted(clashes)}")


# ---------------------------------------------------------------------------------------------- files


@dataclass(frozen=True)
class YamlEntry:
    func: Code  # the aten schema, a plain YAML scalar (identifiers, types and numeric defaults)
    versions: list[tuple[Code, Code]]  # (backend key, version spec), e.g. ("op_api", "all_version")


def _yaml_entry(fn: AtenFunction) -> YamlEntry:
    backends = [(Code("acl_op"), Code("all_version"))] if fn.official else []
    return YamlEntry(code(fn.schema), backends + [(Code("op_api"), Code("all_version"))])


@dataclass(frozen=True)
class TorchNpuFragment:
    """What one operator contributes to generated/torch_npu: its adapter file and its registrations, rendered
    (plain data), so it can be cached as text."""

    source: str
    adapters: tuple[tuple[str, str], ...]  # (path, text) of each operator's adapter
    # (aten op, overload, official, schema, ((backend, version), ...)) per registered function
    entries: tuple[tuple[str, str, bool, str, tuple[tuple[str, str], ...]], ...]

    def __add__(self, other: TorchNpuFragment) -> TorchNpuFragment:
        """Both operators' adapters and registrations (operators of one spec file)."""
        return TorchNpuFragment(self.source, self.adapters + other.adapters, self.entries + other.entries)


def torch_npu_fragment(operator: OperatorPlan) -> TorchNpuFragment:
    functions = list(operator.aten.functions)
    _check_names(operator, functions)
    adapter = render(
        "torch_npu/opapi/KernelNpuOpApi.cpp.j2",
        adapter_path(operator),
        operator.source,
        functions=[_cpp_function(operator, fn) for fn in functions],
        uses_acl_op=any(fn.official for fn in functions),
    )
    entries = []
    for fn in functions:
        entry = _yaml_entry(fn)
        versions = tuple((str(key), str(value)) for key, value in entry.versions)
        entries.append((fn.op, fn.overload, fn.official, str(entry.func), versions))
    return TorchNpuFragment(operator.source, ((adapter_path(operator), adapter),), tuple(entries))


def render_torch_npu(fragments: list[TorchNpuFragment]) -> dict[str, str]:
    files = {path: adapter for fragment in fragments for path, adapter in fragment.adapters}
    entries = sorted((entry for fragment in fragments for entry in fragment.entries), key=lambda e: (e[0], e[1]))

    def yaml_entry(entry: tuple[str, str, bool, str, tuple[tuple[str, str], ...]]) -> YamlEntry:
        # Fragments hold the schema and backends as rendered by _yaml_entry: code already.
        return YamlEntry(Code(entry[3]), [(Code(key), Code(value)) for key, value in entry[4]])

    files[FUNCTIONS_YAML] = render(
        "torch_npu/op_plugin_functions.yaml.j2",
        FUNCTIONS_YAML,
        tuple(fragment.source for fragment in fragments),
        versions=code(", ".join(TORCH_VERSIONS)),
        sections=[
            (Code("official"), [yaml_entry(e) for e in entries if e[2]]),
            (Code("custom"), [yaml_entry(e) for e in entries if not e[2]]),
        ],
    )
    return files
