"""Target-language text: escapers, literal formatters and reserved names, one module per language.

Everything a generator writes into a target language is either built by these functions or is `Code`
that the generator itself assembled from validated identifiers and from these functions' results. The
template layer (`opgen.emit.templating`) refuses any plain `str`, so spec text cannot reach a generated
file without passing through the escaper of the language it lands in.
"""

from __future__ import annotations

import re


class Code(str):
    """Text that is already valid in the target language it is rendered into (escaped or generated)."""

    __slots__ = ()


def code(text: str) -> Code:
    """Mark generator-built text (identifiers already validated, literals already escaped) as code."""
    return text if isinstance(text, Code) else Code(text)


def join(items: list[Code] | tuple[Code, ...], separator: str) -> Code:
    """Join pieces of code; every piece must itself be code."""
    for item in items:
        if not isinstance(item, Code):
            raise TypeError(f"unescaped text in generated code: {item!r}")
    return Code(separator.join(items))


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def ident(name: str) -> Code:
    """An identifier (validated when the spec was checked); anything else here is a generator bug."""
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"not an identifier: {name!r}")
    return Code(name)


def idents(names: list[str] | tuple[str, ...]) -> list[Code]:
    return [ident(name) for name in names]
