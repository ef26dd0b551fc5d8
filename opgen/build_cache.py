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
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import opgen
from opgen.emit.python import PythonFragment
from opgen.emit.torch_npu import TorchNpuFragment
from opgen.spec.names import ClaimedName

# Bumped when the entry layout changes.
ENTRY_FORMAT = "2"


@dataclass(frozen=True)
class OperatorArtifacts:
    """Everything an operator contributes to a build (what an entry holds)."""

    op: str
    files: dict[str, str]  # path in the output tree -> text (Python already formatted)
    python: PythonFragment
    torch_npu: TorchNpuFragment
    names: tuple[ClaimedName, ...]


@dataclass(frozen=True)
class EntryMeta:
    """An entry without its files: what a build keeps of an operator while it runs."""

    op: str
    files_path: Path  # the entry's files, read only when a file is compared or written
    file_names: tuple[str, ...]
    python: PythonFragment
    torch_npu: TorchNpuFragment
    names: tuple[ClaimedName, ...]

    def to_json(self) -> str:
        data = asdict(self)
        data["files_path"] = self.files_path.name
        return json.dumps({"format": ENTRY_FORMAT, **data}, ensure_ascii=False, sort_keys=True)

    @staticmethod
    def from_json(text: str, folder: Path) -> EntryMeta | None:
        data = json.loads(text)
        if data.get("format") != ENTRY_FORMAT:
            return None
        python, torch = data["python"], data["torch_npu"]
        return EntryMeta(
            op=data["op"],
            files_path=folder / data["files_path"],
            file_names=tuple(data["file_names"]),
            python=PythonFragment(python["source"], tuple(python["names"]), python["module"], python["stub"]),
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
    """Entries on disk, one per operator key: `<key>.files.json` (the texts) and `<key>.json` (the rest; written
    last, so it marks a complete entry). A disabled cache still stages a build's entries on disk (in a folder
    of its own, removed with the cache object), so a build never holds every file in memory."""

    def __init__(self, root: Path | None = None, *, enabled: bool = True):
        self.enabled = enabled
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        if enabled:
            self.root = root or cache_root()
        else:
            self._scratch = tempfile.TemporaryDirectory(prefix="opgen-build-")
            self.root = Path(self._scratch.name)

    def _meta_path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> EntryMeta | None:
        """The entry of `key`, or None when it is missing, unreadable or of another layout (then rebuilt)."""
        if not self.enabled:
            return None
        path = self._meta_path(key)
        try:
            meta = EntryMeta.from_json(path.read_text(encoding="utf-8"), path.parent)
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None
        return meta if meta is not None and meta.files_path.is_file() else None

    def put(self, key: str, artifacts: OperatorArtifacts) -> EntryMeta:
        """Write the entry (each file atomically). Raises OSError when it cannot be written."""
        meta_path = self._meta_path(key)
        meta_path.parent.mkdir(parents=True, exist_ok=True)
        files_path = meta_path.with_name(f"{key}.files.json")
        _write_atomically(files_path, json.dumps(artifacts.files, ensure_ascii=False, sort_keys=True))
        meta = EntryMeta(
            artifacts.op, files_path, tuple(artifacts.files), artifacts.python, artifacts.torch_npu, artifacts.names
        )
        _write_atomically(meta_path, meta.to_json())
        return meta

    def get_shared(self, key: str) -> dict[str, str] | None:
        """Files built from every operator's fragments (see `shared_key`), or None."""
        return read_files(self.root / "shared" / f"{key}.json") if self.enabled else None

    def put_shared(self, key: str, files: dict[str, str]) -> None:
        path = self.root / "shared" / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(path, json.dumps(files, ensure_ascii=False, sort_keys=True))


def shared_key(metas: list[EntryMeta]) -> str:
    """The key of the shared artifacts: the generator and every operator's fragments, in order."""
    digest = hashlib.sha256(generator_fingerprint().encode())
    for meta in metas:
        digest.update(json.dumps([asdict(meta.python), asdict(meta.torch_npu)], sort_keys=True).encode() + b"\0")
    return digest.hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:8]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_files(path: Path) -> dict[str, str] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class EntryFiles(Mapping[str, bytes]):
    """The files of many entries as one read-only mapping, read from disk when asked for: the last entry
    read is kept (paths are usually visited package by package), so memory does not grow with the build."""

    def __init__(self, entries: dict[str, Path], extra: dict[str, bytes]):
        self._where = entries  # file path -> the entry's files holding it
        self._extra = extra  # files that are in no entry (the shared artifacts)
        self._loaded: tuple[Path, dict[str, str]] | None = None

    def __getitem__(self, rel: str) -> bytes:
        if rel in self._extra:
            return self._extra[rel]
        entry = self._where[rel]
        if self._loaded is None or self._loaded[0] != entry:
            files = read_files(entry)
            if files is None:
                raise KeyError(f"{rel}: its build cache entry {entry} is gone")
            self._loaded = (entry, files)
        return self._loaded[1][rel].encode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(sorted([*self._where, *self._extra]))

    def __len__(self) -> int:
        return len(self._where) + len(self._extra)
