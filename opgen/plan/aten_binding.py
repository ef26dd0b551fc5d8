"""The aten-named Python binding an operator adds over its main API (`api.aten_form`): aten's argument names, order,
keyword-only arguments and defaults, read once from aten's schema."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.spec import aten_form as aten_forms
from opgen.spec.model import OpSpec, Param


@dataclass(frozen=True)
class AtenFormArg:
    name: str  # aten's argument name
    param: Param  # the API input it is
    kwarg_only: bool
    default: tuple[object] | None  # (aten's default as a Python value,); None: the argument has none


@dataclass(frozen=True)
class AtenFormPlan:
    name: str  # the aten op, e.g. gelu
    args: tuple[AtenFormArg, ...]  # in aten's order
    names: dict[str, str]  # each API input -> its aten argument name
    values: dict[str, dict[str, int | str]]  # a mode aten spells (approximate="tanh") -> the API's value, per input
    has_out: bool  # aten has an out= overload


def aten_form_plan(spec: OpSpec) -> AtenFormPlan | None:
    form = spec.api.aten_form
    if form is None:
        return None
    schema = aten_forms.functional_schema(form)
    names = aten_forms.aten_names(spec, schema)
    args = []
    for aten_arg in schema.args:
        param = next(p for p in spec.params if names.get(p.name) == aten_arg.name)
        default = None if aten_arg.default is None else (aten_forms.python_default(aten_arg.default),)
        args.append(AtenFormArg(aten_arg.name, param, aten_arg.kwarg_only, default))
    values = {name: dict(table) for name, table in form.values.items()}
    return AtenFormPlan(form.name, tuple(args), names, values, aten_forms.has_out(form))
