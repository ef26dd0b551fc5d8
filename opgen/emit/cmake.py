"""CMakeLists.txt of an operator package, in the ops-nn convention (add_modules_sources, aclnn_exclude)."""

from __future__ import annotations

from opgen.emit.templating import render
from opgen.lang import code, ident, idents
from opgen.plan.operator import OperatorPlan


def render_cmake(operator: OperatorPlan) -> dict[str, str]:
    spec, spec_name = operator.spec, operator.source
    return {
        "CMakeLists.txt": render(
            "op/CMakeLists.txt.j2",
            "CMakeLists.txt",
            spec_name,
            op=ident(spec.operator.dir),
            socs=idents([s.soc for s in spec.supported_socs]),
            arch_tiling_dir=code("op_host"),
        )
    }
