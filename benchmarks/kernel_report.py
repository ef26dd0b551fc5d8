"""Per op, dtype and mode: vector instructions per tile, live UB buffers, UB bytes per element, tile length
and UB utilisation on each SoC — from the kernel plan, next to the ops-nn figures of the reference notes.

    python benchmarks/kernel_report.py            # table on stdout
    python benchmarks/kernel_report.py --json     # the same as JSON
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from opgen.plan.kernel import BUFFER_NUM, kernel_plan  # noqa: E402
from opgen.spec.loader import load_spec  # noqa: E402
from opgen.spec.socs import get_soc  # noqa: E402

OPS = ["leaky_relu_grad", "elu_grad_v2", "leaky_relu"]
SOCS = ["ascend910b", "ascend950"]
BLOCK = 32

# Figures of hand-written / ops-nn kernels from the reference notes (section 4), for comparison.
OPS_NN = {
    "leaky_relu_grad": "community LeakyReluGradV2 (fp32/fp16): 8 tile-sized UB regions; "
    "CompareScalar, copy, Muls, Select",
    "elu_grad_v2": "ops-nn EluGradV2 fp16 is_result: 11 buffers x 4 B/elem = 44 B/elem, tile 5,376 on a 245,760 B UB; "
    "Cast, CompareScalar, Muls, Exp, Muls, Mul, Muls, Select, Cast",
    "leaky_relu": "(no figure in the notes)",
}


def tile_for(variant, ub: int) -> int:
    budget = ub - len(variant.program.masks) * BLOCK
    return budget * 8 // variant.bits_per_element // variant.align_elements * variant.align_elements


def rows() -> list[dict]:
    result = []
    for op in OPS:
        spec = load_spec(ROOT / "specs" / f"{op}.yaml").spec
        for variant in kernel_plan(spec).variants:
            program = variant.program
            row = {
                "op": op,
                "dtype": variant.storage.value,
                "mode": ",".join(f"{k}={v}" for k, v in variant.mode) or "-",
                "compute": variant.compute.value,
                "instructions_per_tile": len(program.instrs),
                "apis": [i.api for i in program.instrs],
                "live_buffers": program.live_buffers(BUFFER_NUM),
                "temporaries": len(program.temps),
                "masks": len(program.masks),
                "ub_bytes_per_element": program.ub_bytes_per_element(BUFFER_NUM),
            }
            for soc_name in SOCS:
                soc = get_soc(soc_name)
                tile = tile_for(variant, soc.ub_usable_bytes)
                used = tile * program.ub_bytes_per_element(BUFFER_NUM) + len(program.masks) * BLOCK
                row[f"tile_{soc_name}"] = tile
                row[f"ub_utilisation_{soc_name}"] = round(used / soc.ub_usable_bytes, 4)
            result.append(row)
    return result


def main() -> None:
    data = rows()
    if "--json" in sys.argv:
        print(json.dumps(data, indent=1))
        return
    header = f"{'op':16} {'dtype':9} {'mode':15} {'instr/tile':>10} {'live buf':>8} {'B/elem':>7} " + " ".join(
        f"{'tile ' + s:>16} {'UB use':>7}" for s in SOCS
    )
    print(header)
    for row in data:
        line = (
            f"{row['op']:16} {row['dtype']:9} {row['mode']:15} {row['instructions_per_tile']:>10} "
            f"{row['live_buffers']:>8} {row['ub_bytes_per_element']:>7.3f} "
        )
        line += " ".join(f"{row['tile_' + s]:>16} {row['ub_utilisation_' + s]:>7.1%}" for s in SOCS)
        print(line)
    print()
    for op, figure in OPS_NN.items():
        print(f"ops-nn {op}: {figure}")


if __name__ == "__main__":
    main()
