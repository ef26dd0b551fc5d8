"""The one list of real specs (`specs/*.yaml`) that per-operator tests are parametrized from.

Every test that runs something for each operator takes its operators from here, so adding a spec adds its
cases and no test names an operator or counts the specs. Importable from every test (tests/ is on sys.path
through tests/conftest.py). Operators are keyed by `operator.dir`, the generated package's name, whatever
the spec file is called.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from opgen.spec.loader import load_spec
from opgen.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "specs"
GENERATED = ROOT / "generated"


def spec_files() -> list[Path]:
    """The spec files, sorted."""
    return sorted(SPEC_DIR.glob("*.yaml"))


@cache
def specs() -> dict[str, OpSpec]:
    """{operator dir: spec} of every real spec, in operator-dir order."""
    loaded = [load_spec(path).spec for path in spec_files()]
    return {spec.operator.dir: spec for spec in sorted(loaded, key=lambda spec: spec.operator.dir)}


def operators() -> list[str]:
    """The operator dirs, sorted: the parameter list (and the ids) of per-operator tests."""
    return list(specs())


def spec_of(op: str) -> OpSpec:
    return specs()[op]


def binding(spec: OpSpec) -> str:
    """The name of the main API's function in `opgen_ops` (from the plan, where the naming rule lives)."""
    from opgen.plan.operator import binding_names

    return binding_names(spec)[0]
