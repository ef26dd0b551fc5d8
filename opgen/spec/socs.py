"""The SoC (chip) table: one record per CANN SoC name, the single source for product labels in docs,
the platform figures the tiling reads, and the per-SoC vector-unit rules the CPU twin enforces.

Figures come from CANN's public product documentation and the open ops-nn and asc-devkit sources; where a figure is
not public (older parts, Kirin) it is marked `figures_certain=False` and chosen conservatively.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Soc:
    name: str  # CANN SoC name, as in `AddConfig("ascend910b")`
    arch: str  # ops-nn arch directory (arch22 = A2/A3 classic, arch35 = Ascend 950)
    readme_label: str  # label in an operator README's 产品支持情况 table
    api_doc_label: str  # label in an aclnn API doc's 产品支持情况 table
    vector_cores: int
    ub_physical_bytes: int
    ub_usable_bytes: int
    bf16_vector_arith: bool  # whether vector arithmetic APIs accept bfloat16 directly
    bf16_supported: bool  # whether the chip handles bfloat16 tensors at all (Cast to/from float)
    soc_version: str = ""  # op::SocVersion enumerator the aclnn layer sees
    # DataCopyPad (exact-byte GM<->UB moves), which every generated kernel uses: absent on the older training and
    # inference parts (CANN's Ascend C API reference), where ops-nn serves these ops from its built-in kernels instead
    data_copy_pad: bool = True
    # the register-based architecture (NpuArch DAV_3510) that ops-nn's op_api tells apart with REGBASE_QUERY
    regbase: bool = False
    figures_certain: bool = True


_KB = 1024

SOCS: tuple[Soc, ...] = (
    Soc(
        name="ascend950",
        soc_version="ASCEND950",
        arch="arch35",
        readme_label="Ascend 950PR/Ascend 950DT",
        api_doc_label="Ascend 950PR/Ascend 950DT",
        vector_cores=56,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=True,
        bf16_supported=True,
        regbase=True,
    ),
    Soc(
        name="ascend910_93",
        soc_version="ASCEND910_93",
        arch="arch22",
        readme_label="Atlas A3 训练系列产品/Atlas A3 推理系列产品",
        api_doc_label="Atlas A3 训练系列产品/Atlas A3 推理系列产品",
        vector_cores=48,
        ub_physical_bytes=192 * _KB,
        ub_usable_bytes=188_160,
        bf16_vector_arith=False,
        bf16_supported=True,
    ),
    Soc(
        name="ascend910b",
        soc_version="ASCEND910B",
        arch="arch22",
        readme_label="Atlas A2 训练系列产品/Atlas A2 推理系列产品",
        api_doc_label="Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件",
        vector_cores=48,
        ub_physical_bytes=192 * _KB,
        ub_usable_bytes=188_160,
        bf16_vector_arith=False,
        bf16_supported=True,
    ),
    Soc(
        name="ascend910",
        data_copy_pad=False,
        soc_version="ASCEND910",
        arch="arch12",
        readme_label="Atlas 训练系列产品",
        api_doc_label="Atlas 训练系列产品",
        vector_cores=32,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=False,
        bf16_supported=False,
        figures_certain=False,
    ),
    Soc(
        name="ascend310p",
        data_copy_pad=False,
        soc_version="ASCEND310P",
        arch="arch20",
        readme_label="Atlas 推理系列产品",
        api_doc_label="Atlas 推理系列产品",
        vector_cores=8,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=False,
        bf16_supported=False,
        figures_certain=False,
    ),
    Soc(
        name="ascend310b",
        soc_version="ASCEND310B",
        arch="arch30",
        readme_label="Atlas 200I/500 A2 推理产品",
        api_doc_label="Atlas 200I/500 A2 推理产品",
        vector_cores=1,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=False,
        bf16_supported=False,
        figures_certain=False,
    ),
    Soc(
        name="kirin9020",
        soc_version="KIRIN9020",
        arch="kirin",
        readme_label="Kirin9020系列处理器",
        api_doc_label="Kirin9020系列处理器",
        vector_cores=2,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=False,
        bf16_supported=False,
        figures_certain=False,
    ),
    Soc(
        name="kirinx90",
        soc_version="KIRINX90",
        arch="kirin",
        readme_label="KirinX90系列处理器",
        api_doc_label="KirinX90系列处理器",
        vector_cores=2,
        ub_physical_bytes=256 * _KB,
        ub_usable_bytes=248 * _KB,
        bf16_vector_arith=False,
        bf16_supported=False,
        figures_certain=False,
    ),
)

SOC_BY_NAME: dict[str, Soc] = {soc.name: soc for soc in SOCS}

# How ops-nn's op_api asks whether it runs on a regbase SoC (common/inc/op_api/aclnn_util.h, NpuArch DAV_3510 and
# DAV_5102, of which opgen knows ascend950); the header that declares it, as the op_api includes it.
REGBASE_QUERY = "Ops::NN::AclnnUtil::IsRegbase()"
REGBASE_HEADER = "op_api/aclnn_util.h"


def regbase_socs() -> list[str]:
    return [soc.name for soc in SOCS if soc.regbase]


DEFAULT_SOC = "ascend910b"


def get_soc(name: str) -> Soc:
    try:
        return SOC_BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown SoC {name!r}; known: {', '.join(SOC_BY_NAME)}") from None


def group_name(members: list[str], every: list[str] | tuple[str, ...]) -> str:
    """What generated code calls SoCs `members` (of `every` SoC in play) that share a config or a dtype list: their
    family (the letters their names start with, `kirin`) when they are all of it there, else the first one."""
    families = {re.split(r"[^a-z]", soc)[0] for soc in members}
    family = families.pop() if len(families) == 1 else ""
    if len(members) > 1 and family and all(soc in members for soc in every if soc.startswith(family)):
        return family
    return members[0]
