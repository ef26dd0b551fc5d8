"""The one error type of the formula language: a message plus the 0-based column it points at."""

from __future__ import annotations


class FormulaError(ValueError):
    """Bad formula text (syntax, names or types).

    `column` is a 0-based offset into the formula text. When the formula text is known (`text`),
    `str()` shows it with a caret under the offending column so spec authors see where to look.
    """

    def __init__(self, message: str, column: int, text: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.text = text

    def with_text(self, text: str) -> FormulaError:
        """The same error, carrying the formula text it refers to."""
        return FormulaError(self.message, self.column, text)

    def __str__(self) -> str:
        if self.text is None:
            return f"{self.message} (column {self.column})"
        return f"{self.message} (column {self.column})\n  {self.text}\n  {' ' * self.column}^"

    def __reduce__(self):  # keep pickling (e.g. pytest-xdist) working with the extra fields
        return (FormulaError, (self.message, self.column, self.text))
