"""The Python package `opgen_ops` (generated/python/opgen_ops): one function per aclnn API, named and ordered
like the aten schema, calling the C API through its ABI; docstrings and type stubs come from the specs."""

from __future__ import annotations

from dataclasses import dataclass

from opgen import formula as F
from opgen.emit.templating import generated_notice, render, render_fragment
from opgen.lang import Code, code, ident, python
from opgen.plan.aten_binding import UnusedArg
from opgen.plan.dtype_table import DtypeRow, dtype_rows, promotions
from opgen.plan.operator import OperatorPlan
from opgen.plan.signature import ApiSignature, CParam
from opgen.types import Direction, ParamKind

PACKAGE = "python/opgen_ops"
# Docstrings keep the specs' texts whole (a line break would change them), so a long one is exempt from E501.
_LONG_DOC = Code("  # noqa: E501 (the docstring keeps the spec's texts whole)")


# Stub annotations per parameter kind.
_ANNOTATION = {
    "tensor": Code("np.ndarray | None"),
    "scalar": Code("float | int | bool | np.generic | None"),
    "bool": Code("bool"),
    "int64": Code("int"),
    "double": Code("float"),
    "string": Code("str"),
}


@dataclass(frozen=True)
class PyArg:
    name: Code  # Python name
    kind: str  # tensor / scalar / bool
    default: Code | None
    annotation: Code

    @property
    def stub_default(self) -> Code | None:
        """In the type stub, a default that needs an import (math.nan) is written `...`."""
        return Code("...") if self.default is not None and "math." in self.default else self.default


@dataclass(frozen=True)
class PyFunction:
    name: Code
    api: Code  # a string literal naming the C API
    args: list[PyArg]  # positional (before `*`)
    kwargs: list[PyArg]  # keyword-only (after `*`, as aten's schema has them), before the outputs
    has_out: bool
    outs: list[Code]  # the output keywords when has_out: `out`, or each output's name (aten's output, buffer)
    call: Code  # the list passed to _rt.call
    out_init: list[Code]
    returns: Code  # one output, or the tuple of several in the API's order (as aten returns them)
    return_annotation: Code
    doc: Code  # docstring body, escaped
    doc_noqa: Code  # after the closing quotes: _LONG_DOC when a docstring line is wider than the line length


def _default(cparam: CParam) -> Code | None:
    param = cparam.param
    assert param is not None
    if param.default is None:
        return Code("None") if param.nullable else None  # an optional scalar: None passes a null pointer
    return python.literal(param.default)


def _arg(name: str, kind: str, default: Code | None) -> PyArg:
    return PyArg(ident(name), kind, default, _ANNOTATION[kind])


def _unused_arg(arg: UnusedArg) -> PyArg:
    """An aten argument the API does not take (api.aten_unused): taken, any value, and ignored, as aten ignores a
    generator outside training mode."""
    return PyArg(ident(arg.name), "unused", Code("None"), Code("object"))


def _doc(operator: OperatorPlan, sig: ApiSignature, unused: tuple[UnusedArg, ...] = ()) -> str:
    lines = [
        f"{sig.name}: {operator.function}",
        "",
        f"    {operator.main_output} = {F.to_text(operator.formula)}",
        "",
    ]
    lines.append("Args:")
    for cparam in sig.user_params:
        param = cparam.param
        assert param is not None
        is_output = param.direction is Direction.OUTPUT and not cparam.inplace
        name = operator.out_keywords[param.name] if is_output else param.python
        dtypes = ", ".join(d.value for d in param.dtypes) or "-"
        lines.append(f"    {name}: {param.description} ({param.kind.value}; dtypes: {dtypes})")
    for arg in unused:
        lines.append(f"    {arg.name}: aten's {arg.type} argument, which {sig.name} does not take (ignored)")
    lines.append("")
    lines.append("Raises:")
    for row in operator.errors:
        lines.append(f"    AclnnError: status {row.code} ({row.status.value}) if {operator.error_doc(row)}")
    return "\n".join(lines)


def _doc_noqa(doc: Code) -> Code:
    """_LONG_DOC if a line of the docstring, as the template indents it, is wider than the line length."""
    first, *rest = doc.split("\n")
    widths = [python.line_width('    """' + first)] + [python.line_width(f"    {line}".rstrip()) for line in rest]
    return _LONG_DOC if max(widths) > python.LINE_LENGTH else Code("")


def _input_call(cparam: CParam, py: str) -> tuple[str, str]:
    """An input's annotation kind and the runtime object passing Python value `py` to the C API."""
    param = cparam.param
    assert param is not None
    if param.kind is ParamKind.TENSOR:
        return "tensor", f"_rt.Tensor({py})"
    if param.kind is ParamKind.SCALAR:
        real = not any(d.is_complex for d in param.dtypes)
        return "scalar", f"_rt.Scalar({py}, real=True)" if real else f"_rt.Scalar({py})"
    if param.kind is ParamKind.INT64:
        return "int64", f"_rt.Int({py})"
    if param.kind is ParamKind.DOUBLE:
        return "double", f"_rt.Double({py})"
    if param.kind is ParamKind.STRING:
        return "string", f"_rt.String({py})"
    return "bool", f"_rt.Flag({py})"


