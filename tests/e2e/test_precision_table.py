"""The docs' precision table is what the twin measures: on the table's own points, the generated API's output on
the twin equals the plan's model bit for bit, and the errors recomputed from the twin's output are the table's.
Dtypes routed to the AICPU kernel compute in double with the C library's functions, which may differ from numpy's by
an ulp: there the outputs agree to 1e-13 and the figures to 1e-6 (a complex dtype's errors are moduli)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.floats import bits

from opgen.build import plan_loaded
from opgen.plan.aclnn_path import aclnn_output
from opgen.plan.kernel import aicore_dtypes
from opgen.plan.operator import binding_result_index
from opgen.plan.precision import sweep_inputs, sweep_scalar_sets, with_held_values
from opgen.spec.formula_binding import evaluate_reference
from opgen.spec.half_split import split_half
from opgen.spec.loader import load_spec_documents
from opgen.spec.model import Direction, OpSpec, ParamKind

ROOT = Path(__file__).resolve().parents[2]
# (spec file, document index) of every operator: a file may describe several operators of one directory
SPECS = [
    (path, index) for path in sorted((ROOT / "specs").glob("*.yaml")) for index in range(len(load_spec_documents(path)))
]

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


def _measured(spec: OpSpec, got: np.ndarray, output: str, scalars: dict) -> np.ndarray:
    """The part of the API's result a precision row measures: an output written per half has a row per half, each
    half where the split puts it (swap_when)."""
    for halves in spec.formula.per_half.values():
        if output in halves:
            index = halves.index(output)
            return split_half(got, spec.split_dim(scalars), 1 - index if spec.split_swapped(scalars) else index)
    return got


def _bits(values: np.ndarray) -> np.ndarray:
    """The bit patterns, every NaN as 0 (any NaN matches any NaN)."""
    return np.where(np.isnan(values.astype(np.float64)), 0, bits(values))


@pytest.mark.parametrize("spec_path,index", SPECS, ids=[f"{p.stem}-{i}" if i else p.stem for p, i in SPECS])
def test_the_precision_table_is_the_twins_output(spec_path: Path, index: int) -> None:
    opgen_ops = pytest.importorskip("opgen_ops")
    documents = load_spec_documents(spec_path)
    loaded = documents[index]
    plan = plan_loaded(loaded, loaded.source.file, documents)
    spec = plan.spec
    binding = getattr(opgen_ops, plan.bindings[0])
    assert plan.precision, "every operator documents its precision"
    for row in plan.precision:
        exact = row.dtype in aicore_dtypes(spec)
        swept = sweep_inputs(spec, row.dtype)
        # the API output holding the row's output (an output written per half holds both halves)
        output = next((o for o, halves in spec.formula.per_half.items() if row.output in halves), row.output)
        index = binding_result_index(spec, output)
        largest = 0.0
        for values in sweep_scalar_sets(spec):
            inputs, scalars = with_held_values(spec, swept, values, row.dtype)
            args = [
                inputs[p.name] if p.kind is ParamKind.TENSOR else scalars[p.name]
                for p in spec.params
                if p.direction is Direction.INPUT and not p.keyword_only
            ]
            keywords = {p.python: scalars[p.name] for p in spec.params if p.keyword_only}
            got = binding(*args, **keywords)
            got = np.asarray(got if index is None else got[index])
            dtypes = dict.fromkeys(inputs, row.dtype)
            model = aclnn_output(spec, plan.kernel, inputs, dtypes, scalars, row.dtype, output)
            if exact:
                np.testing.assert_array_equal(_bits(got), _bits(model), err_msg=f"{row.dtype.value} {scalars}")
            else:
                np.testing.assert_allclose(got, model, rtol=1e-13, atol=0, err_msg=f"{row.dtype.value} {scalars}")
            got = _measured(spec, got, row.output, scalars)
            reference = evaluate_reference(spec, {**inputs, **scalars}, None, row.output)
            wide = got.astype(np.complex128 if row.dtype.is_complex else np.float64)  # complex: errors are moduli
            finite = np.isfinite(wide) & np.isfinite(reference)
            if finite.any():
                largest = max(largest, float(np.abs(wide[finite] - reference[finite]).max()))
        assert largest == row.max_abs_error if exact else np.isclose(largest, row.max_abs_error, rtol=1e-6), row
