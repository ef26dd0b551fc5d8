"""`api.aten_form`: an extra binding with an aten op's full signature over an API that spells a mode differently
(aclnnGeluV2's int64 approximate 0 | 1 against aten gelu's str "none" | "tanh"). This module pairs the API's
inputs with the aten arguments and says what is wrong with the link; the Python emitter writes the binding."""

from __future__ import annotations

import ast

from opgen.spec.aten import AtenSchema, aten_op
from opgen.spec.diagnostics import FieldPath
from opgen.spec.model import AtenForm, Direction, OpSpec, ParamKind

# The aten argument types each parameter kind may stand for (a translated mode is an aten `str`).
_ATEN_TYPES = {
    ParamKind.TENSOR: ("Tensor",),
    ParamKind.SCALAR: ("Scalar", "Scalar?", "float"),
    ParamKind.BOOL: ("bool",),
    ParamKind.INT64: ("int",),
    ParamKind.DOUBLE: ("float",),
    ParamKind.STRING: ("str",),
}


def functional_schema(form: AtenForm) -> AtenSchema:
    op = aten_op(form.name)
    assert op is not None and op.functional is not None  # validated
    return op.functional


def has_out(form: AtenForm) -> bool:
    op = aten_op(form.name)
    return op is not None and op.out is not None


def aten_names(spec: OpSpec, schema: AtenSchema) -> dict[str, str]:
    """Each API input -> the aten argument it is, in order (aten's `self` for GeluV2's `x`)."""
    inputs = [p.name for p in spec.params if p.direction is Direction.INPUT]
    return dict(zip(inputs, (arg.name for arg in schema.args), strict=False))


def python_default(text: str) -> object:
    """An aten default as a Python value: `"none"` -> 'none', `1` -> 1, `False` -> False."""
    return ast.literal_eval(text)


def problems(spec: OpSpec) -> list[tuple[FieldPath, str]]:
    """What keeps api.aten_form from describing a binding: (path, message) for each problem."""
    form = spec.api.aten_form
    if form is None:
        return []
    base: FieldPath = ("api", "aten_form")
    op = aten_op(form.name)
    if op is None or op.functional is None:
        return [(base + ("name",), f"aten has no functional op '{form.name}'")]
    schema = op.functional
    inputs = [p for p in spec.params if p.direction is Direction.INPUT]
    if len(inputs) != len(schema.args):
        listed = ", ".join(a.name for a in schema.args)
        return [
            (
                base + ("name",),
                f"aten::{form.name} takes {len(schema.args)} arguments ({listed}), the API {len(inputs)}",
            )
        ]
    found: list[tuple[FieldPath, str]] = []
    for param, arg in zip(inputs, schema.args, strict=True):
        translated = param.name in form.values
        allowed = ("str",) if translated else _ATEN_TYPES[param.kind]
        if arg.type not in allowed:
            found.append(
                (base + ("name",), f"'{param.name}' ({param.kind.value}) stands for aten's {arg.type} '{arg.name}'")
            )
    for name, mapping in form.values.items():
        mode = next((p for p in inputs if p.name == name), None)
        path = base + ("values", name)
        if mode is None or mode.kind not in (ParamKind.INT64, ParamKind.STRING) or mode.values is None:
            found.append((path, f"'{name}' is not an int64/string input with values"))
            continue
        for aten_value, value in mapping.items():
            if value not in mode.values:
                listed = ", ".join(map(str, mode.values))
                found.append((path + (aten_value,), f"{value!r} is not one of '{name}''s values ({listed})"))
    return found
