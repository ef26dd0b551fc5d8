"""The aten-named Python binding an operator adds over its main API (`api.aten_form`): aten's argument names, order,
keyword-only arguments and defaults, read once from aten's schema; and the aten arguments the bindings take but the
API does not (`api.aten_unused`), with where aten puts them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from opgen.spec import aten_form as aten_forms
from opgen.spec import aten_unused
from opgen.spec.model import OpSpec, Param

T = TypeVar("T")


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


@dataclass(frozen=True)
class UnusedArg:
    """An aten argument the API does not take (api.aten_unused, rrelu's generator): a binding takes it, with aten's
    type and default None, and passes nothing on."""

    name: str  # aten's argument name
    type: str  # aten's type, e.g. Generator?
    kwarg_only: bool
    before: str | None  # the argument aten puts right before it; None: it is first


@dataclass(frozen=True)
class UnusedArgs:
    """The unused aten arguments of aten's functional schema and of its in-place one, each in its schema's order."""

    functional: tuple[UnusedArg, ...] = ()
    inplace: tuple[UnusedArg, ...] = ()

    def of(self, inplace: bool) -> tuple[UnusedArg, ...]:
        return self.inplace if inplace else self.functional

    def placed(
        self, items: list[T], name_of: Callable[[T], str], make: Callable[[UnusedArg], T], inplace: bool
    ) -> list[T]:
        """`items` (a binding's inputs, by their aten names) with each unused argument made by `make` and inserted
        right after the argument aten puts before it (first when aten puts it first)."""
        return aten_unused.insert_after(items, name_of, [(make(arg), arg.before) for arg in self.of(inplace)])


def unused_args(spec: OpSpec) -> UnusedArgs:
    def of(inplace: bool) -> tuple[UnusedArg, ...]:
        return tuple(
            UnusedArg(arg.name, arg.type, arg.kwarg_only, before)
            for arg, before in aten_unused.positions(spec, inplace)
        )

    return UnusedArgs(of(False), of(True))
