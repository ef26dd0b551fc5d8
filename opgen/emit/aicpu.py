"""The AICPU kernel (op_kernel/aicpu/<op>_aicpu.cpp): the formula as plain C++ per element, for the dtypes the
spec routes away from AI Core: DOUBLE in double, the integers in the integer dtype itself (wrapping), the complex
dtypes in std::complex<double>."""

from __future__ import annotations

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit.templating import render
from opgen.formula.complex import CPP_COMPLEX_HELPERS, to_cpp_complex
from opgen.formula.integer import CPP_INTEGER_HELPERS, to_cpp_integer
from opgen.lang import Code, code, ident
from opgen.plan.operator import OperatorPlan


def render_aicpu(operator: OperatorPlan) -> dict[str, str]:
    spec_name = operator.source
    if not operator.aicpu_dtypes:
        return {}
    op = operator.file_stem
    opdef = operator.opdef
    inputs = [operator.param(str(i.param)) for i in opdef.read_inputs]
    attrs = [a for a in opdef.attrs if a.param is not None]  # those the formula reads (a fixed one is not)
    routed = operator.aicpu_dtypes
    double = DType.DOUBLE in routed
    integers = [d for d in routed if d.is_integral]
    complexes = [d for d in routed if d.is_complex]
    path = f"op_kernel/aicpu/{op}_aicpu.cpp"
    cases = [
        {"enum": ident(d.ge_enum.replace("ge::", "")), "function": code("Double")} for d in routed if d.is_floating
    ]
    cases += [
        {"enum": ident(d.ge_enum.replace("ge::", "")), "function": code(f"Complex<{d.cpp_type}>")} for d in complexes
    ]
    cases += [
        {"enum": ident(d.ge_enum.replace("ge::", "")), "function": code(f"Integer<{d.cpp_type}>")} for d in integers
    ]
    # the schedule's loop over the output's elements and what each formula name reads
    loop = operator.schedule.element_loop(tuple(p.name for p in inputs), operator.schedule.outputs[0])
    integer_names = dict(loop.reads)
    # every input in the output's dtype; a scalar's tensor holds its one value
    mismatch = [f"{p.name}->GetDataType() != dtype" for p in inputs]
    for i in opdef.scalar_inputs:
        mismatch += [f"{i.param}Tensor->GetDataType() != dtype", f"{i.param}Tensor->NumElements() != 1"]
    complex_names = {name: f"{name}Value" for name, _ in loop.reads}
    # a formula.let is a const local of the element loop, computed once per element
    formulas = operator.formulas
    # per-row values (a reduction along dim) computed before each row's elements, which the outputs then read
    steps, stepped = operator.schedule.row_steps(formulas.over_params)
    double_lets: list[tuple[str, str]]
    if steps:
        double_lets, double_outputs = [], {name: F.to_cpp(e, integer_names) for name, e in stepped.items()}
    else:
        double_lets, double_outputs = formulas.sources(integer_names, F.to_cpp) if double else ([], {})
    integer_lets, integer_outputs = formulas.sources(integer_names, to_cpp_integer) if integers else ([], {})
    return {
        path: render(
            "op/op_kernel/aicpu/aicpu.cpp.j2",
            path,
            spec_name,
            op_type=ident(operator.op_type),
            inputs=[{"name": ident(p.name), "index": opdef.input_index(p.name)} for p in inputs],
            # scalars carried as one-element tensors of the kernel's dtype: read from their input
            mismatch=code(" || ".join(mismatch)),
            gm_scalars=[{"name": ident(str(i.param)), "index": i.index} for i in opdef.scalar_inputs],
            attrs=[
                {
                    "name": a.name,
                    "param": a.param,
                    "kind": ident(a.kind),
                    # its C++ type and its read from the AttrValue, by its kind
                    "ctype": code(a.kind_record.aicpu_ctype),
                    "read": a.kind_record.aicpu_value(f"{a.param}Attr"),
                }
                for a in attrs
            ],
            setup=[code(line) for line in loop.setup],
            loops=[{"index": ident(index), "bound": code(bound)} for index, bound in loop.loops],
            reads=[{"name": ident(name), "element": code(element)} for name, element in loop.reads],
            includes=[code(name) for name in loop.includes],
            double=double,
            double_lets=_lets(double_lets),
            double_steps=[
                {"name": ident(step.name), "op": ident(step.op), "expr": code(F.to_cpp(step.arg, integer_names))}
                for step in steps
            ],
            along_row=loop.along_row,
            double_writes=_writes(loop.writes, double_outputs),
            helpers=code(operator.cpp_helpers if double or complexes else ""),
            complexes=[ident(d.value) for d in complexes],
            complex_helpers=code(CPP_COMPLEX_HELPERS if complexes else ""),
            complex_writes=[
                {"index": code(loop.writes[0][1]), "expr": code(to_cpp_complex(operator.kernel_formula, complex_names))}
            ]
            if complexes
            else [],
            integers=[ident(d.value) for d in integers],
            integer_lets=_lets(integer_lets),
            integer_writes=_writes(loop.writes, integer_outputs),
            integer_helpers=code(CPP_INTEGER_HELPERS if integers else ""),
            dtypes=[ident(d.ge_enum.replace("ge::", "")) for d in routed],
            cases=cases,
        )
    }


def _writes(writes: tuple[tuple[str, str], ...], sources: dict[str, str]) -> list[dict[str, Code]]:
    """Each element the loop writes: its index into outData and the source of its computed output."""
    return [{"index": code(index), "expr": code(sources[name])} for name, index in writes if name in sources]


def _lets(assigned: list[tuple[str, str]]) -> list[dict[str, Code]]:
    return [{"name": ident(name), "expr": code(text)} for name, text in assigned]
