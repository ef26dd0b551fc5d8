"""Diagnostics for bad specs: `file:line:col: field.path: message`, with "did you mean" suggestions."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# A path into the spec document: mapping keys and sequence indices, e.g. ("params", 2, "dtypes", 0).
FieldPath = tuple[str | int, ...]


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class Diagnostic:
    location: Location
    path: FieldPath
    message: str
    kind: str  # message class, stable for tests and tools: "unknown-key", "duplicate-key", "type", ...

    def __str__(self) -> str:
        loc = self.location
        return f"{loc.file}:{loc.line}:{loc.column}: {format_path(self.path)}: {self.message}"


class SpecError(Exception):
    """One or more diagnostics; raised only after a spec has been checked as far as possible."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.location, str(d.path)))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def format_path(path: FieldPath) -> str:
    if not path:
        return "<spec>"
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def suggest(word: str, candidates: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest candidate, or '' when nothing is close."""
    pool = list(candidates)
    matches = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not matches:
        lowered = {c.lower(): c for c in pool}
        matches = [lowered[word.lower()]] if word.lower() in lowered else []
    return f" (did you mean '{matches[0]}'?)" if matches else ""
