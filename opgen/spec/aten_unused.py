"""`api.aten_unused`: aten arguments an API does not take (aten's rrelu has a `Generator? generator` that only its
training mode reads; aclnnRrelu implements eval mode only). The bindings and torch_npu adapters still take them,
where aten's schema puts them, with aten's type and default None, so their signatures are aten's; nothing reaches
the API. This module checks the list against aten's schemas and says where each argument goes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from opgen.spec.aten import AtenArg, AtenSchema, aten_op
from opgen.spec.diagnostics import FieldPath
from opgen.spec.model import Direction, OpSpec

# The aten types an unused argument may have, with the C++ type op-plugin's kernels take it as: an optional whose
# None means "not given", so leaving it out changes nothing.
CPP_TYPES = {"Generator?": "const c10::optional<at::Generator>&"}

T = TypeVar("T")


def _schemas(spec: OpSpec) -> list[AtenSchema]:
    """aten's functional schema of the spec's op and, where the spec binds it, its in-place one."""
    found: list[AtenSchema] = []
    op = aten_op(spec.api.aten) if spec.api.aten else None
    if op is not None and op.functional is not None:
        found.append(op.functional)
    inplace = spec.api.inplace
    if op is not None and inplace is not None and inplace.aten is not None and op.inplace is not None:
        found.append(op.inplace)
    return found


def unused_args(spec: OpSpec, inplace: bool = False) -> tuple[AtenArg, ...]:
    """The unused arguments as aten's functional (or in-place) schema declares them, in its order."""
    if not spec.api.aten_unused:
        return ()
    op = aten_op(spec.api.aten or "")
    schema = None if op is None else (op.inplace if inplace else op.functional)
    assert schema is not None  # validated
    return tuple(arg for arg in schema.args if arg.name in spec.api.aten_unused)


def positions(spec: OpSpec, inplace: bool = False) -> tuple[tuple[AtenArg, str | None], ...]:
    """Each unused argument (as `unused_args`) with the argument aten puts right before it (None: it is first)."""
    op = aten_op(spec.api.aten or "")
    schema = None if op is None else (op.inplace if inplace else op.functional)
    if schema is None:
        return ()
    names = [arg.name for arg in schema.args]
    return tuple(
        (arg, names[names.index(arg.name) - 1] if names.index(arg.name) else None) for arg in unused_args(spec, inplace)
    )


def insert_after(items: list[T], name_of: Callable[[T], str], made: list[tuple[T, str | None]]) -> list[T]:
    """`items` with each (item, before) of `made` inserted, in turn, right after the item named `before` (first when
    no item is)."""
    result = list(items)
    for item, before in made:
        at = next((i + 1 for i, other in enumerate(result) if name_of(other) == before), 0)
        result.insert(at, item)
    return result


def problems(spec: OpSpec) -> list[tuple[FieldPath, str]]:
    """What is wrong with api.aten_unused: (path, message) for each problem."""
    if not spec.api.aten_unused:
        return []
    base: FieldPath = ("api", "aten_unused")
    if spec.api.aten is None:
        return [(base, "names aten arguments, but api.aten is not set")]
    schemas = _schemas(spec)
    if not schemas:
        return [(("api", "aten"), f"aten has no functional op '{spec.api.aten}'")]
    found: list[tuple[FieldPath, str]] = []
    taken = {p.python for p in spec.params if p.direction is Direction.INPUT}
    for index, name in enumerate(spec.api.aten_unused):
        path = base + (index,)
        if name in taken:
            found.append((path, f"'{name}' is a parameter of the API (py name): the API takes it"))
            continue
        for schema in schemas:
            arg = schema.arg(name)
            if arg is None:
                listed = ", ".join(a.name for a in schema.args)
                found.append((path, f"{schema.qualified} has no argument '{name}' (it has {listed})"))
                break
            if arg.type not in CPP_TYPES or arg.default != "None":
                kinds = ", ".join(f"{t} = None" for t in CPP_TYPES)
                message = f"aten's '{arg.type} {name}' must be one of {kinds} to be left out (its default: none given)"
                found.append((path, message))
                break
            before = schema.args[schema.args.index(arg) - 1].name if schema.args.index(arg) else None
            if before is not None and before not in taken and before not in spec.api.aten_unused:
                found.append((path, f"aten puts '{name}' after '{before}', which no parameter of the API is"))
                break
    if len(set(spec.api.aten_unused)) != len(spec.api.aten_unused):
        found.append((base, "names an argument twice"))
    return found
