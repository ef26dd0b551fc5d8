"""op_host: the OpDef (one AI Core config per supported SoC), shape inference and the tiling.

The tiling's numbers (bits of UB per element for each tiling key, alignment) come from the lowered
programs of the kernel plan, so the UB budget is exactly what the kernel allocates.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit.kernel import condition_cpp
from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident
from opgen.plan.half_split_tiling import MAX_BLOCK_COUNT, MAX_STRIDE_BYTES
from opgen.plan.kernel import BLOCK_BYTES, BUFFER_NUM, REPEAT_BYTES, KernelPlan, ModeAxis
from opgen.plan.opdef import OpDefAttr, OpDefIO, OpDefPlan
from opgen.plan.operator import OperatorPlan
from opgen.plan.schedules import Schedule
from opgen.plan.tiling import MIN_BYTES_PER_CORE


@dataclass(frozen=True)
class OpDefParam:
    name: Code
    param_type: Code  # REQUIRED or OPTIONAL
    dtypes: Code  # C++ initializer list body
    formats: Code


def _param_row(io: OpDefIO, dtypes: list[DType]) -> OpDefParam:
    return OpDefParam(
        name=io.name,
        param_type=io.param_type,
        dtypes=code(", ".join(d.ge_enum for d in dtypes)),
        formats=code(", ".join("ge::FORMAT_ND" for _ in dtypes)),
    )


def soc_configs(operator: OperatorPlan) -> list[dict]:
    """The OpDef's AI Core configs as the plan groups them (OperatorPlan.registration)."""
    opdef = operator.opdef
    return [
        {
            "socs": [ident(soc) for soc in config.socs],
            "var": ident(config.var),
            "inputs": [_param_row(p, list(config.dtypes)) for p in opdef.inputs],
            "outputs": [_param_row(p, list(config.dtypes)) for p in opdef.outputs],
        }
        for config in operator.registration.configs
    ]


def _variant_rows(plan: KernelPlan) -> list[dict]:
    """Each kernel variant's figures, from which the tiling computes its UB cost per element in the kernel's own
    terms (queues, temporary and mask buffers), so it reads as the kernel allocates."""
    rows = []
    for v in plan.variants:
        program = v.program
        bits = (BUFFER_NUM * _queue_num(plan) * v.storage.itemsize + len(program.temps) * v.compute.itemsize) * 8
        assert bits + len(program.masks) == v.bits_per_element, "the tiling's UB cost must be the kernel plan's"
        rows.append(
            {
                "key": ident(v.key_name),
                "dtype": code(v.storage.ge_enum),
                "mode": v.mode_index,
                "item_size": v.storage.itemsize,
                "compute_size": v.compute.itemsize,
                "temps": len(program.temps),
                "masks": len(program.masks),
                "name": ident(v.name),
            }
        )
    return rows


def _queue_num(plan: KernelPlan) -> int:
    """The kernel's queues: one per buffer its program reads and one per output."""
    return len(plan.program_inputs) + len(plan.outputs)


def _enum_mode(attr: OpDefAttr, axis: ModeAxis, stride: int) -> dict:
    """How the tiling turns an int64/string attribute into its digit of the mode index; other values fail."""
    tests = []
    for position, value in enumerate(axis.values):
        if attr.kind == "String":  # a string parameter, or an int64 one carried as its text
            test = f"std::strcmp({attr.param}, {cpp.string(attr.text_of(value))}) == 0"
        else:
            test = f"*{attr.param} == {int(value)}"
        opening = Code("if" if position == 0 else "} else if")
        tests.append({"opening": opening, "test": code(test), "add": position * stride})
    return {"attr": attr, "tests": tests, "string": attr.kind == "String"}


def _conditions(plan: KernelPlan, attrs: list[OpDefAttr]) -> list[dict]:
    """Each host-known where() condition the tiling decides: the attributes it reads (as float, as the kernel
    sees them), its C++ and what it adds to the mode index when it holds."""
    views = []
    for index, cond in enumerate(plan.conditions):
        names = F.free_names(cond)
        reads = [a for a in attrs if a.param in names]
        fields = {str(a.param): f"static_cast<float>(*{a.param})" for a in reads}
        views.append(
            {
                "text": code(F.to_text(cond)),
                "reads": reads,
                "cpp": code(condition_cpp(cond, fields)),
                "add": plan.condition_stride(index),
            }
        )
    return views


