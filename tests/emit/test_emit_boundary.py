"""The emitters read only the plan: none imports `opgen.spec`, reads the spec (`operator.spec`, a name or parameter
`spec`), re-plans (tiling, valid calls), tests a spec field a schedule owns, or asks which schedule an operator has
(`isinstance(schedule, HalfSplit)`) instead of calling a hook the schedule overrides. So a new schedule is one module
plus its templates, and an emitter is a pure function of the plan."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import opgen

EMIT = Path(opgen.__file__).parent / "emit"

# The planning modules an emitter may not call into for decisions (their constants and data types are fine).
_PLANNING = {"opgen.plan.tiling": {"plan_tiling", "plan_tiling_on"}, "opgen.plan.cases": {"valid_call", "valid_calls"}}

# The spec fields a schedule owns: an emitter reads them through the schedule's hooks.
_SCHEDULE_FIELDS = re.compile(
    r"shape\.channel_of|formula\.reduce\b|empty_return_tensors|reduction_of|len\(spec\.outputs\)"
)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _emitters() -> list[Path]:
    return sorted(p for p in EMIT.glob("*.py") if p.stem != "__init__")


def test_no_emitter_calls_a_planning_function():
    for path in _emitters():
        for module, names in _PLANNING.items():
            called = {n for n in names if f"{module}.{n}" in _imports(path)}
            assert not called, f"{path.name} re-plans with {module}: {sorted(called)}; read the plan instead"


def test_no_emitter_imports_the_spec():
    actual = {}
    for path in _emitters():
        spec = {name for name in _imports(path) if name == "opgen.spec" or name.startswith("opgen.spec.")}
        if spec:
            actual[path.stem] = sorted(spec)
    assert actual == {}, f"emitters importing opgen.spec (carry what they need in the plan): {actual}"


def _spec_reads(path: Path) -> int:
    tree = ast.parse(path.read_text())
    return sum(
        (isinstance(node, ast.Attribute) and node.attr == "spec")
        or (isinstance(node, ast.Name) and node.id == "spec")
        or (isinstance(node, ast.arg) and node.arg == "spec")
        for node in ast.walk(tree)
    )


def test_no_emitter_reads_the_spec():
    actual = {path.stem: n for path in _emitters() if (n := _spec_reads(path))}
    assert actual == {}, f"emitters reading the spec, by count (read the plan instead): {actual}"


def test_schedule_fields_are_read_through_the_schedule():
    branching = sorted(path.stem for path in _emitters() if _SCHEDULE_FIELDS.search(path.read_text()))
    assert branching == [], f"emitters testing a schedule's spec fields (ask the schedule): {branching}"


def _schedule_class_tests(path: Path) -> int:
    from opgen.plan.schedules import registered

    names = {schedule.__name__ for schedule in registered()}
    return sum(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Name)
        and node.args[1].id in names
        for node in ast.walk(ast.parse(path.read_text()))
    )


def test_no_emitter_asks_for_a_schedule_class():
    actual = {path.stem: n for path in _emitters() if (n := _schedule_class_tests(path))}
    assert actual == {}, f"emitters testing isinstance(schedule, ...) (add a Schedule hook instead): {actual}"


def test_the_checks_see_a_crossing(tmp_path, monkeypatch):
    """The detectors are not vacuous: an emitter that imports the spec, reads it and tests a schedule class is
    seen by each."""
    fake = tmp_path / "fake.py"
    fake.write_text(
        "from opgen.spec.model import OpSpec\n"
        "from opgen.plan.schedules.half_split import HalfSplit\n"
        "def render(operator):\n"
        "    return isinstance(operator.schedule, HalfSplit) and operator.spec.outputs\n"
    )
    assert "opgen.spec.model.OpSpec" in _imports(fake)
    assert _spec_reads(fake) == 1
    assert _schedule_class_tests(fake) == 1
