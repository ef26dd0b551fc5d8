"""Markdown/HTML text of the generated docs.

Spec prose is Markdown with the few inline HTML elements the ops-nn docs use (lists, line breaks, <term>,
emphasis, code, relative links), so it cannot be escaped wholesale; instead it is sanitised: any other tag,
comment or declaration is shown as text, link targets cannot use a script scheme, control characters are
shown as character references, and text that lands in a table cell or a math block stays inside it.
"""

from __future__ import annotations

import re

from opgen.lang import Code

# Inline elements spec prose may use, without attributes (an <a> takes an href and a target).
ALLOWED_TAGS = frozenset({"ul", "ol", "li", "br", "term", "b", "i", "em", "strong", "code", "sup", "sub", "p"})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:\s[^<>]*)?)(/?)>")
_ANCHOR_ATTRS = re.compile(r'\s+href="([^"<>]*)"(\s+target="_blank")?\s*')
_SCRIPT_SCHEME = re.compile(r"^\s*(javascript|vbscript|data|file):", re.IGNORECASE)
_MD_LINK = re.compile(r"\]\(\s*(javascript|vbscript|data|file):", re.IGNORECASE)


def _controls(text: str) -> str:
    return "".join(c if c.isprintable() or c in "\n\t" else f"&#{ord(c)};" for c in text)


def _tag_allowed(match: re.Match[str]) -> bool:
    closing, name, attrs, self_closing = match.groups()
    name = name.lower()
    if name == "a" and not closing:
        anchor = _ANCHOR_ATTRS.fullmatch(attrs)
        return anchor is not None and not _SCRIPT_SCHEME.match(anchor.group(1)) and not self_closing
    if name == "a":
        return not attrs.strip()
    return name in ALLOWED_TAGS and not attrs.strip()


_MARKUP_START = re.compile(r"<(?=[A-Za-z/!?])")


def text(value: str) -> Code:
    """Markdown prose with the allowed inline HTML kept and any other markup shown as text.

    A `<` that cannot start markup (`self < 0`) stays as written; one that could is escaped unless it opens
    an allowed element.
    """
    out = []
    position = 0
    for match in _TAG.finditer(value):
        out.append(_MARKUP_START.sub("&lt;", value[position : match.start()]))
        out.append(match.group(0) if _tag_allowed(match) else "&lt;" + match.group(0)[1:])
        position = match.end()
    out.append(_MARKUP_START.sub("&lt;", value[position:]))
    sanitised = _MD_LINK.sub(lambda m: "](#" + m.group(1) + ":", "".join(out))
    return Code(_controls(sanitised))


def html_cell(value: str) -> Code:
    """Prose for one cell of an HTML table: one line (a line break becomes <br>)."""
    return Code("<br>".join(text(value).split("\n")))


def cell(value: str) -> Code:
    """Prose for one cell of a pipe table: one line, no cell separator."""
    return Code(html_cell(value).replace("|", "\\|"))


def math(value: str) -> Code:
    """TeX for inside a `$$` block: it cannot close the block or start raw HTML."""
    single = " ".join(value.splitlines())
    return Code(_controls(single).replace("$", "\\$").replace("<", "\\lt ").replace(">", "\\gt "))


def comment(value: str) -> Code:
    """Text inside `<!-- ... -->`: it cannot end the comment."""
    single = " ".join(value.splitlines())
    return Code(_controls(single).replace("--", "- -").replace(">", "&gt;"))
