"""Load a spec file into a validated `OpSpec`, or raise `SpecError` with every problem found.

Three passes, each reporting everything it can before stopping: YAML structure (opgen.spec.yaml_source),
field shapes (Pydantic, errors mapped back to file:line:col), then cross-references (opgen.spec.validate).
"""

from __future__ import annotations

import types
import typing
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel
from pydantic_core import ErrorDetails

from opgen.spec.backward import check_backward, derived_formula_text, forward_spec_path
from opgen.spec.diagnostics import Diagnostic, FieldPath, Location, SpecError, suggest
from opgen.spec.model import CHECK_MODELS, OpSpec
from opgen.spec.names import claimed_names
from opgen.spec.validate import check_spec, todo_problems
from opgen.spec.yaml_source import MAX_SPEC_BYTES, SourceDocument, load_yaml_documents, too_large


@dataclass(frozen=True)
class LoadedSpec:
    path: Path
    spec: OpSpec
    source: SourceDocument


def load_spec(path: Path, display_name: str | None = None) -> LoadedSpec:
    """A spec file describing one operator (see load_spec_documents for a directory's several operators)."""
    documents = load_spec_documents(path, display_name)
    if len(documents) > 1:
        raise _single(display_name or str(path), f"the spec describes {len(documents)} operators", "invalid")
    return documents[0]


def load_spec_documents(path: Path, display_name: str | None = None) -> list[LoadedSpec]:
    """Every operator a spec file describes: one per YAML document, all of one operator directory."""
    name = display_name or str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SPEC_BYTES + 1)  # never more: the file may be huge
        if len(data) > MAX_SPEC_BYTES:
            raise too_large(name, path.stat().st_size)
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _single(name, f"the spec is not valid UTF-8 (byte {exc.start})", "encoding") from None
    except OSError as exc:
        raise _single(name, f"cannot read the spec: {exc.strerror or exc}", "io") from None
    return load_spec_text_documents(text, name, path)


def load_spec_text(text: str, name: str, path: Path | None = None) -> LoadedSpec:
    """Load one spec's text (one operator), or raise SpecError."""
    documents = load_spec_text_documents(text, name, path)
    if len(documents) > 1:
        raise _single(name, f"the spec describes {len(documents)} operators", "invalid")
    return documents[0]


def load_spec_text_documents(text: str, name: str, path: Path | None = None) -> list[LoadedSpec]:
    """Load a spec file's text, every operator it describes, or raise SpecError. Every failure is a diagnostic,
    never a traceback: an unexpected exception (a bug the checks below missed) becomes an "internal error"."""
    try:
        return _load_spec_text(text, name, path)
    except SpecError:
        raise
    except Exception as exc:  # the last resort: report it, and go on with the other specs
        message = f"internal error while checking this spec: {type(exc).__name__}: {_first_line(exc)}"
        raise _single(name, message, "internal") from exc


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    return text if len(text) <= 200 else text[:200] + "..."


def _load_spec_text(text: str, name: str, path: Path | None) -> list[LoadedSpec]:
    loaded: list[LoadedSpec] = []
    problems: list[Diagnostic] = []
    for source in load_yaml_documents(text, name):
        try:
            loaded.append(_load_document(source, name, path))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise SpecError(problems)
    problems = _directory_problems(loaded)
    if problems:
        raise SpecError(problems)
    return loaded


def _load_document(source: SourceDocument, name: str, path: Path | None) -> LoadedSpec:
    if not isinstance(source.data, dict):
        raise SpecError([Diagnostic(source.location_of(()), (), "the spec must be a mapping of sections", "type")])
    # A value still TODO is reported once, as TODO (not also as the unknown name or kind it is elsewhere).
    todos = todo_problems(source)
    left = {d.path for d in todos}

    def also(problems: list[Diagnostic]) -> list[Diagnostic]:
        return todos + [d for d in problems if not any(d.path[: len(p)] == p for p in left)]

    try:
        spec = OpSpec.model_validate(source.data)
    except pydantic.ValidationError as exc:
        raise SpecError(also([_diagnostic_for(error, source) for error in exc.errors()])) from None
    problems = also(check_spec(spec, source))
    if problems:
        raise SpecError(problems)
    if spec.derivative_of is not None:
        spec = _linked_backward(spec, source, path)
    return LoadedSpec(path or Path(name), spec, source)


