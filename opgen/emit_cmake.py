"""CMakeLists.txt of an operator package, in the ops-nn convention (add_modules_sources, aclnn_exclude)."""

from __future__ import annotations

from opgen.model import OpSpec
from opgen.templating import render


def render_cmake(spec: OpSpec, spec_name: str) -> dict[str, str]:
    return {
        "CMakeLists.txt": render(
            "op/CMakeLists.txt.j2",
            "CMakeLists.txt",
            spec_name,
            op=spec.operator.dir,
            socs=[s.soc for s in spec.supported_socs],
            arch_tiling_dir="op_host",
        )
    }
