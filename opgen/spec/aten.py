"""What aten really offers: every `aten::` schema of the pinned torch, parsed on demand, without torch.

The spec names its aten counterpart (`api.aten`); from this table the generator knows which variants aten
has (functional, in-place `name_`, an out overload and the name of its out argument: `out`, `grad_input`,
`output`/`buffer`, ...), each argument's name, order, type, default and whether it is keyword-only, and how many
tensors the op returns. The data file `aten_schemas.txt` holds one schema per line exactly as torch prints it;
`python -m opgen.spec.aten --refresh` rewrites it from the installed torch (a test keeps it in sync with the
pinned version). torch itself is never imported here, so users without torch still generate bindings.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DATA_FILE = Path(__file__).with_name("aten_schemas.txt")
_HEADER = "# aten schemas of torch "


class SchemaSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class AtenArg:
    name: str
    type: str  # without the alias annotation: `Tensor`, `Tensor?`, `Scalar`, `int[]`, `str`, ...
    default: str | None  # as torch prints it: `1`, `"none"`, `None`, `[0, 1]`, ...
    kwarg_only: bool
    mutated: bool  # annotated `(a!)`: the op writes into it

    @property
    def is_tensor(self) -> bool:
        return self.type in ("Tensor", "Tensor?")

    @property
    def optional(self) -> bool:
        return self.type.endswith("?")


@dataclass(frozen=True)
class AtenReturn:
    name: str | None
    type: str
    mutated: bool


@dataclass(frozen=True)
class AtenSchema:
    name: str  # without the `aten::` namespace
    overload: str  # "" for the default overload
    args: tuple[AtenArg, ...]
    returns: tuple[AtenReturn, ...]
    varargs: bool = False  # `...`: TorchScript builtins such as aten::format

    @property
    def qualified(self) -> str:
        return f"aten::{self.name}" + (f".{self.overload}" if self.overload else "")

    @property
    def positional(self) -> tuple[AtenArg, ...]:
        return tuple(arg for arg in self.args if not arg.kwarg_only)

    @property
    def out_args(self) -> tuple[AtenArg, ...]:
        """The tensors an out overload writes (keyword-only, mutated), e.g. (grad_input,) or (output, buffer)."""
        return tuple(arg for arg in self.args if arg.kwarg_only and arg.mutated and arg.is_tensor)

    @property
    def is_out_overload(self) -> bool:
        outs = self.out_args
        return bool(outs) and len(outs) == len(self.returns) and all(r.mutated for r in self.returns)

    def arg(self, name: str) -> AtenArg | None:
        return next((arg for arg in self.args if arg.name == name), None)


@dataclass(frozen=True)
class AtenOp:
    """The variants of one aten op name that a binding can mirror."""

    name: str
    functional: AtenSchema | None  # `name(...)` returning new tensors
    inplace: AtenSchema | None  # `name_(Tensor(a!) self, ...)`
    out: AtenSchema | None  # the out overload of `name` with the functional's arguments, if aten has one

    @property
    def returns(self) -> int:
        schema = self.functional or self.out or self.inplace
        return len(schema.returns) if schema else 0


# ---------------------------------------------------------------------------------------------- parsing


def _code_chars(text: str) -> Iterator[tuple[int, str]]:
    """(index, char) of every character outside string literals (which may hold escaped quotes)."""
    quote, escaped = "", False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        else:
            yield index, char


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets, parentheses and string literals."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in _code_chars(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_ALIAS = re.compile(r"\((?P<set>[a-z]+(?:\s*->\s*\*)?)(?P<bang>!?)\)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEAD = re.compile(r"^aten::(?P<name>[A-Za-z0-9_]+)(?:\.(?P<overload>[A-Za-z0-9_]+))?\((?P<rest>.*)$", re.S)


def _type_of(text: str) -> tuple[str, bool]:
    """`Tensor(a!)` -> ("Tensor", True); `Tensor(a)[]` -> ("Tensor[]", False); `Dict(str, t)` unchanged."""
    match = _ALIAS.search(text)
    if match is None:
        return text, False
    return text[: match.start()] + text[match.end() :], bool(match.group("bang"))


def _type_and_name(text: str) -> tuple[str, str | None]:
    """Split `Dict(str, t)(a!) self` at its last space outside brackets; a lone type has no name."""
    depth = 0
    split = -1
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == " " and depth == 0:
            split = index
    if split < 0 or not _NAME.fullmatch(text[split + 1 :]):
        return text, None
    return text[:split].strip(), text[split + 1 :]


def _parse_arg(text: str, kwarg_only: bool) -> AtenArg:
    declaration, _, default = text.partition("=")
    type_text, name = _type_and_name(declaration.strip())
    if name is None:
        raise SchemaSyntaxError(f"cannot read argument {text!r}")
    type_, mutated = _type_of(type_text)
    return AtenArg(name, type_, default.strip() if default else None, kwarg_only, mutated)


def _parse_return(text: str) -> AtenReturn:
    type_text, name = _type_and_name(text.strip())
    type_, mutated = _type_of(type_text)
    return AtenReturn(name, type_, mutated)


def _closing_paren(text: str) -> int:
    depth = 1
    for index, char in _code_chars(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    raise SchemaSyntaxError("unbalanced parentheses")


def parse_schema(line: str) -> AtenSchema:
    """One schema as torch prints it, e.g. `aten::gelu(Tensor self, *, str approximate="none") -> Tensor`."""
    head = _HEAD.match(line.strip())
    if head is None:
        raise SchemaSyntaxError(f"not an aten schema: {line!r}")
    rest = head.group("rest")
    end = _closing_paren(rest)
    args: list[AtenArg] = []
    kwarg_only = varargs = False
    for part in _split_top_level(rest[:end]):
        if part == "*":
            kwarg_only = True
            continue
        if part == "...":
            varargs = True
            continue
        args.append(_parse_arg(part, kwarg_only))
    arrow = rest[end + 1 :].strip()
    if not arrow.startswith("->"):
        raise SchemaSyntaxError(f"no return type in {line!r}")
    returned = arrow[2:].strip()
    if returned == "...":
        returns: tuple[AtenReturn, ...] = ()
    elif returned.startswith("(") and returned.endswith(")"):
        returns = tuple(_parse_return(part) for part in _split_top_level(returned[1:-1]))
    else:
        returns = (_parse_return(returned),)
    return AtenSchema(head.group("name"), head.group("overload") or "", tuple(args), returns, varargs)


# ---------------------------------------------------------------------------------------------- the table


@functools.cache
def _lines_by_name() -> dict[str, tuple[str, ...]]:
    by_name: dict[str, list[str]] = {}
    for line in DATA_FILE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        head = _HEAD.match(line)
        if head is None:
            raise SchemaSyntaxError(f"{DATA_FILE.name}: not an aten schema: {line!r}")
        by_name.setdefault(head.group("name"), []).append(line)
    return {name: tuple(lines) for name, lines in by_name.items()}


def torch_version() -> str:
    """The torch version the data file was taken from."""
    with DATA_FILE.open(encoding="utf-8") as data:
        first = data.readline()
    return first[len(_HEADER) :].strip() if first.startswith(_HEADER) else ""


def known_names() -> frozenset[str]:
    return frozenset(_lines_by_name())


def schemas(name: str) -> tuple[AtenSchema, ...]:
    """Every overload of `name` (no namespace), default overload first as torch lists them."""
    return tuple(parse_schema(line) for line in _lines_by_name().get(name, ()))


def _same_inputs(out: AtenSchema, functional: AtenSchema) -> bool:
    inputs = tuple(arg for arg in out.args if arg not in out.out_args)
    return [(a.name, a.type) for a in inputs] == [(a.name, a.type) for a in functional.args]


@functools.cache
def aten_op(name: str) -> AtenOp | None:
    """The variants aten has for `name` (no namespace, no trailing `_`), or None if aten has no such op."""
    overloads = schemas(name)
    inplace = next((s for s in schemas(name + "_") if s.overload == ""), None)
    if not overloads and inplace is None:
        return None
    functional = next((s for s in overloads if s.overload == "" and not s.out_args), None)
    out = None
    if functional is not None:
        out = next((s for s in overloads if s.is_out_overload and _same_inputs(s, functional)), None)
    return AtenOp(name, functional, inplace, out)


def has_out_overload(name: str) -> bool:
    """Whether aten offers `name` with an out= overload (selu and mish_backward have none)."""
    op = aten_op(name)
    return op is not None and op.out is not None


# ---------------------------------------------------------------------------------------------- refresh


def _torch_lines() -> Iterator[str]:
    import torch  # only the refresh needs torch

    lines = {str(s) for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")}
    yield from sorted(lines)


def render_data_file() -> str:
    import torch

    return "\n".join([_HEADER + torch.__version__.split("+")[0], *_torch_lines()]) + "\n"


def main(argv: list[str]) -> int:
    if argv != ["--refresh"]:
        print("usage: python -m opgen.spec.aten --refresh   (rewrites the schema table from the installed torch)")
        return 2
    DATA_FILE.write_text(render_data_file(), encoding="utf-8")
    print(f"wrote {DATA_FILE} ({len(known_names())} op names)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
