"""Shared test fixtures and markers.

Markers (see pyproject.toml): `cxx` compiles C++ (the twin or generated sources), `slow` takes more than a few
seconds. `pytest -m "not cxx"` runs the pure-Python layers alone; `pytest tests/spec` one layer.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

# The binding builds one library of the twin and every package (not one per package as they are first called):
# the session's C++ test programs link against that library (tests/twin_session.py), and one link serves all.
# `OPGEN_OPS_ALL=0 pytest ...` runs the binding's tests on the per-package libraries instead.
os.environ.setdefault("OPGEN_OPS_ALL", "1")

ROOT = Path(__file__).resolve().parents[1]
# The workplace keeps the source documents beside the project; a user's clone has none.
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """`../shared`, or a clean skip where it does not exist (a user's clone)."""
    if not SHARED.is_dir():
        pytest.skip(f"needs the workplace's shared documents at {SHARED}, which a user's clone does not have")
    return SHARED


@pytest.fixture(scope="session")
def torch():  # type: ignore[no-untyped-def]
    """torch, for the tests that compare with it; they skip where it is not installed (tests/test_tree.py runs
    the formula and spec layers without it)."""
    return pytest.importorskip("torch")


@pytest.fixture(scope="session")
def twin_lib():  # type: ignore[no-untyped-def]
    """The twin and every generated package compiled once per session (see tests/twin_session.py)."""
    from twin_session import build_twin_library

    return build_twin_library()


# --------------------------------------------------------------------------- one operator's tests

# What separates the parts of a parametrized test's id: `leaky_relu-row0_notnull`, `leaky_relu/op_api/x.cpp`,
# `a+b+leaky_relu` (a group of operators), `[leaky_relu]`.
_ID_PARTS = re.compile(r"[-+/\[\], ]")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--operator",
        action="append",
        default=[],
        metavar="OP",
        help="run only operator OP's tests (its operator.dir; repeatable): the tests under generated/OP and those "
        "parametrized with it (what `opgen test OP` runs)",
    )


def operator_names(wanted: list[str]) -> set[str]:
    """The names the per-operator tests' ids use for the operators `wanted` (operator dirs): the dir and the file
    stem of each operator it holds (log_sigmoid/ also holds log_sigmoid_forward)."""
    from spec_list import loaded

    by_dir: dict[str, set[str]] = {}
    for _, spec in loaded():
        by_dir.setdefault(spec.operator.dir, {spec.operator.dir}).add(spec.operator.file_stem)
    unknown = sorted(set(wanted) - set(by_dir))
    if unknown:
        raise pytest.UsageError(
            f"--operator {', '.join(unknown)}: no such operator (operators: {', '.join(sorted(by_dir))})"
        )
    return {name for op in wanted for name in by_dir[op]}


def is_operator_test(item: pytest.Item, packages: list[Path], names: set[str]) -> bool:
    """Whether `item` is one of the operators' tests: in one of their packages, or parametrized with one of them."""
    if any(package in item.path.parents for package in packages):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and not names.isdisjoint(_ID_PARTS.split(callspec.id))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted: list[str] = config.getoption("--operator")
    if not wanted:
        return
    names = operator_names(wanted)
    packages = [ROOT / "generated" / op for op in wanted]
    keep = [item for item in items if is_operator_test(item, packages, names)]
    dropped = [item for item in items if not is_operator_test(item, packages, names)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
