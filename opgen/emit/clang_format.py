"""`OUT/.clang-format`: the C++ style every generated file is laid out in, for editors and reviewers' tools."""

from __future__ import annotations

from opgen.emit.templating import generated_notice
from opgen.lang.cpp_format import STYLE_FILE_NAME, style_file_text


def render_style_file(spec_names: tuple[str, ...]) -> dict[str, str]:
    # The notice names the spec folder like the other shared files; the settings are opgen's, not a spec's.
    return {STYLE_FILE_NAME: f"{generated_notice(STYLE_FILE_NAME, spec_names)}\n{style_file_text()}"}