def _directory_problems(loaded: list[LoadedSpec]) -> list[Diagnostic]:
    """A file's operators share one directory, each with its own file stem (the first one: the directory's)."""
    problems = []
    first = loaded[0].spec.operator
    if first.file_stem != first.dir and len(loaded) > 1:
        path: FieldPath = ("operator", "stem")
        message = "the first operator of a directory keeps the directory's name as its stem"
        problems.append(Diagnostic(loaded[0].source.location_of(path), path, message, "invalid"))
    stems: dict[str, int] = {}
    for index, item in enumerate(loaded):
        operator = item.spec.operator
        if operator.dir != first.dir:
            path = ("operator", "dir")
            message = f"every operator of a spec file is in one directory: '{first.dir}', as the first says"
            problems.append(Diagnostic(item.source.location_of(path), path, message, "invalid"))
        elif operator.file_stem in stems:
            path = ("operator", "stem")
            message = (
                f"operator {index + 1} needs its own stem (file names in {first.dir}/): "
                f"'{operator.file_stem}' is operator {stems[operator.file_stem] + 1}'s"
            )
            problems.append(Diagnostic(item.source.location_of(path), path, message, "duplicate-name"))
        stems.setdefault(operator.file_stem, index)
    owners: dict[tuple[str, str], int] = {}
    for index, item in enumerate(loaded):  # across files, the build compares these names; within one, here
        for claimed in claimed_names(item.spec, item.source):
            key = (claimed.kind, claimed.value)
            owner = owners.setdefault(key, index)
            # Operators of one directory may share a header they name (aclnn_logsigmoid.h declares two APIs).
            shared = claimed.kind == "operator.dir" or (claimed.kind == "header" and item.spec.api.header is not None)
            if owner != index and not shared:
                location = Location(item.source.file, claimed.line, claimed.column)
                message = f"{claimed.kind} '{claimed.value}' is already operator {owner + 1}'s in this file"
                problems.append(Diagnostic(location, claimed.path, message, "duplicate-name"))
    return problems


# Specs being loaded by this thread, so that a derivative_of cycle is an error rather than a recursion.
_LOADING: ContextVar[tuple[Path, ...]] = ContextVar("_LOADING", default=())


def _linked_backward(spec: OpSpec, source: SourceDocument, path: Path | None) -> OpSpec:
    """The backward spec with its derived formula (if it left it out), checked against its forward spec."""
    link = spec.derivative_of
    assert link is not None
    here: FieldPath = ("derivative_of", "forward")

    def problem(field: FieldPath, message: str) -> SpecError:
        return SpecError([Diagnostic(source.location_of(field), field, message, "derivative")])

    if path is None:
        raise problem(here, "derivative_of needs the spec's folder to find the forward spec")
    forward_path = forward_spec_path(path, link)
    if forward_path.resolve() in _LOADING.get() or forward_path.resolve() == path.resolve():
        raise problem(here, f"derivative_of forms a cycle through {forward_path.name}")
    if not forward_path.is_file():
        raise problem(here, f"no forward spec {forward_path.name} beside this one")
    token = _LOADING.set(_LOADING.get() + (path.resolve(),))
    try:
        forwards = [item.spec for item in load_spec_documents(forward_path)]
    except SpecError as exc:
        first = exc.diagnostics[0]
        raise problem(here, f"the forward spec does not load: {first}") from None
    finally:
        _LOADING.reset(token)
    wanted = link.forward_type or forwards[0].operator.type
    forward = next((f for f in forwards if f.operator.type == wanted), None)
    if forward is None or (link.forward_type is None and len(forwards) > 1):
        types = ", ".join(f.operator.type for f in forwards)
        raise problem(("derivative_of", "forward_type"), f"name the forward's OpType: {forward_path.name} has {types}")
    if not spec.formula.main_expr:
        derived = derived_formula_text(spec, forward)
        spec = spec.model_copy(update={"formula": spec.formula.model_copy(update={"expr": derived})})
    found = check_backward(spec, forward, forward_path.name)
    if found:
        raise SpecError([Diagnostic(source.location_of(p.path), p.path, p.message, "derivative") for p in found])
    return spec


def _single(name: str, message: str, kind: str) -> SpecError:
    return SpecError([Diagnostic(Location(name, 1, 1), (), message, kind)])


