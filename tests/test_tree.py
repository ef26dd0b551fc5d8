"""The shape of the source tree: no import cycles among opgen's modules, torch imported only where a test
compares with it (a checkout without torch runs everything else), and comments cite only files a clone has."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPGEN = ROOT / "opgen"


# ------------------------------------------------------------------------------------------- import cycles


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(path: Path, module: str) -> Iterator[str]:
    """Every module name an import statement of `path` names, at any depth (a function's imports too), except
    under `if TYPE_CHECKING:` (annotations only: nothing is imported when the program runs)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    yield from visit_statement(other)
            else:
                yield from visit_statement(child)

    def visit_statement(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = parts[: len(parts) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
        else:
            yield from visit(node)

    yield from visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))


def import_graph(base: Path = ROOT, package: str = "opgen") -> dict[str, set[str]]:
    """Module of `package` (a folder in `base`) -> the modules of it that it imports when it runs. A module's
    edge to its own package (`from . import x`) is left out: the package's __init__ re-exporting its modules
    is not a cycle."""
    modules = {}
    for path in (base / package).rglob("*.py"):
        parts = path.relative_to(base).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for imported in _imported_names(path, name):
            while imported and imported not in modules:  # `from pkg.module import function` -> pkg.module
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not name.startswith(imported + "."):
                edges.add(imported)
        graph[name] = edges
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle_and_ignores_type_checking_imports(tmp_path):
    package = tmp_path / "opgen"
    (package / "layer").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "layer" / "__init__.py").write_text("")
    (package / "layer" / "a.py").write_text("from .b import thing\n")
    (package / "layer" / "b.py").write_text("def f():\n    from opgen.layer import c\n")
    (package / "layer" / "c.py").write_text("from opgen.layer.a import x\n")
    (package / "layer" / "d.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from . import a\n")
    (package / "layer" / "e.py").write_text("from . import d\n")
    (package / "layer" / "__init__.py").write_text("from . import a, e\n")
    assert strongly_connected(import_graph(tmp_path)) == [["opgen.layer.a", "opgen.layer.b", "opgen.layer.c"]]


def test_no_import_cycles_among_opgen_modules():
    assert strongly_connected(import_graph()) == []


# ------------------------------------------------------------------------------------------------- torch


def _module_level_torch_imports(path: Path) -> list[int]:
    """Lines of `import torch` / `from torch ...` a module runs on import, outside `try: ... except ImportError`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    lines = []

    def guarded(node: ast.Try) -> bool:
        names = []
        for handler in node.handlers:
            kind = handler.type
            names += [e.id for e in kind.elts] if isinstance(kind, ast.Tuple) else [getattr(kind, "id", "")]
        return bool({"ImportError", "ModuleNotFoundError"} & set(names))

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                names = []
            if any(name.split(".")[0] == "torch" for name in names):
                lines.append(node.lineno)
            if isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try) and not guarded(node):
                visit(node.body)

    visit(tree.body)
    return lines


def test_torch_is_imported_only_where_a_test_compares_with_it():
    """A module-level `import torch` would stop the collection of every test in the module without torch:
    tests that compare with torch take the `torch` fixture (tests/conftest.py) or importorskip it; the
    generated golden tests import it under `try` and skip only the torch comparison."""
    sources = [*OPGEN.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "generated").rglob("*.py")]
    offending = {str(path.relative_to(ROOT)): lines for path in sources if (lines := _module_level_torch_imports(path))}
    assert offending == {}
    assert _module_level_torch_imports(ROOT / "generated" / "elu" / "tests" / "test_golden_elu.py") == []


_WITHOUT_TORCH = """
import importlib.abc, sys

class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by tests/test_tree.py)", name=name)
        return None

sys.meta_path.insert(0, NoTorch())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_the_formula_and_spec_layers_run_without_torch():
    layers = ["tests/formula", "tests/spec"]
    command = [sys.executable, "-c", _WITHOUT_TORCH, "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "not cxx"]
    result = subprocess.run([*command, *layers], cwd=ROOT, capture_output=True, text=True, timeout=900)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    passed = re.search(r"(\d+) passed", summary)
    skipped = re.search(r"(\d+) skipped", summary)
    assert passed and int(passed.group(1)) > 0 and skipped, summary  # the torch comparisons skipped, the rest ran


# --------------------------------------------------------------------------------------- cited paths


_CITED = re.compile(r"\bopgen/[\w/.-]+\.(?:py|h|cpp|inc|j2|md|txt)\b")
_TEXT_SUFFIXES = {".py", ".h", ".cpp", ".inc", ".j2", ".md", ".yaml", ".toml"}
# tests that read the workplace's reference documents, skipping without them, say where they look
_READS_SHARED = {"tests/conftest.py", "tests/plan/test_opdef.py", "tests/fixtures/opdefs.md"}


def _tree_texts() -> Iterator[tuple[str, str]]:
    roots = [OPGEN, ROOT / "tests", ROOT / "docs", ROOT / "specs"]
    for path in [ROOT / "README.md", *(p for r in roots for p in r.rglob("*") if p.suffix in _TEXT_SUFFIXES)]:
        if path.is_file() and path != Path(__file__):
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8", errors="replace")


def test_cited_opgen_paths_exist_and_no_comment_cites_the_workplace_documents():
    missing, shared = [], []
    for name, text in _tree_texts():
        for cited in _CITED.findall(text):
            if not (ROOT / cited).exists():
                missing.append(f"{name}: {cited}")
        if name not in _READS_SHARED and re.search(r"shared/reference|ascend-facts\.md|ops-nn-activation\.md", text):
            shared.append(name)
    assert missing == [] and shared == []
