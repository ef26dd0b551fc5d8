"""The per-operator build cache: an operator's rendered package, keyed by what it is made from.

The key of an operator is a hash of its spec's bytes, the name its generated files give it, and the
generator's fingerprint (every source and package data file of the opgen package, and the formatter's
version), so an unchanged spec is neither parsed, nor validated, nor planned, nor rendered again, and any
change to the generator invalidates everything. An entry holds the operator's formatted files, its
fragments of the shared artifacts, and the names it claims across specs (with their YAML positions, for
duplicate-name diagnostics). Entries are JSON (data only, nothing is executed when one is read), written
atomically, in $OPGEN_CACHE_DIR/build (default ~/.cache/opgen/build); delete the folder freely.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import importlib.util
import json
import os
import tempfile
import time
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import opgen
from opgen.emit.python import PythonFragment
from opgen.emit.torch_npu import TorchNpuFragment
from opgen.output_tree import content_digest, safe_relative
from opgen.spec.names import ClaimedName

# Bumped when the entry layout changes.
ENTRY_FORMAT = "4"


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
    file_digests: tuple[str, ...]  # content_digest of each file's bytes, in file_names order
    python: PythonFragment
    torch_npu: TorchNpuFragment
    names: tuple[ClaimedName, ...]
    fragments_digest: str  # of `python` and `torch_npu`: what the shared artifacts depend on (see shared_key)

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
            file_digests=tuple(data["file_digests"]),
            python=PythonFragment(python["source"], tuple(python["names"]), python["module"], python["stub"]),
            torch_npu=TorchNpuFragment(
                torch["source"],
                tuple((a[0], a[1]) for a in torch["adapters"]),
                tuple((e[0], e[1], bool(e[2]), e[3], tuple((k, v) for k, v in e[4])) for e in torch["entries"]),
            ),
            names=tuple(
                ClaimedName(n["kind"], n["value"], tuple(n["path"]), n["line"], n["column"]) for n in data["names"]
            ),
            fragments_digest=data["fragments_digest"],
        )


# A generator source changed less than this before its fingerprint was taken is not recorded by its stat:
# longer than any file system's timestamp granularity (FAT's 2 s is the coarsest in use), so an edit made
# after the sources were read always shows in their stat.
SETTLE_NS = 3_000_000_000


def _package_data(root: Path) -> list[str] | None:
    """The package-data patterns pyproject.toml declares for the package at `root` (a source checkout), or None
    where there is no such declaration (an installed package holds its sources and data files only)."""
    pyproject = root.parent / "pyproject.toml"
    try:
        declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    patterns = declared.get("tool", {}).get("setuptools", {}).get("package-data", {}).get(root.name)
    return [str(p) for p in patterns] if isinstance(patterns, list) else None


def _generator_sources(root: Path) -> list[tuple[str, Path]]:
    """The files below `root` that can change generated output, by relative path, sorted: its Python sources
    and its package data (templates, aten's schemas, ...), as the project declares them."""
    patterns = _package_data(root)
    # fnmatch's `*` crosses '/', so `templates/**/*` is `templates/*`
    globs = None if patterns is None else [p.replace("**/", "") for p in patterns]
    found: list[tuple[str, Path]] = []
    folders = [(root, "")]
    while folders:
        folder, prefix = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = f"{prefix}{entry.name}"
                if entry.is_dir():
                    if rel != "twin" and entry.name != "__pycache__":  # the twin runs generated code only
                        folders.append((Path(entry.path), f"{rel}/"))
                elif entry.is_file() and not entry.name.endswith((".pyc", ".pyo")):
                    data = globs is None or any(fnmatch.fnmatchcase(rel, glob) for glob in globs)
                    if entry.name.endswith(".py") or data:
                        found.append((rel, Path(entry.path)))
    return sorted(found)


def _stat_of(path: Path | None) -> list[int]:
    if path is None:
        return []
    st = path.stat()
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


# The formatters whose output is part of every generated file (their distribution and import names).
FORMATTERS = (("ruff", "ruff"), ("clang-format", "clang_format"))


def _formatter_versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for distribution, _ in FORMATTERS:
        try:
            found.append(f"{distribution} {version(distribution)}")
        except PackageNotFoundError:
            found.append(f"{distribution} ?")
    return ", ".join(found)


def _formatter_modules() -> list[Path | None]:
    """The formatters' package files: an install or upgrade of one replaces it (found without importing it)."""
    found = []
    for _, module in FORMATTERS:
        spec = importlib.util.find_spec(module)
        found.append(Path(spec.origin) if spec is not None and spec.origin else None)
    return found


def package_fingerprint(root: Path, record: Path | None) -> str:
    """A hash of `root`'s generator sources and the formatter's version. Reading and hashing them costs more
    than the rest of a no-op build, so the result is kept in `record` with the stat of every file it covers,
    and reused while every stat is the same."""
    sources = _generator_sources(root)
    formatters = _formatter_modules()
    stats = [_stat_of(path) for _, path in sources] + [_stat_of(path) for path in formatters]
    labels = [rel for rel, _ in sources] + [distribution for distribution, _ in FORMATTERS]
    signature = [[rel, *st] for rel, st in zip(labels, stats, strict=True)]
    if record is not None:
        known = _read_json(record)
        if isinstance(known, dict) and known.get("format") == ENTRY_FORMAT and known.get("signature") == signature:
            return str(known["fingerprint"])
    started = time.time_ns()
    digest = hashlib.sha256(ENTRY_FORMAT.encode())
    for rel, path in sources:
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(_formatter_versions().encode())
    fingerprint = digest.hexdigest()
    settled = all(max(st[-2:], default=0) < started - SETTLE_NS for st in stats)
    if record is not None and settled:
        with contextlib.suppress(OSError):  # not kept: the next build hashes again
            record.parent.mkdir(parents=True, exist_ok=True)
            entry = {"format": ENTRY_FORMAT, "signature": signature, "fingerprint": fingerprint}
            _write_atomically(record, json.dumps(entry))
    return fingerprint


@lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    """A hash of everything in the opgen package that can change generated output."""
    root = Path(opgen.__file__).resolve().parent
    # One record per checkout: worktrees sharing a cache would otherwise overwrite each other's.
    record = cache_root() / "fingerprints" / f"{hashlib.sha256(str(root).encode()).hexdigest()[:32]}.json"
    return package_fingerprint(root, record)


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

    @property
    def output_records(self) -> Path | None:
        """Where write_tree keeps what it last saw of each output tree (see opgen.output_tree); none when the
        cache is disabled, so that `--no-cache` trusts nothing remembered and reads every output file."""
        return self.root / "outputs" if self.enabled else None

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
            artifacts.op,
            files_path,
            tuple(artifacts.files),
            tuple(content_digest(text.encode("utf-8")) for text in artifacts.files.values()),
            artifacts.python,
            artifacts.torch_npu,
            artifacts.names,
            hashlib.sha256(
                json.dumps([asdict(artifacts.python), asdict(artifacts.torch_npu)], sort_keys=True).encode()
            ).hexdigest(),
        )
        _write_atomically(meta_path, meta.to_json())
        return meta

    def shared_path(self, key: str) -> Path:
        """Where the files built from every operator's fragments (see `shared_key`) are kept: the layout of an
        entry's files, so that EntryFiles reads them the same way."""
        return self.root / "shared" / f"{key}.json"

    def get_shared(self, key: str) -> dict[str, str] | None:
        return read_files(self.shared_path(key)) if self.enabled else None

    def put_shared(self, key: str, files: dict[str, str]) -> None:
        path = self.shared_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(path, json.dumps(files, ensure_ascii=False, sort_keys=True))

    def _summary_path(self, key: str) -> Path:
        return self.root / "summaries" / f"{key}.json"

    def get_summary(self, key: str) -> BuildSummary | None:
        """The summary of a build of exactly these operator keys, or None (then the build looks up each one)."""
        if not self.enabled:
            return None
        data = _read_json(self._summary_path(key))
        if not isinstance(data, dict) or data.get("format") != ENTRY_FORMAT:
            return None
        try:
            where: dict[str, Path] = {}
            digests: dict[str, str] = {}
            for source, names, hashes in data["sources"]:
                path = self.root / safe_relative(source)
                if not path.is_file():
                    return None  # an entry was deleted since
                where.update(dict.fromkeys(names, path))
                digests.update(zip(names, hashes, strict=True))
            return BuildSummary(list(data["operators"]), where, digests)
        except (KeyError, TypeError, ValueError):
            return None

    def put_summary(self, key: str, summary: BuildSummary) -> None:
        if not self.enabled:
            return
        sources: dict[Path, list[str]] = {}
        for rel, path in summary.where.items():
            sources.setdefault(path, []).append(rel)
        data = {
            "format": ENTRY_FORMAT,
            "operators": summary.operators,
            "sources": [
                [path.relative_to(self.root).as_posix(), names, [summary.digests[rel] for rel in names]]
                for path, names in sources.items()
            ],
        }
        path = self._summary_path(key)
        with contextlib.suppress(OSError, ValueError):  # not kept: the next build looks up every operator
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(path, json.dumps(data, ensure_ascii=False))


@dataclass(frozen=True)
class BuildSummary:
    """A finished build without its bytes: which entry holds each file and each file's digest. A build of the
    same operator keys (see `summary_key`) then reads no entry at all: a no-op build compares the digests with
    the output record and finds nothing to read."""

    operators: list[str]
    where: dict[str, Path]  # path in the output tree -> the entry's (or the shared artifacts') files holding it
    digests: dict[str, str]  # path in the output tree -> content_digest of its bytes


def summary_key(operator_keys: list[str]) -> str:
    """The key of a whole build: its operators' keys (each of which covers the generator), in spec order."""
    return hashlib.sha256("\0".join([f"summary {ENTRY_FORMAT}", *operator_keys]).encode()).hexdigest()


def shared_key(metas: list[EntryMeta]) -> str:
    """The key of the shared artifacts: the generator and every operator's fragments, in order."""
    digest = hashlib.sha256(generator_fingerprint().encode())
    for meta in metas:
        digest.update(meta.fragments_digest.encode() + b"\0")
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


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def read_files(path: Path) -> dict[str, str] | None:
    data = _read_json(path)
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
