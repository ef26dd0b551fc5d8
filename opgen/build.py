"""`opgen build`: every spec in a directory -> the complete generated tree, as bytes in memory.

Emitters are pure functions of one `OpSpec`; this module only gathers their files under each
operator's directory, so the tree is deterministic and can be compared or written in one go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from opgen.diagnostics import Diagnostic, SpecError
from opgen.emit_docs import render_docs
from opgen.emit_aicpu import render_aicpu
from opgen.emit_cmake import render_cmake
from opgen.emit_example import example_path, render_example
from opgen.emit_host import render_host
from opgen.emit_kernel import render_kernel
from opgen.emit_golden_tests import render_golden_tests
from opgen.emit_op_api import render_op_api
from opgen.emit_python import render_python
from opgen.emit_tests import render_tests
from opgen.emit_torch_npu import render_torch_npu
from opgen.output_tree import safe_relative
from opgen.spec_loader import LoadedSpec, load_spec


def spec_files(spec_dir: Path) -> list[Path]:
    return sorted(p for p in spec_dir.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def load_specs(spec_dir: Path) -> list[LoadedSpec]:
    """Load every spec; raise one SpecError with the diagnostics of all files."""
    if not spec_dir.is_dir():
        raise FileNotFoundError(f"spec directory not found: {spec_dir}")
    problems: list[Diagnostic] = []
    loaded: list[LoadedSpec] = []
    for path in spec_files(spec_dir):
        try:
            loaded.append(load_spec(path, display_name=_display_name(spec_dir, path)))
        except SpecError as exc:
            problems.extend(exc.diagnostics)
    problems.extend(_cross_spec_problems(loaded))
    if problems:
        raise SpecError(problems)
    return loaded


def _display_name(spec_dir: Path, path: Path) -> str:
    """`specs/leaky_relu.yaml`: stable whatever the working directory, so outputs are deterministic."""
    return f"{spec_dir.resolve().name}/{path.name}"


def _cross_spec_problems(loaded: list[LoadedSpec]) -> list[Diagnostic]:
    problems = []
    owners: dict[tuple[str, str], LoadedSpec] = {}
    for item in loaded:
        spec = item.spec
        keys = [
            ("operator.dir", spec.operator.dir, ("operator", "dir")),
            ("operator.type", spec.operator.type, ("operator", "type")),
            ("api.name", spec.api.name, ("api", "name")),
        ]
        if spec.api.inplace:
            keys.append(("api.name", spec.api.inplace.name, ("api", "inplace", "name")))
        for label, value, path in keys:
            first = owners.setdefault((label, value), item)
            if first is not item:
                message = f"{label} '{value}' is already used by {first.source.file}"
                problems.append(Diagnostic(item.source.location_of(path), path, message, "duplicate-name"))
    return problems


Emitter = Callable[[LoadedSpec], dict[str, str]]


def emit_docs_and_example(item: LoadedSpec) -> dict[str, str]:
    spec, name = item.spec, item.source.file
    program = render_example(spec, name)
    files = {example_path(spec): program}
    body = program.split("\n", 1)[1]  # the doc shows the program without its generated-file notice
    files.update(render_docs(spec, name, body, example_path(spec)))
    return files


def emit_op_host(item: LoadedSpec) -> dict[str, str]:
    return render_host(item.spec, item.source.file)


def emit_op_kernel(item: LoadedSpec) -> dict[str, str]:
    return {**render_kernel(item.spec, item.source.file), **render_aicpu(item.spec, item.source.file)}


def emit_op_api(item: LoadedSpec) -> dict[str, str]:
    return render_op_api(item.spec, item.source.file)


def emit_golden_tests(item: LoadedSpec) -> dict[str, str]:
    return render_golden_tests(item.spec, item.source.file)


def emit_tests(item: LoadedSpec) -> dict[str, str]:
    return render_tests(item.spec, item.source.file)


def emit_cmake(item: LoadedSpec) -> dict[str, str]:
    return render_cmake(item.spec, item.source.file)


EMITTERS: list[Emitter] = [
    emit_docs_and_example,
    emit_op_host,
    emit_op_kernel,
    emit_op_api,
    emit_golden_tests,
    emit_tests,
    emit_cmake,
]


@dataclass(frozen=True)
class BuildResult:
    specs: list[LoadedSpec]
    files: dict[str, bytes]


def build_tree(spec_dir: Path) -> BuildResult:
    loaded = load_specs(spec_dir)
    files: dict[str, bytes] = {}
    for item in loaded:
        root = item.spec.operator.dir
        for emitter in EMITTERS:
            for rel, text in emitter(item).items():
                path = safe_relative(f"{root}/{rel}")
                if path in files:
                    raise AssertionError(f"two emitters produce {path}")
                files[path] = text.encode("utf-8")
    for rel, text in render_python([(item.spec, item.source.file) for item in loaded]).items():
        files[safe_relative(rel)] = text.encode("utf-8")
    for rel, text in render_torch_npu([(item.spec, item.source.file) for item in loaded]).items():
        files[safe_relative(rel)] = text.encode("utf-8")
    return BuildResult(loaded, dict(sorted(files.items())))
