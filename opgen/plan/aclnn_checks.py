"""The aclnn API's (op_api's) data decided in the plan: per-parameter dtype lists by SoC, the promoted compute
dtype's C++ expression, the AI Core dtypes and how a float scalar is read, so the op_api emitter reads them and
does not consult the spec's checks or SoC tables."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.lang import Code, code, ident
from opgen.plan.kernel import aicore_dtypes
from opgen.spec.checks import (
    CheckDtypeSupported,
    cpp_dtype,
    cpp_result_dtype,
    cpp_scalar_value,
    dtype_list_function,
    shares_dtype_lists,
)
from opgen.spec.dtypes import DType
from opgen.spec.model import OpSpec, ParamKind
from opgen.spec.socs import get_soc, group_name


@dataclass(frozen=True)
class DtypeList:
    param: Code  # the parameter (or parameters, when they share the lists) it holds the dtypes of
    function: Code  # C++ function returning the list for the current SoC
    groups: list[tuple[list[Code], Code, Code]]  # (SocVersion enumerators, list variable, initializer body)
    default: Code  # list variable for SoCs the spec does not name


@dataclass(frozen=True)
class AclnnChecks:
    dtype_lists: tuple[DtypeList, ...]
    compute_dtype: Code  # the C++ expression of the dtype the inputs are promoted to
    aicore_dtypes: Code  # the dtypes the AI Core kernel takes, as op::DataType enumerators
    # scalar attributes can meet an integer compute dtype (they are then truncated on the host)
    integer_scalars: bool
    scalar_values: dict[str, Code]  # a float scalar parameter -> how the C++ reads it (aclScalar::ToFloat)
    # the output whose dtype the inputs are cast to before the kernel (dtype.cast_inputs), else "" (the inputs'
    # promoted dtype; the result is cast to each output's dtype after the kernel)
    cast_inputs_to: str = ""


def _upper_snake(name: str) -> str:
    """gradOutput -> GRAD_OUTPUT (constants are named as ops-nn names them)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def dtype_lists(spec: OpSpec) -> list[DtypeList]:
    """Per-parameter dtype lists by SoC (a SoC's list is the param's minus what the SoC lacks), named for what they
    hold: DTYPE_SUPPORT_LIST_<PARAM> is the param's full list, <SOC>_DTYPE_SUPPORT_LIST_<PARAM> a SoC's narrower
    one; one set (DTYPE_SUPPORT_LIST, ...) when every checked parameter has the same lists."""
    lists = []
    row_checks = [row.check for row in spec.errors]
    checked = {n for check in row_checks if isinstance(check, CheckDtypeSupported) for n in check.names()}
    shared = shares_dtype_lists(spec)
    for param in spec.params:
        if param.name not in checked:  # only the lists a check reads (an unused one would warn)
            continue
        base = "DTYPE_SUPPORT_LIST" if shared else "DTYPE_SUPPORT_LIST_" + _upper_snake(param.name)
        every = [support.soc for support in spec.socs]
        by_list: dict[tuple[DType, ...], list[str]] = {}
        for support in spec.socs:
            by_list.setdefault(tuple(spec.dtypes_on(param, support.soc)), []).append(support.soc)
        full = tuple(param.dtypes)
        groups = []
        taken: set[str] = set()
        for dtypes, socs in by_list.items():
            var = base if dtypes == full else f"{group_name(socs, every).upper()}_{base}"
            var = var if var not in taken else f"{socs[0].upper()}_{base}"
            taken.add(var)
            versions = [ident(get_soc(soc).soc_version) for soc in socs]
            groups.append((versions, ident(var), code(", ".join(cpp_dtype(d) for d in dtypes))))
        if full not in by_list:
            groups.append(([], ident(base), code(", ".join(cpp_dtype(d) for d in full))))
        function = ident(dtype_list_function(spec, param.name))
        what = (
            code(", ".join(sorted(checked, key=[p.name for p in spec.params].index))) if shared else ident(param.name)
        )
        lists.append(DtypeList(what, function, groups, ident(base)))
        if shared:  # one list serves every parameter
            break
    return lists


def _compute_dtype_expr(spec: OpSpec) -> Code:
    cast_to = spec.inputs_cast_to
    if cast_to is not None:  # the inputs are cast to that output's dtype before the kernel (dtype.cast_inputs)
        return code(f"{cast_to.name}->GetDataType()")
    inputs = spec.tensor_inputs
    promoted = [p.name for p in inputs if p.dtype.promote_with] or [inputs[0].name]
    names = list(dict.fromkeys(promoted + [n for p in inputs for n in p.dtype.promote_with]))
    return code(cpp_result_dtype(spec, names))


def _integer_scalars(spec: OpSpec) -> bool:
    """Whether scalar attributes can meet an integer compute dtype (they are then truncated on the host)."""
    kernel_dtypes = [*aicore_dtypes(spec), *spec.routing.aicpu]
    return any(d.is_integral for d in kernel_dtypes) and any(p.kind is ParamKind.SCALAR for p in spec.params)


def aclnn_checks(spec: OpSpec) -> AclnnChecks:
    return AclnnChecks(
        dtype_lists=tuple(dtype_lists(spec)),
        compute_dtype=_compute_dtype_expr(spec),
        aicore_dtypes=code(", ".join(cpp_dtype(d) for d in aicore_dtypes(spec))),
        integer_scalars=_integer_scalars(spec),
        scalar_values={p.name: code(cpp_scalar_value(p.name)) for p in spec.params if p.kind is ParamKind.SCALAR},
        cast_inputs_to=spec.inputs_cast_to.name if spec.inputs_cast_to is not None else "",
    )
