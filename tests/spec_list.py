"""The one list of real specs (`specs/*.yaml`) that per-operator tests are parametrized from.

Every test that runs something for each operator takes its operators from here, so adding a spec adds its
cases and no test names an operator or counts the specs. Importable from every test (tests/ is on sys.path
through tests/conftest.py). Operators are keyed by `operator.dir`, the generated package's name, whatever
the spec file is called.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from opgen.spec.loader import load_spec_documents
from opgen.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "specs"
GENERATED = ROOT / "generated"


def spec_files() -> list[Path]:
    """The spec files, sorted."""
    return sorted(SPEC_DIR.glob("*.yaml"))


@cache
def _loaded() -> tuple[tuple[Path, OpSpec], ...]:
    """Every operator of every spec file (a file may describe several operators of one directory)."""
    return tuple((path, item.spec) for path in spec_files() for item in load_spec_documents(path))


def loaded() -> list[tuple[Path, OpSpec]]:
    """(spec file, spec) of every real spec, in file order."""
    return list(_loaded())


def specs() -> dict[str, OpSpec]:
    """{operator dir: spec} of every real spec, in operator-dir order; a directory of several operators is its first
    one (the directory's own, whose files carry the directory's name, e.g. Swish of swish/, Relu of relu/)."""
    found: dict[str, OpSpec] = {}
    for _, spec in sorted(_loaded(), key=lambda item: item[1].operator.dir):
        found.setdefault(spec.operator.dir, spec)
    return found


def every_operator() -> dict[str, OpSpec]:
    """{file stem: spec} of every operator of every spec file, a directory's later operators too (AddRelu of
    relu/, LogSigmoidForward of log_sigmoid/), sorted: their files are named after the stem."""
    return dict(sorted((spec.operator.file_stem, spec) for _, spec in _loaded()))


def kernel_operators() -> dict[str, OpSpec]:
    """every_operator() but those running another operator's kernel (kernel.runs: no OpDef, tiling or kernel)."""
    return {stem: spec for stem, spec in every_operator().items() if spec.kernel.runs is None}


def operators() -> list[str]:
    """The operator dirs, sorted: the parameter list (and the ids) of per-operator tests."""
    return list(specs())


def spec_of(op: str) -> OpSpec:
    return specs()[op]


def binding(spec: OpSpec) -> str:
    """The name of the main API's function in `opgen_ops` (from the plan, where the naming rule lives)."""
    from opgen.plan.operator import binding_names

    return binding_names(spec)[0]


def sample_spec_files(count: int = 3) -> list[Path]:
    """At most `count` spec files (and the forward specs they link to) for tests of the build machinery (caching,
    no-op builds, output trees), whose cost must not grow with the number of specs: one per distinct formula
    first (a renamed copy of a spec adds no new code path), in file order."""
    seen: set[str] = set()
    distinct: list[Path] = []
    for path, spec in _loaded():
        formula = repr(spec.formula)
        if formula not in seen:
            seen.add(formula)
            distinct.append(path)
    others = [path for path in spec_files() if path not in distinct]
    chosen = (distinct + others)[:count]
    # and the forward specs the chosen backward specs' derivative check reads
    needed = [
        SPEC_DIR / f"{spec.derivative_of.forward}.yaml"
        for path, spec in _loaded()
        if path in chosen and spec.derivative_of
    ]
    return chosen + [path for path in dict.fromkeys(needed) if path not in chosen]
