"""op_host: the OpDef (one AI Core config per supported SoC), shape inference and the tiling.

The tiling's numbers (bits of UB per element for each tiling key, alignment) come from the lowered
programs of the kernel plan, so the UB budget is exactly what the kernel allocates.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit_kernel import tiling_struct
from opgen.formula_binding import kernel_formula
from opgen.kernel_plan import KernelPlan, aicore_dtypes, kernel_plan
from opgen.model import OpSpec, Param, ParamKind
from opgen.templating import render

MIN_BYTES_PER_CORE = 4096  # below this, splitting over more cores costs more than it gains
BLOCK_BYTES = 32


@dataclass(frozen=True)
class OpDefParam:
    name: str
    dtypes: str  # C++ initializer list body
    formats: str


@dataclass(frozen=True)
class OpDefAttr:
    name: str
    param: str
    kind: str  # "Float" or "Bool"
    default: str
    index: int


def opdef_attrs(spec: OpSpec) -> list[OpDefAttr]:
    """Scalars and flags the kernel needs, in spec order; their position is the runtime attr index."""
    used = set(F.free_names(kernel_formula(spec)))
    attrs = []
    for param in spec.params:
        if param.kind is ParamKind.TENSOR or param.name not in used:
            continue
        if param.kind is ParamKind.SCALAR:
            default = f"{float(param.default if param.default is not None else 0.0)!r}f"
            attrs.append(OpDefAttr(param.opdef, param.name, "Float", default, len(attrs)))
        else:
            attrs.append(OpDefAttr(param.opdef, param.name, "Bool", "true" if param.default else "false", len(attrs)))
    return attrs


def _param_row(param: Param, dtypes: list[DType]) -> OpDefParam:
    return OpDefParam(
        name=param.opdef,
        dtypes=", ".join(d.ge_enum for d in dtypes),
        formats=", ".join("ge::FORMAT_ND" for _ in dtypes),
    )


def soc_configs(spec: OpSpec) -> list[dict]:
    kernel_dtypes = set(aicore_dtypes(spec))
    configs = []
    for support in spec.supported_socs:
        first = spec.tensor_inputs[0]
        dtypes = [d for d in spec.dtypes_on(first, support.soc) if d in kernel_dtypes]
        configs.append(
            {
                "soc": support.soc,
                "var": "config" + "".join(part.capitalize() for part in support.soc.split("_")),
                "inputs": [_param_row(p, dtypes) for p in spec.tensor_inputs],
                "outputs": [_param_row(p, dtypes) for p in spec.outputs],
            }
        )
    return configs


def _variant_rows(spec: OpSpec, plan: KernelPlan) -> list[dict]:
    return [
        {
            "key": v.key,
            "dtype": v.storage.ge_enum,
            "mode": v.mode_index,
            "item_size": v.storage.itemsize,
            "bits_per_element": v.bits_per_element,
            "align": v.align_elements,
            "masks": len(v.program.masks),
            "name": v.name,
        }
        for v in plan.variants
    ]


def shape_rule(spec: OpSpec) -> dict:
    out = spec.outputs[0]
    inputs = [p.name for p in spec.tensor_inputs]
    if out.shape.broadcast_result_of:
        sources = [inputs.index(name) for name in out.shape.broadcast_result_of]
        return {"kind": "broadcast", "sources": sources}
    source = out.shape.same_as or inputs[0]
    return {"kind": "copy", "sources": [inputs.index(source)]}


def render_host(spec: OpSpec, spec_name: str) -> dict[str, str]:
    op = spec.operator.dir
    plan = kernel_plan(spec)
    attrs = opdef_attrs(spec)
    flags = [a for a in attrs if a.kind == "Bool"]
    context = dict(
        op_type=spec.operator.type,
        op=op,
        tiling_struct=tiling_struct(spec),
        tiling_header=f"{op}_tiling_data.h",
        inputs=[_param_row(p, aicore_dtypes(spec)) for p in spec.tensor_inputs],
        outputs=[_param_row(p, aicore_dtypes(spec)) for p in spec.outputs],
        attrs=attrs,
        scalar_attrs=[a for a in attrs if a.kind == "Float"],
        flag_bits=[{"attr": a, "bit": plan.flags.index(a.param)} for a in flags],
        configs=soc_configs(spec),
        variants=_variant_rows(spec, plan),
        shape=shape_rule(spec),
        min_bytes_per_core=MIN_BYTES_PER_CORE,
        block_bytes=BLOCK_BYTES,
    )
    files = {}
    for template, name in (
        ("op/op_host/def.cpp.j2", f"op_host/{op}_def.cpp"),
        ("op/op_host/infershape.cpp.j2", f"op_host/{op}_infershape.cpp"),
        ("op/op_host/tiling.h.j2", f"op_host/{op}_tiling.h"),
        ("op/op_host/tiling.cpp.j2", f"op_host/{op}_tiling.cpp"),
    ):
        files[name] = render(template, name, spec_name, **context)
    return files
