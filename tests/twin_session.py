"""One twin library per test session: the CPU twin and every generated package, compiled once.

The library is the `opgen_ops` binding's own library of every package (`opgen_ops._runtime.twin_library`,
which the binding loads because tests/conftest.py sets OPGEN_OPS_ALL=1; a user's binding builds one library per
package on its first call instead), so the binding, the C++ test programs (linked against it with
`opgen cc --twin-lib`) and worker subprocesses share one build. The
binding builds it under a file lock: with xdist, the first worker compiles and the others wait for it, and
a warm session finds it in the cache. The compiler's output per generated source (the packages are compiled
with -Wall -Wextra) is read back from the object cache without linking, so tests that assert "no warnings"
need no compile of their own.

Test programs are linked into `$OPGEN_CACHE_DIR/test-programs/<library>/` (default ~/.cache/opgen; safe to
delete), not a tmp dir, so a warm session relinks nothing: `opgen cc` skips a link whose inputs are unchanged.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen.twin.compiler import compile_objects, compile_program, parse_args


@dataclass(frozen=True)
class TwinLibrary:
    path: Path
    warnings: dict[Path, str]  # the compiler's output per source (resolved path); "" when clean

    def program(self, name: str, sources: list[Path], *, ops_dirs: list[Path], flags: Sequence[str] = ()) -> Path:
        """`sources` linked against this library as the program `name` (unique per test program), built
        once per change of its inputs; concurrent sessions take turns."""
        directory = programs_dir() / self.path.stem  # per library: checkouts sharing a cache do not collide
        directory.mkdir(parents=True, exist_ok=True)
        output = directory / name
        with open(directory / f".{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            compile_program(sources, output, ops_dirs=ops_dirs, flags=list(flags), twin_lib=self.path)
        return output


def programs_dir() -> Path:
    root = os.environ.get("OPGEN_CACHE_DIR")
    return (Path(root) if root else Path.home() / ".cache" / "opgen") / "test-programs"


def build_twin_library() -> TwinLibrary:
    """The session's twin library (built, or found): its path and its sources' warnings."""
    from opgen_ops import _runtime

    path = _runtime.twin_library()
    result, _ = compile_objects(parse_args(_runtime.twin_library_args(path)))
    return TwinLibrary(path, {source.resolve(): text for source, text in result.warnings.items()})
