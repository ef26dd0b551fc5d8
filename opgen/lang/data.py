"""Data and build-file text: YAML, JSON and CMake scalars and comments."""

from __future__ import annotations

import json

from opgen.lang import Code


def json_string(text: str) -> Code:
    """A JSON string (also a valid YAML double-quoted scalar): ASCII only, every control escaped."""
    return Code(json.dumps(text, ensure_ascii=True))


yaml_string = json_string


def yaml_text(text: str) -> Code:
    """A YAML double-quoted scalar that keeps printable non-ASCII text readable (for files people edit)."""
    escaped = []
    for char in text:
        if char in '"\\' or not char.isprintable() or char in "\u2028\u2029\ufeff":
            escaped.append(json.dumps(char, ensure_ascii=True)[1:-1])
        else:
            escaped.append(char)
    return Code('"' + "".join(escaped) + '"')


def hash_comment(text: str) -> Code:
    """Text for one `#` comment line in YAML, CMake or shell: line breaks shown escaped."""
    return Code("".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text))


def cmake_string(text: str) -> Code:
    """A CMake quoted argument holding `text` (no variable or generator-expression expansion)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace(";", "\\;")
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return Code(f'"{escaped}"')