def _input_of(sig: ApiSignature, name: str) -> CParam:
    return next(p for p in sig.user_params if p.param is not None and p.param.name == name)


def _aten_form_function(operator: OperatorPlan, sig: ApiSignature) -> PyFunction:
    """The aten-named binding over the main API: aten's names, order, keyword-only arguments and defaults; a mode
    spelled by aten (approximate="tanh") translated to the API's value (1) before the call."""
    form = operator.aten_form
    assert form is not None
    names = form.names  # API input -> aten argument name
    args: list[PyArg] = []
    kwargs: list[PyArg] = []
    for aten_arg in form.args:
        kind, _ = _input_call(_input_of(sig, aten_arg.param.name), aten_arg.name)
        if aten_arg.param.name in form.values:
            kind = "string"
        default = None if aten_arg.default is None else python.literal(aten_arg.default[0])
        (kwargs if aten_arg.kwarg_only else args).append(_arg(aten_arg.name, kind, default))
    call: list[str] = []
    out_init = None
    has_out = form.has_out
    for cparam in sig.user_params:
        used = cparam.param
        assert used is not None
        if used.direction is Direction.OUTPUT:
            rule = operator.output_rule(used.name)
            shape_of, dtype_of = rule.shape_sources, rule.dtype_sources
            py_names = lambda ns: "[" + ", ".join(names[n] for n in ns) + "]"  # noqa: E731
            new_output = f"out = _rt.new_output({py_names(shape_of)}, {py_names(dtype_of)})"
            out_init = f"if out is None:\n        {new_output}" if has_out else new_output
            call.append("_rt.Tensor(out, output=True)")
            continue
        py = names[used.name]
        if used.name in form.values:
            table = python.literal(dict(form.values[used.name]))
            py = f"_rt.spelled({python.string(py)}, {py}, {table})"
        call.append(_input_call(cparam, py)[1])
    doc = python.docstring_body(
        f"aten::{form.name} over {sig.name}: the aten signature, "
        + ", ".join(f"{names[n]} translated by {dict(v)!r}" for n, v in form.values.items())
        + f".\n\nSee {operator.binding_name} for the arguments and the errors raised."
    )
    return PyFunction(
        name=ident(form.name),
        api=python.string(sig.name),
        args=args,
        kwargs=kwargs,
        has_out=has_out,
        outs=[ident("out")] if has_out else [],
        call=code("[" + ", ".join(call) + "]"),
        out_init=[code(out_init)] if out_init else [],
        returns=ident("out"),
        return_annotation=Code("np.ndarray"),
        doc=doc,
        doc_noqa=_doc_noqa(doc),
    )


def _function(operator: OperatorPlan, sig: ApiSignature, name: str) -> PyFunction:
    args: list[PyArg] = []
    call: list[str] = []
    out_init: list[str] = []
    has_out = False
    returns: list[str] = []
    out_keywords: list[str] = []
    # a per-channel sum (the schedule's sums) as torch_npu computes it: the channel input it is shaped like passes
    # flattened (its [C] or [1], as the API's channel_sum_shape row wants), the sum returned in that input's shape
    flattened = {s.like: s.output for s in operator.schedule.sums}
    for cparam in sig.user_params:
        param = cparam.param
        assert param is not None
        py = param.python
        if cparam.inplace:
            args.append(_arg(py, "tensor", None))
            call.append(f"_rt.Tensor({py}, output=True)")
            returns.append(py)
        elif param.direction is Direction.OUTPUT:
            has_out = operator.binding_out
            out_keyword = operator.out_keywords[param.name]
            if param.written:
                rule = operator.output_rule(param.name)
                shape_of, dtype_of = rule.shape_sources, rule.dtype_sources
                py_names = lambda names: "[" + ", ".join(operator.param(n).python for n in names) + "]"  # noqa: E731
                integers_as = operator.integers_as
                as_dtype = (
                    f", {python.string(integers_as.numpy.name)}" if integers_as and not param.dtype.same_as else ""
                )
                shapes = py_names(shape_of)
                if param.name in flattened.values():
                    like_py = operator.param(shape_of[0]).python
                    shapes = f"[{like_py}.reshape(-1) if {like_py} is not None else None]"
                halved = operator.schedule.halved_dim(param.name)
                if halved is not None:  # a half of the split tensor
                    as_dtype += f", split_dim={halved}"
                dropped = operator.schedule.dropped_dim(param.name)
                if dropped is not None:  # one value per row: the input's shape without the reduced dim
                    as_dtype += f", row_dim={dropped}"
                new_output = f"{out_keyword} = _rt.new_output({shapes}, {py_names(dtype_of)}{as_dtype})"
            else:
                new_output = f"{out_keyword} = _rt.new_unwritten({operator.tensor_inputs[0].python})"
            out_init.append(f"if {out_keyword} is None:\n        {new_output}" if has_out else new_output)
            call.append(f"_rt.Tensor({out_keyword}, output=True)")
            like = next((input_name for input_name, out in flattened.items() if out == param.name), None)
            like_py = operator.param(like).python if like else ""
            returns.append(f"{out_keyword}.reshape({like_py}.shape)" if like else out_keyword)  # after a call
            out_keywords.append(out_keyword)
        else:
            kind, argument = _input_call(cparam, py)
            args.append(_arg(py, kind, _default(cparam)))
            flat = f"_rt.Tensor({py}.reshape(-1) if {py} is not None else None)"
            call.append(flat if param.name in flattened else argument)
    args = operator.aten_unused.placed(args, lambda a: str(a.name), _unused_arg, sig.inplace)
    unused = operator.aten_unused.of(sig.inplace)
    doc = python.docstring_body(_doc(operator, sig, unused))
    keyword = {p.python for p in operator.params if p.keyword_only} | {a.name for a in unused if a.kwarg_only}
    return PyFunction(
        name=ident(name),
        api=python.string(sig.name),
        args=[a for a in args if str(a.name) not in keyword],
        kwargs=[a for a in args if str(a.name) in keyword],
        has_out=has_out,
        outs=[ident(name) for name in out_keywords] if has_out else [],
        call=code("[" + ", ".join(call) + "]"),
        out_init=[code(line) for line in out_init],
        returns=code(", ".join(returns)),  # identifiers (of parameters), or such an identifier's reshape
        return_annotation=code(
            "np.ndarray" if len(returns) == 1 else "tuple[" + ", ".join("np.ndarray" for _ in returns) + "]"
        ),
        doc=doc,
        doc_noqa=_doc_noqa(doc),
    )


