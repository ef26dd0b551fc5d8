"""Which operator packages a program needs: the packages whose headers its sources include.

A program that includes `aclnnop/aclnn_leaky_relu.h` needs leaky_relu's package and the twin, nothing else,
so `opgen cc` compiles only those (the cost of a program grows with the operators it uses, not with the
operators in the ops dir). The scan is textual: every `#include` line of the user's sources, and of the
user's own headers they include (followed recursively), whatever the preprocessor conditions around it, so
it may select a package too many, never one too few of those named in an include. An include is resolved
as g++ does for the quoted form (the including file's folder, then the include dirs in order); one that
resolves into a package's folder, or names `aclnnop/<header>` of a package, selects that package. The
twin's and the system's headers are not followed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.M)
ACLNNOP = "aclnnop/"


def includes_of(text: str) -> list[tuple[bool, str]]:
    """(quoted, name) of each `#include` line in `text`."""
    return [(match.group(1) == '"', match.group(2).strip()) for match in _INCLUDE.finditer(text)]


def _inside(path: Path, roots: Sequence[Path]) -> Path | None:
    for root in roots:
        if path == root or root in path.parents:
            return root
    return None


def needed_packages(
    sources: Iterable[Path],
    packages: Sequence[Path],
    aclnn_headers: dict[str, Path],
    include_dirs: Sequence[Path],
) -> list[Path]:
    """The roots among `packages` (resolved paths) that `sources` include a header of, in `packages` order.

    `aclnn_headers`: header name -> package root, for `aclnnop/<name>`; `include_dirs`: the user's and the
    packages' include dirs, searched in order after the including file's folder."""
    found: set[Path] = set()
    seen: set[Path] = set()
    pending = [path.resolve() for path in sources]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for quoted, name in includes_of(text):
            if name.startswith(ACLNNOP) and name[len(ACLNNOP) :] in aclnn_headers:
                found.add(aclnn_headers[name[len(ACLNNOP) :]])
                continue
            candidates = ([path.parent] if quoted else []) + list(include_dirs)
            for directory in candidates:
                target = directory / name
                if not target.is_file():
                    continue
                target = target.resolve()
                package = _inside(target, packages)
                if package is not None:
                    found.add(package)  # a package's own headers include nothing of another package
                else:
                    pending.append(target)
                break
    return [root for root in packages if root in found]
