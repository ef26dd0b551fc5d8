"""Builds and runs a generated AI Core kernel on the CPU twin through CANN's CPU-debug idiom.

The harness program computes the tiling with the generated host planner (the same code the tiling
function runs), launches the kernel with ICPU_RUN_KF and writes the output; the twin's checks are on. One
program per operator; one process per batch of runs on one SoC (a file lists the runs, one per line).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opgen.plan.opdef import opdef_plan
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
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tikicpulib.h"
#include "{op}_tiling.h"

extern "C" __global__ __aicore__ void {op}({gm_params}, GM_ADDR workspace, GM_ADDR tiling);

static void ReadFile(const char* path, void* dst, size_t bytes) {{
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
}}

static int RunOne(int argc, char** argv) {{
  // argv: total dtype mode coreNum ubSize itemSize out.bin in.bin... scalar.bin... scalars...
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
  std::vector<uint8_t*> scalarInputs;  // scalars the OpDef takes as one-element tensors of the dtype
  for (int i = 0; i < {num_gm_scalars}; ++i) {{
    scalarInputs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(static_cast<size_t>(std::atoi(argv[6])))));
    ReadFile(argv[8 + {num_inputs} + i], scalarInputs.back(), static_cast<size_t>(std::atoi(argv[6])));
  }}
  std::vector<uint8_t*> outs;  // every computed output, written one after the other into the result file
  for (int i = 0; i < {num_outputs}; ++i) {{
    outs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(bytes)));
  }}
  auto* tilingData = static_cast<{tiling_struct}*>(AscendC::GmAlloc(sizeof({tiling_struct})));
  tilingData->totalLength = total;
  tilingData->perCoreLength = plan.perCoreLength;
  tilingData->tileLength = plan.tileLength;
{scalar_lines}
  uint8_t* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(32));
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(plan.tilingKey);
  ICPU_RUN_KF({op}, plan.blockDim, {launch_args}, {out_args}, workspace, reinterpret_cast<uint8_t*>(tilingData));
  std::ofstream result(argv[7], std::ios::binary);
  for (uint8_t* out : outs) {{
    result.write(reinterpret_cast<const char*>(out), static_cast<std::streamsize>(bytes));
  }}
  return 0;
}}

int main(int argc, char** argv) {{
  // argv[1]: a file of runs, one per line, each the arguments of RunOne
  if (argc != 2) {{
    return 2;
  }}
  std::ifstream runs(argv[1]);
  std::string line;
  while (std::getline(runs, line)) {{
    std::istringstream fields(line);
    std::vector<std::string> words{{std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()}};
    std::vector<char*> args{{argv[0]}};
    for (auto& word : words) {{
      args.push_back(word.data());
    }}
    const int status = RunOne(static_cast<int>(args.size()), args.data());
    if (status != 0) {{
      return status;
    }}
    std::fflush(stdout);
  }}
  return 0;
}}
"""

# ge::DataType values (ACL and GE share them for these types)
GE_DTYPE = {d: d.acl_value for d in DType}  # ge::DataType numbers its dtypes as ACL does


@dataclass
class KernelRun:
    outputs: list[np.ndarray]  # every computed output, in order
    plan: dict

    @property
    def output(self) -> np.ndarray:
        return self.outputs[0]