def shape_rule(schedule: Schedule, opdef: OpDefPlan) -> dict:
    """The schedule's infershape rule, its sources as OpDef input indices, and what else its rule takes."""
    sources = [opdef.input_index(name) for name in schedule.shape_sources]
    rule: dict[str, object] = {"kind": schedule.shape_kind, "sources": sources}  # kind: for tests
    return rule | schedule.shape_rule_data(opdef)


def render_host(operator: OperatorPlan) -> dict[str, str]:
    if operator.runs is not None:  # another operator's OpDef and tiling serve it
        return {}
    spec_name = operator.source
    op = operator.file_stem
    plan = operator.kernel
    opdef = operator.opdef
    attrs = list(opdef.attrs)
    flags = [a for a in attrs if a.kind == "Bool" and a.param in plan.flags]
    strides = plan.strides()
    guard = plan.guard_stride
    # a power of two keeps the flags' bit arithmetic; int64/string modes count in their radix
    guard_update = f"mode |= 1u << {guard.bit_length() - 1};" if guard & (guard - 1) == 0 else f"mode += {guard}u;"
    context = {
        "op_type": ident(operator.op_type),
        "op": ident(op),
        "op_file": ident(operator.kernel_entry),
        "tiling_struct": operator.tiling_struct,
        "tiling_header": code(f"{op}_tiling_data.h"),
        "inputs": [_param_row(p, list(operator.registration.dtypes)) for p in opdef.inputs],
        "outputs": [_param_row(p, list(operator.registration.dtypes)) for p in opdef.outputs],
        "attrs": attrs,
        # the tiling data holds floats: an int64 attribute is converted
        "scalar_attrs": [
            {"attr": a, "value": code(f"*{a.param}" if a.ctype == "float" else f"static_cast<float>(*{a.param})")}
            for a in attrs
            if a.param in plan.scalars
        ],
        "flag_bits": [{"attr": a, "bit": plan.flags.index(a.param)} for a in flags],
        "enum_modes": [
            _enum_mode(a, axis, strides[axis.name]) for axis in plan.enums for a in attrs if a.param == axis.name
        ],
        "compares_strings": any(a.kind == "String" and a.param in plan.mode_names for a in attrs),
        "guard_attrs": [a for a in attrs if a.param in plan.guards],
        "conditions": _conditions(plan, attrs),
        "guard_update": code(guard_update),
        "configs": soc_configs(operator),
        # a schedule with its own UB model gives its figures in its host tiling data
        "variants": _variant_rows(plan) if operator.schedule.elementwise_ub else [],
        "shape": shape_rule(operator.schedule, opdef),
        "output_count": len(operator.schedule.outputs),  # every output has the first one's shape
        # channel inputs: the tiling tells the kernel how many elements share each value
        "channels": [
            {"name": ident(c.name), "index": opdef.input_index(c.name)} for c in operator.schedule.channel_inputs
        ],
        "min_bytes_per_core": MIN_BYTES_PER_CORE,
        "block_bytes": BLOCK_BYTES,
        "repeat_bytes": REPEAT_BYTES,
        "queue_num": _queue_num(plan),
        "max_block_count": MAX_BLOCK_COUNT,
        "max_stride_bytes": MAX_STRIDE_BYTES,
        # the error rows the tiling checks (status ACLNN_ERR_INNER_TILING_ERROR); None: none
        "tiling_checks": operator.tiling_checks,
    }
    schedule = operator.schedule
    context |= schedule.host_tiling_data(opdef, plan)
    files = {}
    for template, name in (
        ("op/op_host/def.cpp.j2", f"op_host/{op}_def.cpp"),
        ("op/op_host/infershape.cpp.j2", f"op_host/{op}_infershape.cpp"),
        (schedule.tiling_header_template, f"op_host/{op}_tiling.h"),
        (schedule.tiling_template, f"op_host/{op}_tiling.cpp"),
    ):
        files[name] = render(template, name, spec_name, **context)
    return files
