"""The generated aclnn APIs on the twin, per SoC: every op x dtype x shape (1, 31, 32, 33, 4099, 1,000,003
elements, 0-d, empty, 8-d, non-contiguous inputs and outputs, broadcast) is bit-exact with the numpy model
of its precision path, meets the precision standard, reads each input from GM once, writes the output
once and uses every vector core for large inputs. A half-split operator's cases are its halves' shapes (no 0-d), the
split tensor doubling them along the golden dim. One subprocess per SoC (the twin fixes its SoC at start)
and group of at most GROUP operators: the groups spread over xdist's workers, and a process start is paid per
group, not per operator.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spec_list import loaded, operators, spec_of

from opgen.spec.half_split import split_axis
from opgen.spec.socs import get_soc

pytest.importorskip("opgen_ops")

HERE = Path(__file__).resolve().parent


SOCS = ["ascend910b", "ascend910_93", "ascend950"]
GROUP = 8
OPERATORS = operators()
GROUPS = [OPERATORS[start : start + GROUP] for start in range(0, len(OPERATORS), GROUP)]
# the shape cases every dtype runs at least (n1, n31, n32, n33, n4099, 0-d, empty, 8-d)
SHAPES_PER_DTYPE = 8


@pytest.mark.parametrize("ops", GROUPS, ids="+".join)  # every name in the id: `-k OP` selects its group
@pytest.mark.parametrize("soc", SOCS)
def test_aclnn_matrix_on_soc(soc, ops, tmp_path):
    summary_path = tmp_path / "summary.json"
    env = {**os.environ, "OPGEN_SOC": soc, "OPGEN_TWIN_TRACE": str(tmp_path / "trace.jsonl")}
    proc = subprocess.run(
        [sys.executable, str(HERE / "aclnn_matrix.py"), str(summary_path), *ops],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(summary_path.read_text())
    assert summary["soc"] == soc
    assert not summary["failures"], "\n".join(summary["failures"][:20])
    # every dtype x shape case (x modes, + strided variants); fewer means cases were skipped
    for op in ops:
        spec = spec_of(op)
        # the 8-d cases (dense and strided) are above a rank range such as features' [2, 2]
        above = any(p.rank is not None and p.rank[1] < 8 for p in spec.tensor_inputs)
        wanted = (SHAPES_PER_DTYPE - (2 if above else 0)) * len(spec.tensor_inputs[0].dtypes)
        assert summary["cases"][op] >= wanted, summary["cases"]
    cores = get_soc(soc).vector_cores
    assert {facts["block_dim"] for facts in summary["large"].values()} == {cores}
    assert len(summary["large"]) == len(ops), "one large launch per operator"
    for facts in summary["large"].values():
        assert facts["ub_high_water"] <= get_soc(soc).ub_usable_bytes


def _matrix_module():
    pytest.importorskip("ml_dtypes")
    loader = importlib.util.spec_from_file_location("aclnn_matrix", HERE / "aclnn_matrix.py")
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def test_the_matrix_skips_exactly_what_a_reject_if_row_refuses():
    """Before, the matrix skipped any case with a bool flag set and a negative scalar (a hard-coded stand-in for
    EluBackward's row): aclnnRrelu's training = true ran and failed with 161002, and SituGlu's activateLeft = true
    with dim = -1 never ran though the API accepts it."""
    refused = _matrix_module().refused
    rrelu = spec_of("rrelu")
    assert refused(rrelu, {"lower": 0.125, "upper": 1 / 3, "training": True})
    assert not refused(rrelu, {"lower": 0.125, "upper": 1 / 3, "training": False})
    elu = spec_of("elu_grad_v2")
    flags = {"scale": 1.0, "inputScale": 1.0, "isResult": True}
    assert refused(elu, {**flags, "alpha": -0.5}) and not refused(elu, {**flags, "alpha": 0.5})
    situ = spec_of("situ_glu")
    assert not refused(situ, {"dim": -1, "beta": 2.5, "linearBeta": 1.5, "activateLeft": True})


def _dims(spec) -> list[int | None]:
    """The split dims the matrix may run an operator with (a literal, or each golden value of its dim parameter)."""
    if spec.split is None:
        return [None]
    if isinstance(spec.split.dim, int):
        return [spec.split.dim]
    return [int(v) for v in spec.golden_scalar_values()[spec.split.dim]]


def test_every_matrix_case_is_within_the_specs_rank_ranges():
    """Before, the matrix fed 1-d shapes (n1, n31, ...) to every operator: aclnnGeluMul and aclnnFatreluMul, whose
    input and out take rank 2 to 8, refused them with 161002. Every tensor of every case, computed output included,
    now has a rank its spec accepts; the split dim still gets an even size."""
    matrix = _matrix_module()
    for _, spec in loaded():
        for dim in _dims(spec):
            cases = matrix.shape_cases(spec, spec.tensor_inputs[0].dtypes[0], True, dim)
            # an 8-d case wherever the spec takes rank 8 (SoftmaxCrossEntropyWithLogits takes rank 2 only)
            takes_8d = all(p.rank is None or p.rank[1] >= 8 for p in spec.tensor_inputs)
            expected = {"n1", "n33"} | ({"8d"} if takes_8d else set())
            assert expected <= {label for label, _, _ in cases}, spec.operator.type
            for label, shapes, out_shape in cases:
                ranks = {**{n: len(s) for n, s in shapes.items()}, spec.outputs[0].name: len(out_shape)}
                for name, rank in ranks.items():
                    low, high = spec.param(name).rank
                    assert low <= rank <= high, (spec.operator.type, label, name, shapes)
                if spec.split is not None and dim is not None:
                    full = shapes[spec.split.tensor]
                    axis = split_axis(len(full), dim)
                    assert axis is None or full[axis] % 2 == 0, (spec.operator.type, label, full)
