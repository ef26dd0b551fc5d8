"""Markdown/HTML text of the generated docs.

Spec text meant as Markdown (the 算子功能 text, notes) is kept as Markdown but cannot open a raw HTML
element or close the HTML comment of the generated-file notice; text that lands in a table cell keeps to
one cell.
"""

from __future__ import annotations

import html

from opgen.lang import Code


def _controls(text: str) -> str:
    return "".join(c if c.isprintable() or c in "\n\t" else f"&#{ord(c)};" for c in text)


def text(value: str) -> Code:
    """Markdown prose: HTML-significant characters are escaped, Markdown syntax (`$`, `*`, links) is kept."""
    return Code(_controls(html.escape(value, quote=False)))


def cell(value: str) -> Code:
    """One cell of an HTML or pipe table: one line, no cell separator."""
    one_line = "<br>".join(text(value).split("\n"))
    return Code(one_line.replace("|", "\\|"))


def comment(value: str) -> Code:
    """Text inside `<!-- ... -->`: it cannot end the comment."""
    single = " ".join(value.splitlines())
    return Code(_controls(single).replace("--", "- -").replace(">", "&gt;"))
