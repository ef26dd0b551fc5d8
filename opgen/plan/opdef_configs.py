"""Which dtypes the OpDef registers for the AI Core kernel, and on which SoCs: its AddConfig groups.

ops-nn's def.cpp files add one config to several SoCs when they take the same dtype list; the grouping and the
config names are decided here, so the OpDef emitter only prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import DType
from opgen.plan.kernel import aicore_dtypes
from opgen.spec.model import OpSpec
from opgen.spec.socs import group_name


@dataclass(frozen=True)
class OpDefConfig:
    var: str  # the config's C++ variable: aicoreConfig for the first, else named after its SoCs (kirinConfig)
    socs: tuple[str, ...]  # the SoCs it is added to
    dtypes: tuple[DType, ...]  # the dtypes every OpDef input and output takes in it


@dataclass(frozen=True)
class AicoreRegistration:
    dtypes: tuple[DType, ...]  # every dtype the AI Core kernel takes (the OpDef's own lists)
    configs: tuple[OpDefConfig, ...]


def aicore_registration(spec: OpSpec, socs: tuple[str, ...]) -> AicoreRegistration:
    """One config per distinct dtype list, added for each SoC the kernel is built for (`socs`) that takes it."""
    kernel_dtypes = aicore_dtypes(spec)
    first = spec.tensor_inputs[0]
    by_dtypes: dict[tuple[DType, ...], list[str]] = {}
    for soc in socs:
        dtypes = tuple(d for d in spec.dtypes_on(first, soc) if d in kernel_dtypes)
        by_dtypes.setdefault(dtypes, []).append(soc)
    configs: list[OpDefConfig] = []
    for dtypes, members in by_dtypes.items():
        if not configs:
            var = "aicoreConfig"
        else:
            # distinct: a SoC is in one group, and a family's name is taken only by a group holding all of it
            var = group_name(members, socs)
            var = f"{var}Config" if var.isalpha() else "config" + "".join(p.capitalize() for p in var.split("_"))
        configs.append(OpDefConfig(var, tuple(members), dtypes))
    return AicoreRegistration(tuple(kernel_dtypes), tuple(configs))
