"""What a name in a formula stands for, as told by the caller's symbol table."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class SymbolKind(Enum):
    TENSOR = "tensor"  # elementwise device data: a number that varies per element
    SCALAR = "scalar"  # host scalar (aclScalar or float attribute): a number known before launch
    FLAG = "flag"  # host bool attribute that selects a mode (e.g. isResult); becomes a tiling key
    STRING = "string"  # host string attribute from a fixed set (e.g. approximate); compared with "literals"


@dataclass(frozen=True)
class Symbol:
    kind: SymbolKind

    @classmethod
    def tensor(cls) -> Symbol:
        return cls(SymbolKind.TENSOR)

    @classmethod
    def scalar(cls) -> Symbol:
        return cls(SymbolKind.SCALAR)

    @classmethod
    def flag(cls) -> Symbol:
        return cls(SymbolKind.FLAG)

    @classmethod
    def string(cls) -> Symbol:
        return cls(SymbolKind.STRING)
