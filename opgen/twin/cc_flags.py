"""Which of the compile flags given to `opgen cc` reach which translation units.

The library (the twin's sources and the operator packages) is compiled once per SoC and per set of flags
that change its objects, and reused whatever else the user passes; the user's own sources get every flag.
The rule:

* user's sources only: preprocessor input (-D, -U, -I, -iquote, -isystem, -idirafter, -include, -imacros,
  -Wp,...) and diagnostics (-W..., -w, -pedantic, -pedantic-errors, -fdiagnostics-..., -fmax-errors=, ...).
  They only change what the user's code sees or which warnings it gets.
* every unit: everything else, i.e. what changes the generated code or the ABI of a whole program: -O, -g,
  -f... (e.g. -fsanitize=, -fno-exceptions), -m... (e.g. -m32, -march=), -std= (the twin's headers are
  compiled into both sides, and their inline code must mean the same in both), -pthread, -Wa,..., and any
  flag opgen cc does not know.
* every unit too: -D/-U of a name reserved for the implementation (a leading underscore and a capital or
  a second underscore: _GLIBCXX_DEBUG, _GLIBCXX_USE_CXX11_ABI, _FILE_OFFSET_BITS, ...). Such macros configure
  the standard library and the platform, whose types both sides share; a user's own macro never has one.
* the packages' sources only: what `--ops-flag FLAG` names (e.g. -Wall to see the packages' warnings).
"""

from __future__ import annotations

import re

# Flags whose value is a path or header: they act only through the preprocessor.
INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros")
MACRO_FLAGS = ("-D", "-U")
PREPROCESSOR_VALUE_FLAGS = INCLUDE_FLAGS + MACRO_FLAGS

# Diagnostics that are not spelled -W...: they change no object.
_DIAGNOSTIC_EXACT = {"-w", "-pedantic", "-pedantic-errors", "-Wpedantic"}
_DIAGNOSTIC_PREFIXES = (
    "-fdiagnostics-",
    "-fno-diagnostics-",
    "-fmax-errors=",
    "-fmessage-length=",
    "-ftemplate-backtrace-limit=",
    "-fconcepts-diagnostics-depth=",
    "-fno-show-column",
    "-fshow-column",
)
# Reserved for the implementation (C++ [lex.name]): what configures the standard library and platform.
_RESERVED_NAME = re.compile(r"_[A-Z_]")


def pairs(flags: list[str]) -> list[list[str]]:
    """`flags` grouped as given: a flag that takes a separate value together with it (`-D X`, `-include h`)."""
    grouped: list[list[str]] = []
    index = 0
    while index < len(flags):
        flag = flags[index]
        if flag in PREPROCESSOR_VALUE_FLAGS and index + 1 < len(flags):
            grouped.append([flag, flags[index + 1]])
            index += 2
        else:
            grouped.append([flag])
            index += 1
    return grouped


def _macro_name(group: list[str]) -> str | None:
    """The macro a -D/-U group names (`-DX=1`, `-D X`), else None."""
    flag = group[0]
    if flag in MACRO_FLAGS:
        text = group[1] if len(group) > 1 else ""
    elif flag.startswith(MACRO_FLAGS):
        text = flag[2:]
    else:
        return None
    return text.split("=", 1)[0].split("(", 1)[0]


def reaches_library(group: list[str]) -> bool:
    """Whether a flag (with its value, see `pairs`) is compiled into the twin and the packages too."""
    flag = group[0]
    name = _macro_name(group)
    if name is not None:
        return _RESERVED_NAME.match(name) is not None
    if flag in INCLUDE_FLAGS or flag.startswith(INCLUDE_FLAGS) or flag.startswith("-Wp,"):
        return False
    if flag.startswith("-W"):
        return flag.startswith("-Wa,")  # the assembler's options change objects; the rest are warnings
    return flag not in _DIAGNOSTIC_EXACT and not flag.startswith(_DIAGNOSTIC_PREFIXES)


def library_flags(flags: list[str]) -> list[str]:
    """The user's compile flags that the twin and the packages are compiled with too."""
    return [part for group in pairs(flags) if reaches_library(group) for part in group]
