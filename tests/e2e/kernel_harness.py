"""Builds and runs a generated AI Core kernel on the CPU twin through CANN's CPU-debug idiom.

The harness program computes the tiling with the generated host planner (the same code the tiling
function runs), launches the kernel with ICPU_RUN_KF and writes the output; the twin's checks are on.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opgen.plan.kernel import opdef_attrs
from opgen.spec.dtypes import DType
from opgen.spec.model import OpSpec
from opgen.spec.socs import get_soc

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"

_HARNESS = """\
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "tikicpulib.h"
#include "{op}_tiling.h"

extern "C" __global__ __aicore__ void {op}({gm_params}, GM_ADDR workspace, GM_ADDR tiling);

static void ReadFile(const char* path, void* dst, size_t bytes) {{
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
}}

int main(int argc, char** argv) {{
  // argv: total dtype mode coreNum ubSize itemSize out.bin in.bin... scalars...
  if (argc < {min_args}) {{
    return 2;
  }}
  const int64_t total = std::atoll(argv[1]);
  const auto dtype = static_cast<ge::DataType>(std::atoi(argv[2]));
  const uint32_t mode = static_cast<uint32_t>(std::atoi(argv[3]));
  const uint32_t coreNum = static_cast<uint32_t>(std::atoi(argv[4]));
  const uint64_t ubSize = std::strtoull(argv[5], nullptr, 10);
  const size_t bytes = static_cast<size_t>(total) * static_cast<size_t>(std::atoi(argv[6]));
  optiling::{op_type}TilingPlan plan{{}};
  if (!optiling::Plan{op_type}Tiling(total, coreNum, ubSize, dtype, mode, plan)) {{
    return 3;
  }}
  std::printf("{{\\"blockDim\\": %u, \\"tilingKey\\": %llu, \\"perCore\\": %lld, \\"tile\\": %lld}}\\n", plan.blockDim,
              static_cast<unsigned long long>(plan.tilingKey), static_cast<long long>(plan.perCoreLength),
              static_cast<long long>(plan.tileLength));
  std::vector<uint8_t*> inputs;
  for (int i = 0; i < {num_inputs}; ++i) {{
    inputs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(bytes)));
    ReadFile(argv[8 + i], inputs.back(), bytes);
  }}
  uint8_t* out = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* tilingData = static_cast<{tiling_struct}*>(AscendC::GmAlloc(sizeof({tiling_struct})));
  tilingData->totalLength = total;
  tilingData->perCoreLength = plan.perCoreLength;
  tilingData->tileLength = plan.tileLength;
{scalar_lines}
  uint8_t* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(32));
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(plan.tilingKey);
  ICPU_RUN_KF({op}, plan.blockDim, {launch_args}, out, workspace, reinterpret_cast<uint8_t*>(tilingData));
  std::ofstream result(argv[7], std::ios::binary);
  result.write(reinterpret_cast<const char*>(out), static_cast<std::streamsize>(bytes));
  return 0;
}}
"""

# ge::DataType values (ACL and GE share them for these types)
GE_DTYPE = {DType.FLOAT: 0, DType.FLOAT16: 1, DType.BFLOAT16: 27, DType.DOUBLE: 11}


@dataclass
class KernelRun:
    output: np.ndarray
    plan: dict
    trace: list[dict]


class KernelHarness:
    """One program per operator, linked against the session's twin library (which holds the kernel and the
    tiling); the SoC is picked per run (OPGEN_SOC)."""

    def __init__(self, spec: OpSpec, twin_lib, workdir: Path):
        self.spec, self.workdir = spec, workdir
        op = spec.operator.dir
        self.inputs = spec.tensor_inputs
        self.scalars = [a for a in opdef_attrs(spec) if a.kind == "Float"]
        source = workdir / f"{op}_harness.cpp"
        scalar_lines = "\n".join(
            f"  tilingData->{a.param} = static_cast<float>(std::atof(argv[{8 + len(self.inputs) + i}]));"
            for i, a in enumerate(self.scalars)
        )
        source.write_text(
            _HARNESS.format(
                op=op,
                op_type=spec.operator.type,
                tiling_struct=f"{spec.operator.type}TilingData",
                gm_params=", ".join("GM_ADDR" for _ in range(len(self.inputs) + 1)),
                min_args=8 + len(self.inputs) + len(self.scalars),
                num_inputs=len(self.inputs),
                scalar_lines=scalar_lines,
                launch_args=", ".join(f"inputs[{i}]" for i in range(len(self.inputs))),
            )
        )
        package = GENERATED / op
        self.binary = twin_lib.program(
            f"kernel_harness_{op}",
            [source],
            ops_dirs=[],
            flags=[f"-I{package / 'op_host'}", f"-I{package / 'op_kernel'}"],
        )

    def run(
        self, soc_name: str, dtype: DType, mode: int, inputs: dict[str, np.ndarray], scalars: dict[str, float]
    ) -> KernelRun:
        soc = get_soc(soc_name)
        total = next(iter(inputs.values())).size
        files = []
        for param in self.inputs:
            path = self.workdir / f"in_{param.name}.bin"
            path.write_bytes(np.ascontiguousarray(inputs[param.name]).reshape(-1).tobytes())
            files.append(str(path))
        out_path = self.workdir / "out.bin"
        trace_path = self.workdir / "trace.jsonl"
        trace_path.unlink(missing_ok=True)
        argv = [
            str(self.binary),
            str(total),
            str(GE_DTYPE[dtype]),
            str(mode),
            str(soc.vector_cores),
            str(soc.ub_usable_bytes),
            str(dtype.itemsize),
            str(out_path),
            *files,
            *(repr(float(scalars[a.param])) for a in self.scalars),
        ]
        env = {**os.environ, "OPGEN_TWIN_TRACE": str(trace_path), "OPGEN_SOC": soc_name}
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"kernel run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
        plan = json.loads(proc.stdout.strip().splitlines()[0])
        output = np.frombuffer(out_path.read_bytes(), dtype=dtype.numpy).copy()
        trace = [json.loads(line) for line in trace_path.read_text().splitlines()] if trace_path.exists() else []
        return KernelRun(output, plan, trace)
