"""Bindings and torch_npu registrations offer out= only where aten has an out overload (aten::selu and
aten::mish_backward have none: before, both got an `out=` binding and a `selu.out` registration calling an aclop
kernel that does not exist)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from opgen.build import plan_spec_files
from opgen.emit.python import python_fragment
from opgen.emit.torch_npu import torch_npu_fragment
from opgen.plan.operator import binding_out_keywords
from opgen.spec.aten import aten_op

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_out_forms_exist_exactly_where_aten_has_them(path: Path) -> None:
    for plan in plan_spec_files(path):
        aten = plan.spec.api.aten
        if aten is None:
            assert plan.binding_out  # a binding named after the API follows no aten schema
            continue
        op = aten_op(aten)
        assert op is not None
        has_out = op.out is not None
        opgen_ops = pytest.importorskip("opgen_ops")  # the committed generated/python package
        binding = getattr(opgen_ops, plan.bindings[0])
        keyword = binding_out_keywords(plan.spec)[plan.outputs[0].param.name]  # out, or aten's name (output)
        assert (keyword in inspect.signature(binding).parameters) is has_out, aten
        assert (f"{keyword}: np.ndarray | None = None" in python_fragment(plan).stub) is has_out
        registered = {(e[0], e[1]) for e in torch_npu_fragment(plan).entries}
        assert any(overload and name == aten for name, overload in registered) is has_out, registered


def test_the_rule_is_seen_on_both_kinds_of_op() -> None:
    """The real specs hold both cases, so the test above checks each."""
    kinds = {aten_op(p.spec.api.aten).out is not None for p in plan_spec_files(*SPECS) if p.spec.api.aten}
    assert kinds == {True, False}


def test_scalar_defaults_are_spelled_as_aten_spells_them() -> None:
    """A default of 1.0 in the spec is `alpha=1.` in celu's schema and `alpha=1` in elu's: the registration takes
    aten's own spelling (before, every integral Scalar default was printed `=1`, so celu's schema was not aten's)."""
    funcs = {}
    for name in ("celu_v2", "elu"):
        for plan in plan_spec_files(ROOT / "specs" / f"{name}.yaml"):
            funcs.update({(e[0], e[1]): e[3] for e in torch_npu_fragment(plan).entries})
    assert "Scalar alpha=1.)" in funcs[("celu", "")] and "Scalar alpha=1.)" in funcs[("celu_", "")]
    assert "Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)" in funcs[("elu", "")]
