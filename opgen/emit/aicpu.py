"""The AICPU kernel (op_kernel/aicpu/<op>_aicpu.cpp): the formula as plain C++ over double, for the
dtypes the spec routes away from AI Core (DOUBLE)."""

from __future__ import annotations

from opgen import formula as F
from opgen.emit.templating import render
from opgen.lang import code, ident
from opgen.plan.operator import OperatorPlan


def render_aicpu(operator: OperatorPlan) -> dict[str, str]:
    spec, spec_name = operator.spec, operator.source
    if not spec.routing.aicpu:
        return {}
    op = spec.operator.file_stem
    opdef = operator.opdef
    inputs = [spec.param(str(i.param)) for i in opdef.read_inputs]
    attrs = [a for a in opdef.attrs if a.param is not None]  # those the formula reads (a fixed one is not)
    expr = operator.kernel_formula
    names = {p.name: f"{p.name}Data[i]" for p in inputs}
    path = f"op_kernel/aicpu/{op}_aicpu.cpp"
    return {
        path: render(
            "op/op_kernel/aicpu/aicpu.cpp.j2",
            path,
            spec_name,
            op_type=ident(spec.operator.type),
            inputs=[{"name": ident(p.name), "index": opdef.input_index(p.name)} for p in inputs],
            attrs=attrs,
            element_expr=code(F.to_cpp(expr, names)),
            helpers=code(operator.cpp_helpers),
            dtypes=[ident(d.ge_enum.replace("ge::", "")) for d in spec.routing.aicpu],
        )
    }
