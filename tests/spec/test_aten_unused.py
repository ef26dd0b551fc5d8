"""api.aten_unused: aten arguments an API does not take (aten's rrelu `Generator? generator`, read in training mode
only, which aclnnRrelu refuses). The bindings and torch_npu registrations take them where aten's schema has them,
with aten's type and default, so their signatures are aten's; the API never sees them. Before, such an argument
had no parameter kind: a spec of rrelu could not state aten's schema, and `opgen new` left `kind: TODO`."""

from __future__ import annotations

import inspect

import pytest
from spec_list import spec_of

from opgen.emit.python import python_fragment
from opgen.plan.aten_registration import aten_functions
from opgen.plan.operator import plan_operator
from opgen.plan.signature import inplace_signature, main_signature
from opgen.spec import aten_unused
from opgen.spec.aten import aten_op


def test_the_registrations_have_atens_schemas_with_the_generator() -> None:
    spec = spec_of("rrelu")
    schemas = {fn.op: fn.schema for fn in aten_functions(spec, False, main_signature(spec), inplace_signature(spec))}
    op = aten_op("rrelu")
    assert op is not None and op.functional is not None and op.inplace is not None
    for name, schema in (("rrelu", op.functional), ("rrelu_", op.inplace)):
        assert "generator=None) -> " in schemas[name]
        assert [a.split("=")[0].split()[-1] for a in schemas[name].split("(", 1)[1].split(") ->")[0].split(", ")] == [
            a.name for a in schema.args
        ]


def test_the_bindings_take_the_generator_where_aten_does_and_ignore_it() -> None:
    spec = spec_of("rrelu")
    fragment = python_fragment(plan_operator(spec, "specs/rrelu.yaml"))
    namespace: dict = {}
    stub = "import numpy as np\n" + fragment.stub
    exec(compile(stub, "<stub>", "exec"), namespace)  # opgen's own generated declarations
    op = aten_op("rrelu")
    assert op is not None and op.functional is not None and op.inplace is not None
    for name, schema in (("rrelu", op.functional), ("rrelu_", op.inplace)):
        parameters = inspect.signature(namespace[name]).parameters
        assert list(parameters) == [a.name for a in schema.args]
        assert parameters["generator"].default is None
    opgen_ops = pytest.importorskip("opgen_ops")
    np = pytest.importorskip("numpy")
    x = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
    want = opgen_ops.rrelu(x, 0.1, 0.3, False)
    # any generator value is ignored, as aten ignores it outside training mode
    np.testing.assert_array_equal(opgen_ops.rrelu(x, 0.1, 0.3, False, object()), want)
    np.testing.assert_array_equal(want, np.where(x > 0, x, x * np.float32(0.2)))


def test_an_argument_that_is_not_an_optional_none_cannot_be_left_out() -> None:
    spec = spec_of("rrelu")
    api = spec.api.model_copy(update={"aten": "rrelu_with_noise", "inplace": None, "aten_unused": ["noise"]})
    problems = aten_unused.problems(spec.model_copy(update={"api": api}))
    assert [message for _, message in problems] == [
        "aten's 'Tensor noise' must be one of Generator? = None to be left out (its default: none given)"
    ]


def test_aten_unused_needs_an_aten_op() -> None:
    spec = spec_of("rrelu")
    api = spec.api.model_copy(update={"aten": None, "inplace": None})
    assert aten_unused.problems(spec.model_copy(update={"api": api})) == [
        (("api", "aten_unused"), "names aten arguments, but api.aten is not set")
    ]
