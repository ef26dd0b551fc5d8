"""Bindings with an aten op's full signature over an API that spells a mode differently (`api.aten_form`):
aten's gelu(self, *, approximate="none" | "tanh") over aclnnGeluV2's int64 approximate (0 | 1).

Before: no binding named gelu took aten's signature (the one named gelu was aclnnGelu's, the tanh form only).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from spec_list import loaded

from opgen.spec import aten_form
from opgen.spec.dtypes import DType
from opgen.spec.formula_binding import differs_from_torch
from opgen.spec.model import OpSpec

pytestmark = pytest.mark.cxx  # the first call builds the twin library

opgen_ops = pytest.importorskip("opgen_ops")
torch = pytest.importorskip("torch")

FORMS = [spec for _, spec in loaded() if spec.api.aten_form is not None]


def _inputs(spec: OpSpec) -> np.ndarray:
    low, high = spec.golden.value_range
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, low, high], dtype=np.float32)
    random = np.random.default_rng(7).uniform(low, high, 1000).astype(np.float32)
    return np.concatenate([special, random])


def test_there_is_an_aten_form() -> None:
    assert FORMS, "no spec has api.aten_form"


@pytest.mark.parametrize("spec", FORMS, ids=[s.api.aten_form.name for s in FORMS if s.api.aten_form])
def test_the_aten_form_has_atens_signature_and_values(spec: OpSpec) -> None:
    form = spec.api.aten_form
    assert form is not None
    schema = aten_form.functional_schema(form)
    function = getattr(opgen_ops, form.name)
    parameters = inspect.signature(function).parameters
    # aten's names, order, keyword-only arguments and defaults (out= where aten has an out overload)
    for arg in schema.args:
        parameter = parameters[arg.name]
        assert (parameter.kind is inspect.Parameter.KEYWORD_ONLY) == arg.kwarg_only, arg.name
        if arg.default is not None:
            assert parameter.default == aten_form.python_default(arg.default)
    assert ("out" in parameters) == aten_form.has_out(form)
    [mode] = form.values  # the translated parameter (one for gelu)
    x = _inputs(spec)
    tol = spec.golden.tolerance[DType.FLOAT]
    for aten_value, value in form.values[mode].items():
        ours = function(x, **{mode: aten_value})
        theirs = getattr(torch.ops.aten, form.name)(torch.from_numpy(x), **{mode: aten_value}).numpy()
        # compared everywhere except where the spec declares a difference (its conditions use the API's values)
        names = aten_form.aten_names(spec, schema)
        declared = differs_from_torch(spec, {**{p: x for p in names if p != mode}, mode: value}, x.shape)
        ours, theirs = ours[~declared], theirs[~declared]
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        finite = np.isfinite(theirs)
        np.testing.assert_array_equal(ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)])
        np.testing.assert_allclose(ours[finite], theirs[finite], rtol=tol.rtol, atol=tol.atol)
        # the same call as the API's own binding with the translated value, bit for bit
        api_binding = getattr(opgen_ops, spec.api.binding_name)
        np.testing.assert_array_equal(ours, api_binding(x, value)[~declared])
        if aten_form.has_out(form):
            out = np.empty_like(x)
            assert function(x, **{mode: aten_value}, out=out) is out
            np.testing.assert_array_equal(out[~declared], ours)
    with pytest.raises(ValueError, match=f"{mode} must be one of"):
        function(x, **{mode: "nonsense"})
