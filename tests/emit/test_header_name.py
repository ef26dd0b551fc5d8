"""`api.header`: ops-nn declares some APIs in a header not derived from the name (aclnnLogSigmoid in
aclnn_logsigmoid.h, not aclnn_log_sigmoid.h); every artifact that names the header follows the spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.build import check_spec_text, render_operator
from opgen.spec.diagnostics import SpecError

ROOT = Path(__file__).resolve().parents[2]
LEAKY = (ROOT / "specs" / "leaky_relu.yaml").read_text(encoding="utf-8")
ANCHOR = "  doc_name: aclnnLeakyRelu&aclnnInplaceLeakyRelu\n"


def test_every_artifact_uses_the_spec_header() -> None:
    plan = check_spec_text(LEAKY.replace(ANCHOR, ANCHOR + "  header: aclnn_leakyrelu.h\n"), "specs/leaky_relu.yaml")
    files = render_operator(plan)
    assert "leaky_relu/op_api/aclnn_leakyrelu.h" in files and "leaky_relu/op_api/aclnn_leakyrelu.cpp" in files
    assert not any(path.endswith("aclnn_leaky_relu.h") for path in files)
    including = [path for path, text in files.items() if 'aclnn_leakyrelu.h"' in text]  # as each file includes it
    assert any("/examples/" in path for path in including) and any("/tests/ut/" in path for path in including)
    assert any(path.endswith("op_api/aclnn_leakyrelu.cpp") for path in including)
    assert not any('aclnn_leaky_relu.h"' in text for text in files.values())


def test_a_header_that_is_not_an_aclnn_header_is_refused_at_its_line() -> None:
    text = LEAKY.replace(ANCHOR, ANCHOR + "  header: ../evil.h\n")
    line = text.splitlines().index("  header: ../evil.h") + 1
    with pytest.raises(SpecError, match=rf"specs/leaky_relu.yaml:{line}:\d+: api.header: .*not an aclnn header name"):
        check_spec_text(text, "specs/leaky_relu.yaml")
