"""The per-operator build cache: an operator's rendered package, keyed by what it is made from.

The key of an operator is a hash of its spec's bytes, the name its generated files give it, and the
generator's fingerprint (every source and template file of the opgen package, and the formatter's
version), so an unchanged spec is neither parsed, nor validated, nor planned, nor rendered again, and any
change to the generator invalidates everything. An entry holds the operator's formatted files, its
fragments of the shared artifacts, and the names it claims across specs (with their YAML positions, for
duplicate-name diagnostics). Entries are JSON (data only, nothing is executed when one is read), written
atomically, in $OPGEN_CACHE_DIR/build (default ~/.cache/opgen/build); delete the folder freely.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import opgen
from opgen.emit.python import PythonFragment
from opgen.emit.torch_npu import TorchNpuFragment
from opgen.spec.names import ClaimedName

# Bumped when the entry layout changes.
ENTRY_FORMAT = "1"


@dataclass(frozen=True)
class OperatorArtifacts:
    op: str
    files: dict[str, str]  # path in the output tree -> text (Python already formatted)
    python: PythonFragment
    torch_npu: TorchNpuFragment
    names: tuple[ClaimedName, ...]

    def to_json(self) -> str:
        return json.dumps({"format": ENTRY_FORMAT, **asdict(self)}, ensure_ascii=False, sort_keys=True)

    @staticmethod
    def from_json(text: str) -> OperatorArtifacts | None:
        data = json.loads(text)
        if data.get("format") != ENTRY_FORMAT:
            return None
        torch = data["torch_npu"]
        return OperatorArtifacts(
            op=data["op"],
            files=dict(data["files"]),
            python=PythonFragment(
                data["python"]["source"],
                tuple(data["python"]["names"]),
                data["python"]["module"],
                data["python"]["stub"],
            ),
            torch_npu=TorchNpuFragment(
                torch["source"],
                torch["adapter_path"],
                torch["adapter"],
                tuple((e[0], e[1], bool(e[2]), e[3], tuple((k, v) for k, v in e[4])) for e in torch["entries"]),
            ),
            names=tuple(
                ClaimedName(n["kind"], n["value"], tuple(n["path"]), n["line"], n["column"]) for n in data["names"]
            ),
        )


@lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    """A hash of everything in the opgen package that can change generated output."""
    root = Path(opgen.__file__).resolve().parent
    digest = hashlib.sha256(ENTRY_FORMAT.encode())
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or relative.parts[0] == "twin" or "__pycache__" in relative.parts:
            continue  # the twin runs generated code; it does not generate any
        if path.suffix not in (".py", ".j2"):
            continue
        digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    try:
        from importlib.metadata import version

        digest.update(f"ruff {version('ruff')}".encode())
    except Exception:
        digest.update(b"ruff ?")
    return digest.hexdigest()


def operator_key(spec_bytes: bytes, notice_name: str) -> str:
    digest = hashlib.sha256(generator_fingerprint().encode())
    digest.update(notice_name.encode() + b"\0" + spec_bytes)
    return digest.hexdigest()


def cache_root() -> Path:
    base = os.environ.get("OPGEN_CACHE_DIR")
    return (Path(base) if base else Path.home() / ".cache" / "opgen") / "build"


class BuildCache:
    def __init__(self, root: Path | None = None, *, enabled: bool = True):
        self.root = root or cache_root()
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> OperatorArtifacts | None:
        if not self.enabled:
            return None
        try:
            return OperatorArtifacts.from_json(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # missing, unreadable or from another layout: rebuilt and rewritten

    def put(self, key: str, artifacts: OperatorArtifacts) -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(artifacts.to_json())
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs the next build its time
