"""One run of a source formatter over many generated files: copies in a scratch folder, formatted in place.

Shared by the Python (ruff format) and C++ (clang-format) formatters: starting a formatter costs more than
formatting a file, so a build formats each batch of operators in one run.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path


def format_in_scratch(
    files: dict[str, str],
    suffixes: tuple[str, ...],
    command: Callable[[Path, list[str]], list[str]],
    error: Callable[[str], Exception],
) -> dict[str, str]:
    """`files` (relative path -> text) with those ending in `suffixes` replaced by what `command(scratch, names)`
    (the formatter's command line, formatting the files `names` in place) makes of them; `error(stderr)` is raised
    when the formatter fails."""
    chosen = {rel: text for rel, text in files.items() if rel.endswith(suffixes)}
    if not chosen:
        return dict(files)
    with tempfile.TemporaryDirectory(prefix="opgen-format-") as tmp:
        root = Path(tmp)
        # Flat names: paths in a build may repeat file names in different packages.
        paths = [root / f"f{index}{Path(rel).suffix}" for index, rel in enumerate(chosen)]
        for path, text in zip(paths, chosen.values(), strict=True):
            path.write_text(text, encoding="utf-8")
        proc = subprocess.run(command(root, [str(p) for p in paths]), capture_output=True, text=True)
        if proc.returncode != 0:
            raise error(proc.stderr.strip()[-2000:])
        formatted = {rel: path.read_text(encoding="utf-8") for rel, path in zip(chosen, paths, strict=True)}
    return {rel: formatted.get(rel, text) for rel, text in files.items()}