# ------------------------------------------------------------------------------ Pydantic error mapping


def _data_path(loc: tuple[Any, ...], data: Any) -> FieldPath:
    """Pydantic locations include union tags and '[key]' markers; keep the parts that exist in the data."""
    path: list[str | int] = []
    node = data
    for part in loc:
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        ):
            path.append(part)
            node = node[part]
    return tuple(path)


def _unwrap(annotation: Any) -> list[Any]:
    """The concrete types an annotation may hold (through Optional, list, dict values, Annotated unions)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _unwrap(arg)]
    if origin in (list, tuple):
        return [t for arg in typing.get_args(annotation) if arg is not Ellipsis for t in _unwrap(arg)]
    if origin is dict:
        return _unwrap(typing.get_args(annotation)[1])
    return [annotation]


def _models_at(loc: tuple[Any, ...]) -> list[type[BaseModel]]:
    """Models whose fields are valid at a Pydantic location (for "did you mean" on unknown keys)."""
    current: list[Any] = [OpSpec]
    for part in loc:
        if isinstance(part, int) or part == "[key]":
            continue
        if part in CHECK_MODELS and not any(
            isinstance(c, type) and issubclass(c, BaseModel) and part in c.model_fields for c in current
        ):
            current = [CHECK_MODELS[part]]  # a union tag
            continue
        following: list[Any] = []
        for candidate in current:
            if isinstance(candidate, type) and issubclass(candidate, BaseModel) and part in candidate.model_fields:
                following.extend(_unwrap(candidate.model_fields[part].annotation))
        if following:
            current = following
    return [c for c in current if isinstance(c, type) and issubclass(c, BaseModel)]


def _enum_at(loc: tuple[Any, ...]) -> type[Enum] | None:
    """The enum a failing value was checked against: the field is the last model field named in `loc`."""
    for end in range(len(loc), 0, -1):
        field = loc[end - 1]
        if not isinstance(field, str):
            continue
        for model in _models_at(loc[: end - 1]):
            if field in model.model_fields:
                for t in _unwrap(model.model_fields[field].annotation):
                    if isinstance(t, type) and issubclass(t, Enum):
                        return t
                origin = model.model_fields[field].annotation
                if typing.get_origin(origin) is dict:
                    key = typing.get_args(origin)[0]
                    if isinstance(key, type) and issubclass(key, Enum):
                        return key
    return None


def _diagnostic_for(error: ErrorDetails, source: SourceDocument) -> Diagnostic:
    loc = tuple(error["loc"])
    path = _data_path(loc, source.data)
    kind = error["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        fields = sorted({f for m in _models_at(loc[:-1]) for f in m.model_fields})
        message = f"unknown key '{key}'{suggest(key, fields)}"
        if fields:
            message += f"; allowed keys: {', '.join(fields)}"
        return Diagnostic(source.location_of(path, prefer_key=True), path, message, "unknown-key")
    if kind == "missing":
        return Diagnostic(source.location_of(path), path + (loc[-1],), "required key is missing", "missing-key")
    if kind == "enum":
        enum = _enum_at(loc)
        value = str(error.get("input"))
        choices = [m.value for m in enum] if enum else []
        label = "dtype" if enum is not None and enum.__name__ == "DType" else "value"
        message = f"unknown {label} '{value}'{suggest(value, choices)}"
        if choices:
            message += f"; expected one of: {', '.join(choices)}"
        return Diagnostic(source.location_of(path), path, message, "unknown-value")
    if kind == "check_kind":
        given = error.get("input")
        name = next(iter(given)) if isinstance(given, dict) and given else str(given)
        if isinstance(given, dict) and len(given) == 1:
            message = f"unknown check kind '{name}'{suggest(name, CHECK_MODELS)}"
        else:
            message = "a check is a mapping with exactly one key"
        message += f"; expected one of: {', '.join(CHECK_MODELS)}"
        return Diagnostic(source.location_of(path), path, message, "unknown-check")
    message = error["msg"]
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
        field = getattr(error.get("ctx", {}).get("error"), "field", None)
        if field is not None:
            path = _data_path(loc + (field,), source.data)
        return Diagnostic(source.location_of(path), path, message, "invalid")
    return Diagnostic(source.location_of(path), path, message, "type")