class KernelHarness:
    """One program per operator, linked against the session's twin library (which holds the kernel and the
    tiling); the SoC is picked per run (OPGEN_SOC)."""

    def __init__(self, spec: OpSpec, twin_lib, workdir: Path):
        self.spec, self.workdir = spec, workdir
        op = spec.operator.file_stem  # the kernel entry and its files (a directory may hold several operators)
        opdef = opdef_plan(spec)
        # the inputs the kernel reads, in the OpDef's (entry's) order; an optional one the API has none for is null,
        # an unread one gets the tensor of the read input carrying its param (as the L0 op passes it)
        self.inputs = [spec.param(str(i.param)) for i in opdef.read_inputs]
        self.scalars = [a for a in opdef.attrs if a.kind == "Float" and a.param is not None]
        # scalars the OpDef takes as one-element tensors: a file each, holding the value in the run's dtype
        self.gm_scalars = [str(i.param) for i in opdef.scalar_inputs]
        slot = {str(i.param): f"inputs[{n}]" for n, i in enumerate(opdef.read_inputs)}
        slot |= {name: f"scalarInputs[{n}]" for n, name in enumerate(self.gm_scalars)}
        null = "static_cast<uint8_t*>(nullptr)"
        entry_args = [slot[i.param] if i.param is not None else null for i in opdef.inputs]
        source = workdir / f"{op}_harness.cpp"
        first_scalar = 8 + len(self.inputs) + len(self.gm_scalars)
        scalar_lines = "\n".join(
            f"  tilingData->{a.param} = static_cast<float>(std::atof(argv[{first_scalar + i}]));"
            for i, a in enumerate(self.scalars)
        )
        # a channel input here holds one value per element (as the aclnn API passes it when its runs are short)
        scalar_lines += "".join(
            f"\n  tilingData->{p.name}Run = 0;\n  tilingData->{p.name}Count = total;"
            for p in self.inputs
            if p.shape.channel_of
        )
        source.write_text(
            _HARNESS.format(
                op=op,
                op_type=spec.operator.type,
                tiling_struct=f"{spec.operator.type}TilingData",
                gm_params=", ".join("GM_ADDR" for _ in range(len(entry_args) + len(spec.outputs))),
                num_outputs=len(spec.outputs),
                out_args=", ".join(f"outs[{i}]" for i in range(len(spec.outputs))),
                min_args=first_scalar + len(self.scalars),
                num_inputs=len(self.inputs),
                num_gm_scalars=len(self.gm_scalars),
                scalar_lines=scalar_lines,
                launch_args=", ".join(entry_args),
            )
        )
        package = GENERATED / spec.operator.dir
        self.binary = twin_lib.program(
            f"kernel_harness_{op}",
            [source],
            ops_dirs=[],
            flags=[f"-I{package / 'op_host'}", f"-I{package / 'op_kernel'}"],
        )

    def run(
        self, soc_name: str, runs: list[tuple[DType, int, dict[str, np.ndarray], dict[str, float]]]
    ) -> list[KernelRun]:
        """Each (dtype, mode, inputs, scalars) run, in one process on SoC `soc_name`."""
        soc = get_soc(soc_name)
        lines, outputs = [], []
        for index, (dtype, mode, inputs, scalars) in enumerate(runs):
            total = next(iter(inputs.values())).size
            files = []
            for param in self.inputs:
                path = self.workdir / f"in{index}_{param.name}.bin"
                path.write_bytes(np.ascontiguousarray(inputs[param.name]).reshape(-1).tobytes())
                files.append(str(path))
            for name in self.gm_scalars:  # the value as given: the caller converts it to the dtype
                path = self.workdir / f"in{index}_{name}.bin"
                path.write_bytes(np.array([scalars[name]], np.float64).astype(dtype.numpy).tobytes())
                files.append(str(path))
            out_path = self.workdir / f"out{index}.bin"
            outputs.append((out_path, dtype))
            fields = [total, GE_DTYPE[dtype], mode, soc.vector_cores, soc.ub_usable_bytes, dtype.itemsize, out_path]
            fields += files + [repr(float(scalars[a.param])) for a in self.scalars]
            lines.append(" ".join(map(str, fields)))
        run_file = self.workdir / "runs.txt"
        run_file.write_text("\n".join(lines) + "\n")
        env = {**os.environ, "OPGEN_SOC": soc_name}
        proc = subprocess.run([str(self.binary), str(run_file)], capture_output=True, text=True, env=env, timeout=1200)
        if proc.returncode != 0:
            raise RuntimeError(f"kernel run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
        plans = [json.loads(line) for line in proc.stdout.strip().splitlines()]
        assert len(plans) == len(runs), proc.stdout[-2000:]
        count = len(self.spec.outputs)
        return [
            KernelRun(list(np.frombuffer(path.read_bytes(), dtype=dtype.numpy).copy().reshape(count, -1)), plan)
            for (path, dtype), plan in zip(outputs, plans, strict=True)
        ]
