"""The generated aclnn APIs on the twin, per SoC: every op x dtype x shape (1, 31, 32, 33, 4099, 1,000,003
elements, 0-d, empty, 8-d, non-contiguous inputs and outputs, broadcast) is bit-exact with the numpy model
of its precision path, meets the precision standard, reads each input from GM once, writes the output
once and uses every vector core for large inputs. A half-split operator's cases are its halves' shapes (no 0-d), the
split tensor doubling them along the golden dim. One subprocess per SoC (the twin fixes its SoC at start)
and group of at most GROUP operators: the groups spread over xdist's workers, and a process start is paid per
group, not per operator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spec_list import operators, spec_of

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
        assert summary["cases"][op] >= SHAPES_PER_DTYPE * len(spec_of(op).tensor_inputs[0].dtypes), summary["cases"]
    cores = get_soc(soc).vector_cores
    assert {facts["block_dim"] for facts in summary["large"].values()} == {cores}
    assert len(summary["large"]) == len(ops), "one large launch per operator"
    for facts in summary["large"].values():
        assert facts["ub_high_water"] <= get_soc(soc).ub_usable_bytes
