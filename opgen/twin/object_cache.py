"""The object cache of `opgen cc`: cache keys, dependency manifests and location-independent paths.

An object is found in two steps, like ccache's direct and preprocessor modes:

* direct: the key hashes the compiler identity, the unit's source path and flags (paths normalised, see
  `PathMap`) and the precompiled header it uses. Its manifest lists every file the unit read (from the
  compiler's depfile) with the content hash it had; if every one still has it, the object is reused without
  running anything (files whose mtime and size are unchanged are not even read).
* preprocessed: on a direct miss the unit is preprocessed (cheap: the standard headers come from the
  precompiled header) and the object key hashes the preprocessed text with only the flags that affect code
  generation (no -I/-D: they act through the preprocessed text), so a comment-only edit, a moved checkout
  or a new -I dir (another operator package) still finds the object.

Paths in keys, flags, depfiles and preprocessed text are normalised: the twin, each operator package root
(by its directory name), the cache dir and the generated aclnnop/ dir become placeholders, and the compiler
maps them in __FILE__ (-fmacro-prefix-map), so objects do not depend on where the checkout or the cache is.
With -g the debug info names real files, so nothing is normalised and keys hold absolute paths.

Limitation shared with ccache's direct mode: a header newly shadowing another on the include path is not
noticed until a listed dependency changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

# Bumped when the way objects are built or keyed changes, so old cache entries are not reused.
CACHE_FORMAT = "2"


def sha256(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8") if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def write_if_changed(path: Path, data: str | bytes) -> None:
    """Write atomically (temporary file + rename), and only if the bytes differ."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.read_bytes() == payload:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    temporary.write_bytes(payload)
    os.replace(temporary, path)


class PathMap:
    """Absolute directory prefixes <-> placeholders (`@twin`, `@pkg:leaky_relu`, `@cache`, ...)."""

    def __init__(self, roots: list[tuple[Path, str]], enabled: bool = True):
        # Longest first, so a package inside the cache dir maps to its own placeholder.
        pairs = [(os.path.abspath(path), name) for path, name in roots] if enabled else []
        self.pairs = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)

    def normalize(self, text: str) -> str:
        for path, name in self.pairs:
            text = text.replace(path, name)
        return text

    def normalize_bytes(self, data: bytes) -> bytes:
        for path, name in self.pairs:
            data = data.replace(path.encode(), name.encode())
        return data

    def denormalize(self, text: str) -> str:
        for path, name in self.pairs:
            if text == name or text.startswith(name + "/"):
                return path + text[len(name) :]
        return text

    def prefix_map_flags(self) -> list[str]:
        """-fmacro-prefix-map flags so that __FILE__ names placeholders, not this machine's paths."""
        return [f"-fmacro-prefix-map={path}={name}" for path, name in self.pairs]


class FileHashes:
    """Content hashes of dependency files, remembered per (path, mtime, size) for the process."""

    def __init__(self, normalized_dirs: list[Path], path_map: PathMap):
        self._memo: dict[tuple[str, int, int], str] = {}
        self._lock = threading.Lock()
        # Files opgen cc writes itself (aclnnop/ wrappers) hold absolute paths: hash them normalised.
        self._normalized_dirs = [os.path.abspath(d) + "/" for d in normalized_dirs]
        self._map = path_map

    def stamp(self, path: str) -> tuple[int, int] | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def content_hash(self, path: str, stamp: tuple[int, int]) -> str | None:
        memo_key = (path, *stamp)
        with self._lock:
            known = self._memo.get(memo_key)
        if known is not None:
            return known
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        if any(path.startswith(d) for d in self._normalized_dirs):
            data = self._map.normalize_bytes(data)
        digest = sha256(data)
        with self._lock:
            self._memo[memo_key] = digest
        return digest


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make-style depfile as absolute paths."""
    body = text.split(":", 1)[1] if ":" in text else ""
    body = body.replace("\\\n", " ")
    return [os.path.abspath(p) for p in shlex.split(body, posix=True)]


@dataclass
class Manifest:
    """What a direct key resolved to: the object key and every dependency with its content hash."""

    object_key: str
    deps: dict[str, list]  # normalised path -> [mtime_ns, size, sha256]


class ObjectCache:
    """Objects under `objects/xx/KEY.o` (+ `.stderr` with the compiler's warnings), manifests under
    `manifests/xx/KEY.json`, precompiled headers under `pch/KEY/`. Writes are atomic renames, so several
    builds may share the cache."""

    def __init__(self, root: Path, path_map: PathMap, hashes: FileHashes):
        self.root = root
        self.objects = root / "objects"
        self.manifests = root / "manifests"
        self.path_map = path_map
        self.hashes = hashes

    def object_path(self, key: str, suffix: str = ".o") -> Path:
        return self.objects / key[:2] / f"{key}{suffix}"

    def stderr_of(self, obj: Path) -> str:
        path = obj.with_suffix(".stderr")
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return ""

    def _manifest_path(self, direct_key: str) -> Path:
        return self.manifests / direct_key[:2] / f"{direct_key}.json"

    def direct_lookup(self, direct_key: str, suffix: str = ".o") -> Path | None:
        """The cached output if every dependency recorded for this direct key still has its content."""
        try:
            data = json.loads(self._manifest_path(direct_key).read_text(encoding="utf-8"))
            manifest = Manifest(object_key=data["object"], deps=data["deps"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        refreshed = False
        for name, (mtime, size, digest) in manifest.deps.items():
            path = self.path_map.denormalize(name)
            stamp = self.hashes.stamp(path)
            if stamp is None:
                return None
            if stamp == (mtime, size):
                continue
            if self.hashes.content_hash(path, stamp) != digest:
                return None
            manifest.deps[name] = [*stamp, digest]  # same bytes, new mtime (a moved or re-cloned checkout)
            refreshed = True
        obj = self.object_path(manifest.object_key, suffix)
        if not obj.exists():
            return None
        if refreshed:
            self._write_manifest(direct_key, manifest)
        return obj

    def store_manifest(self, direct_key: str, object_key: str, deps: list[str]) -> None:
        recorded: dict[str, list] = {}
        for path in deps:
            if path.endswith(".gch"):
                continue  # a precompiled header is named by its key, which is part of the direct key
            stamp = self.hashes.stamp(path)
            digest = self.hashes.content_hash(path, stamp) if stamp is not None else None
            if stamp is None or digest is None:
                return  # a dependency vanished while building: do not record a manifest
            recorded[self.path_map.normalize(path)] = [*stamp, digest]
        self._write_manifest(direct_key, Manifest(object_key, recorded))

    def _write_manifest(self, direct_key: str, manifest: Manifest) -> None:
        text = json.dumps({"object": manifest.object_key, "deps": manifest.deps}, sort_keys=True)
        write_if_changed(self._manifest_path(direct_key), text)

    def store_object(self, temporary: Path, key: str, stderr: str, suffix: str = ".o") -> Path:
        obj = self.object_path(key, suffix)
        obj.parent.mkdir(parents=True, exist_ok=True)
        if stderr:
            write_if_changed(obj.with_suffix(".stderr"), stderr)
        os.replace(temporary, obj)
        return obj

    def temporary_path(self, key: str, suffix: str = ".o") -> Path:
        obj = self.object_path(key, suffix)
        obj.parent.mkdir(parents=True, exist_ok=True)
        return obj.with_name(f"{obj.name}.{os.getpid()}.{threading.get_ident()}.tmp")
