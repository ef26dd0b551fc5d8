"""CMakeLists.txt of an operator package, in the ops-nn convention (add_modules_sources, aclnn_exclude)."""

from __future__ import annotations

from opgen.emit.templating import render
from opgen.lang import code, ident, idents
from opgen.plan.operator import OperatorPlan


def render_cmake(operator: OperatorPlan) -> dict[str, str]:
    return render_cmake_directory([operator])


def render_cmake_directory(operators: list[OperatorPlan]) -> dict[str, str]:
    """The directory's CMakeLists.txt: the SoCs any of its operators' kernels is built for, in the first one's
    order."""
    kernels = [operator for operator in operators if operator.runs is None] or operators
    socs = list(dict.fromkeys(soc for operator in kernels for soc in operator.kernel_socs))
    return {
        "CMakeLists.txt": render(
            "op/CMakeLists.txt.j2",
            "CMakeLists.txt",
            operators[0].source,
            op=ident(operators[0].op),
            socs=idents(socs),
            arch_tiling_dir=code("op_host"),
        )
    }
