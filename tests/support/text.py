"""Positions in spec texts."""

from __future__ import annotations


def line_of(text: str, marker: str, occurrence: int = 1) -> int:
    """1-based line of the `occurrence`-th `marker` in `text` (ValueError when there are fewer)."""
    index = -1
    for _ in range(occurrence):
        index = text.index(marker, index + 1)
    return text.count("\n", 0, index) + 1