def python_functions(operator: OperatorPlan) -> list[PyFunction]:
    functions = [
        _function(operator, sig, name) for sig, name in zip(operator.signatures, operator.bindings, strict=True)
    ]
    if operator.aten_form is not None:
        functions.append(_aten_form_function(operator, operator.signatures[0]))
    return functions


@dataclass(frozen=True)
class PythonFragment:
    """What one operator contributes to the `opgen_ops` package: rendered, so it can be cached as text."""

    source: str  # the spec, as generated-file notices name it
    names: tuple[str, ...]  # the binding functions, in order
    module: str  # their definitions in __init__.py
    stub: str  # their declarations in __init__.pyi

    def __add__(self, other: PythonFragment) -> PythonFragment:
        """Both operators' functions, in order (operators of one spec file)."""
        return PythonFragment(self.source, self.names + other.names, self.module + other.module, self.stub + other.stub)


def python_fragment(operator: OperatorPlan) -> PythonFragment:
    functions = python_functions(operator)
    return PythonFragment(
        source=operator.source,
        names=tuple(str(f.name) for f in functions),
        module="".join(render_fragment("python/opgen_ops/function.py.j2", f=f) for f in functions),
        stub="".join(render_fragment("python/opgen_ops/function.pyi.j2", f=f) for f in functions),
    )


def render_python(fragments: list[PythonFragment]) -> dict[str, str]:
    """The package from every operator's fragment (functions in the order of the fragments)."""
    sources = tuple(fragment.source for fragment in fragments)
    names = [name for fragment in fragments for name in fragment.names]
    all_names = python.literal(python.dunder_all_order(["AclnnError", *names]))
    # Fragments were rendered from escaped code by this module's templates.
    module = Code("".join(fragment.module for fragment in fragments))
    stub = Code("".join(fragment.stub for fragment in fragments))
    return {
        f"{PACKAGE}/__init__.py": render(
            "python/opgen_ops/__init__.py.j2", "__init__.py", sources, functions=module, all_names=all_names
        ),
        f"{PACKAGE}/__init__.pyi": render("python/opgen_ops/__init__.pyi.j2", "__init__.pyi", sources, functions=stub),
        f"{PACKAGE}/_runtime.py": render(
            "python/opgen_ops/_runtime.py.j2",
            "_runtime.py",
            sources,
            acl_dtypes=acl_dtype_table(),
            promotions=promotion_table(),
        ),
        f"{PACKAGE}/golden.py": render(
            "python/opgen_ops/golden.py.j2",
            "golden.py",
            sources,
            dtypes=[(python.string(row.name), numpy_spelling(row)) for row in dtype_rows()],
        ),
        f"{PACKAGE}/py.typed": generated_notice("py.typed", sources) + "\n",
    }


def numpy_spelling(row: DtypeRow) -> Code:
    """How the generated Python names a dtype's numpy type (bfloat16 comes from ml_dtypes)."""
    if row.numpy == "bfloat16":
        return Code("ml_dtypes.bfloat16")
    return Code("np.bool_" if row.numpy == "bool" else f"np.{ident(row.numpy)}")


def acl_dtype_table() -> list[tuple[Code, int]]:
    """(numpy type, aclDataType value) of every dtype, by value: the runtime's ACL_DTYPE."""
    return [(numpy_spelling(row), row.acl_value) for row in dtype_rows()]


def promotion_table() -> list[tuple[Code, Code, Code]]:
    """(dtype, other dtype, promoted dtype) as numpy-name literals: the runtime's _PROMOTED."""
    return [(python.literal(a), python.literal(b), python.literal(c)) for a, b, c in promotions()]
