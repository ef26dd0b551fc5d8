"""Reader of the CPU twin's launch trace.

With env `OPGEN_TWIN_TRACE=<path>` set, every kernel launch of a twin program appends one JSON line to
<path>: kernel name, blockDim, tiling key, SoC, status ("ok" or the failed check), and per core the bytes
moved GM->UB, UB->GM and UB->UB, the UB high-water mark, the GM<->UB copy instructions issued and the UB bytes
they occupy (each block padded to 32 bytes) and the vector instructions by API (calls and elements).
`read_trace` turns the file into dataclasses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ApiCount:
    calls: int = 0
    elements: int = 0


@dataclass
class CoreTrace:
    core: int
    gm_to_ub_bytes: int = 0
    ub_to_gm_bytes: int = 0
    ub_to_ub_bytes: int = 0
    ub_high_water: int = 0
    copies: int = 0  # GM<->UB copy instructions (DataCopy, DataCopyPad)
    ub_copy_bytes: int = 0  # UB bytes those copies occupy: each block from its 32-byte boundary, padding included
    vector: dict[str, ApiCount] = field(default_factory=dict)

    @property
    def gm_bytes(self) -> int:
        """Bytes moved between GM and UB in either direction."""
        return self.gm_to_ub_bytes + self.ub_to_gm_bytes

    def calls(self, api: str) -> int:
        return self.vector.get(api, ApiCount()).calls

    def elements(self, api: str) -> int:
        return self.vector.get(api, ApiCount()).elements


@dataclass
class LaunchTrace:
    kernel: str
    block_dim: int
    tiling_key: int
    soc: str
    status: str
    cores: list[CoreTrace] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def core(self, index: int) -> CoreTrace:
        for core in self.cores:
            if core.core == index:
                return core
        raise KeyError(f"launch of {self.kernel} has no core {index}")

    def totals(self) -> CoreTrace:
        """Sums over cores; ub_high_water is the maximum. `core` is -1."""
        total = CoreTrace(core=-1)
        vector: dict[str, list[int]] = {}
        for core in self.cores:
            total.gm_to_ub_bytes += core.gm_to_ub_bytes
            total.ub_to_gm_bytes += core.ub_to_gm_bytes
            total.ub_to_ub_bytes += core.ub_to_ub_bytes
            total.ub_high_water = max(total.ub_high_water, core.ub_high_water)
            total.copies += core.copies
            total.ub_copy_bytes += core.ub_copy_bytes
            for api, count in core.vector.items():
                sums = vector.setdefault(api, [0, 0])
                sums[0] += count.calls
                sums[1] += count.elements
        total.vector = {api: ApiCount(calls, elements) for api, (calls, elements) in vector.items()}
        return total


def parse_launch(record: dict) -> LaunchTrace:
    cores = [
        CoreTrace(
            core=int(core["core"]),
            gm_to_ub_bytes=int(core["gm_to_ub_bytes"]),
            ub_to_gm_bytes=int(core["ub_to_gm_bytes"]),
            ub_to_ub_bytes=int(core["ub_to_ub_bytes"]),
            ub_high_water=int(core["ub_high_water"]),
            copies=int(core["copies"]),
            ub_copy_bytes=int(core["ub_copy_bytes"]),
            vector={api: ApiCount(int(c["calls"]), int(c["elements"])) for api, c in core["vector"].items()},
        )
        for core in record["cores"]
    ]
    return LaunchTrace(
        kernel=record["kernel"],
        block_dim=int(record["block_dim"]),
        tiling_key=int(record["tiling_key"]),
        soc=record["soc"],
        status=record["status"],
        cores=cores,
    )


def read_trace(path: str | Path) -> list[LaunchTrace]:
    """All launches recorded in a trace file, in launch order."""
    launches = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                launches.append(parse_launch(json.loads(line)))
            except (ValueError, KeyError) as error:
                raise ValueError(f"{path}:{number}: not a twin trace record: {error}") from error
    return launches
