"""Builds and runs a generated AI Core kernel on the CPU twin through CANN's CPU-debug idiom.

The harness program computes the tiling with the generated host planner (the same code the tiling
function runs), launches the kernel with ICPU_RUN_KF and writes the output; the twin's checks are on. One
program per operator; one process per batch of runs on one SoC (a file lists the runs, one per line).

A run gives the kernel program's input buffers, flat: for an elementwise kernel its GM inputs; for a half-split
kernel (schedule `HalfSplit`) its UB streams, each (rows, ny) elements, from which the harness lays out the split
tensor as (rows, 2, ny) and into which it cuts a full-size output back (`KernelRun.outputs` follow the program's
outputs either way); for a reduce_dim kernel (schedule `ReduceDim`) its GM inputs as (rows, ny) with rows of ny
elements along the reduced dim (the last), or, with ny given as (r, a0), as (rows, r, a0) reduced along r (a0 > 1:
the reduced dim not the last; the program takes rows, r * a0 and a0 last).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opgen.plan.opdef import opdef_plan
from opgen.plan.schedules import schedule_for
from opgen.plan.schedules.half_split import HalfSplit
from opgen.plan.schedules.reduce_dim import ReduceDim
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

// Each GM input's and output's elements in units of rows * ny (a half split's full-size tensors hold two).
static const size_t IN_WIDTHS[] = {{{in_widths}}};
static const size_t OUT_WIDTHS[] = {{{out_widths}}};
// 1: an output of one value per row (rows elements), else OUT_WIDTHS of rows * ny
static const bool OUT_PER_ROW[] = {{{out_per_row}}};

static size_t OutBytes(int i, int64_t rows, size_t unit, size_t itemSize) {{
  return OUT_PER_ROW[i] ? static_cast<size_t>(rows) * itemSize : unit * OUT_WIDTHS[i];
}}

static int RunOne(int argc, char** argv) {{
  // argv: rows ny dtype mode coreNum ubSize itemSize out.bin in.bin... scalar.bin... scalars... [swapHalves]
  // (an elementwise kernel's rows is its element count, its ny 1)
  if (argc < {min_args}) {{
    return 2;
  }}
  const int64_t rows = std::atoll(argv[1]);
  const int64_t ny = std::atoll(argv[2]);
  const auto dtype = static_cast<ge::DataType>(std::atoi(argv[3]));
  const uint32_t mode = static_cast<uint32_t>(std::atoi(argv[4]));
  const uint32_t coreNum = static_cast<uint32_t>(std::atoi(argv[5]));
  const uint64_t ubSize = std::strtoull(argv[6], nullptr, 10);
  const size_t itemSize = static_cast<size_t>(std::atoi(argv[7]));
  const size_t unit = static_cast<size_t>(rows * ny) * itemSize;
  optiling::{op_type}TilingPlan plan{{}};
  if (!optiling::Plan{op_type}Tiling({plan_args}, coreNum, ubSize, dtype, mode, plan)) {{
    return 3;
  }}
  std::printf("{{\\"blockDim\\": %u, \\"tilingKey\\": %llu, \\"tile\\": %lld}}\\n", plan.blockDim,
              static_cast<unsigned long long>(plan.tilingKey), static_cast<long long>(plan.tileLength));
  std::vector<uint8_t*> inputs;
  for (int i = 0; i < {num_inputs}; ++i) {{
    inputs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(unit * IN_WIDTHS[i])));
    ReadFile(argv[9 + i], inputs.back(), unit * IN_WIDTHS[i]);
  }}
  std::vector<uint8_t*> scalarInputs;  // scalars the OpDef takes as one-element tensors of the dtype
  for (int i = 0; i < {num_gm_scalars}; ++i) {{
    scalarInputs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(itemSize)));
    ReadFile(argv[9 + {num_inputs} + i], scalarInputs.back(), itemSize);
  }}
  std::vector<uint8_t*> outs;  // every computed output, written one after the other into the result file
  for (int i = 0; i < {num_outputs}; ++i) {{
    outs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(OutBytes(i, rows, unit, itemSize))));
  }}
  auto* tilingData = static_cast<{tiling_struct}*>(AscendC::GmAlloc(sizeof({tiling_struct})));
{tiling_lines}
{scalar_lines}
  uint8_t* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(32));
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(plan.tilingKey);
  ICPU_RUN_KF({op}, plan.blockDim, {launch_args}, {out_args}, workspace, reinterpret_cast<uint8_t*>(tilingData));
  std::ofstream result(argv[8], std::ios::binary);
  for (int i = 0; i < {num_outputs}; ++i) {{
    const auto bytes = static_cast<std::streamsize>(OutBytes(i, rows, unit, itemSize));
    result.write(reinterpret_cast<const char*>(outs[i]), bytes);
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
        schedule = schedule_for(spec)
        self.split = schedule if isinstance(schedule, HalfSplit) else None
        # a split's swap_when: the bool a run's scalars may hold (default false), set in the tiling data's swapHalves
        self.swap = self.split.swap_when if self.split is not None else None
        self.rows_of = isinstance(schedule, ReduceDim)  # runs are (rows, ny) of rows along the reduced dim
        self.row_outputs = schedule.row_outputs  # outputs of one value per row
        # the API scalars of that view (Schedule.kernel_outputs): the reduced dim the last
        self.view_scalars = {str(schedule.reduce_dim): -1} if isinstance(schedule, ReduceDim) else {}
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
        first_scalar = 9 + len(self.inputs) + len(self.gm_scalars)
        scalar_lines = "\n".join(
            f"  tilingData->{a.param} = static_cast<float>(std::atof(argv[{first_scalar + i}]));"
            for i, a in enumerate(self.scalars)
        )
        # a channel input here holds one value per element (as the aclnn API passes it when its runs are short)
        scalar_lines += "".join(
            f"\n  tilingData->{p.name}Run = 0;\n  tilingData->{p.name}Count = rows;"
            for p in self.inputs
            if p.shape.channel_of
        )
        if self.split is not None:  # the (rows, 2, ny) view's planner and tiling data
            plan_args = "rows, ny"
            fields = ["rows", "ny", "rowsPerTile", "chunk", "chunksPerRow", "tileLength", "gather"]
            tiling_lines = "\n".join(
                f"  tilingData->{f} = {f if f in ('rows', 'ny') else 'plan.' + f};" for f in fields
            )
            if self.swap is not None:  # the run's last argument (GmAlloc fills the tiling data with 0xff)
                tiling_lines += f"\n  tilingData->swapHalves = std::atoi(argv[{first_scalar + len(self.scalars)}]);"
        elif self.rows_of:  # (rows, r * a0 = ny, a0): a0 the run's last argument
            a0 = f"std::atoll(argv[{first_scalar + len(self.scalars)}])"
            plan_args = f"rows, ny / {a0}, {a0}"
            fields = {
                "rows": "rows",
                "r": f"ny / {a0}",
                "rowsPerTile": "plan.rowsPerTile",
                "tileLength": "plan.tileLength",
                "a0": a0,
                "columnsPerTile": "plan.columnsPerTile",
                "rowsPerChunk": "plan.rowsPerChunk",
                "levels": "plan.levels",
            }
            # an input broadcast to the reduced tensor comes here in the reduced tensor's shape (form 0)
            broadcast = schedule.broadcast_inputs if isinstance(schedule, ReduceDim) else ()
            fields |= {f"{name}Broadcast": "0" for name in broadcast}
            tiling_lines = "\n".join(f"  tilingData->{f} = {v};" for f, v in fields.items())
        else:
            plan_args = "rows"
            tiling_lines = (
                "  tilingData->totalLength = rows;\n  tilingData->perCoreLength = plan.perCoreLength;\n"
                "  tilingData->tileLength = plan.tileLength;"
            )
        source.write_text(
            _HARNESS.format(
                op=op,
                op_type=spec.operator.type,
                tiling_struct=f"{spec.operator.type}TilingData",
                gm_params=", ".join("GM_ADDR" for _ in range(len(entry_args) + len(spec.outputs))),
                num_outputs=len(spec.outputs),
                out_args=", ".join(f"outs[{i}]" for i in range(len(spec.outputs))),
                min_args=first_scalar + len(self.scalars) + (self.swap is not None or self.rows_of),
                num_inputs=len(self.inputs),
                num_gm_scalars=len(self.gm_scalars),
                in_widths=", ".join(str(self._width(p.name)) for p in self.inputs),
                out_widths=", ".join(str(self._width(p.name)) for p in spec.outputs),
                out_per_row=", ".join("true" if p.name in schedule.row_outputs else "false" for p in spec.outputs),
                plan_args=plan_args,
                tiling_lines=tiling_lines,
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

    def _elements(self, output: str, rows: int, ny: int) -> int:
        """Output `output`'s elements in a run: one per row (a per-row output), else rows * ny times its width."""
        return rows if output in self.row_outputs else rows * ny * self._width(output)

    def _width(self, tensor: str) -> int:
        return 1 if self.split is None else self.split.width(tensor)

    @property
    def program_inputs(self) -> list[str]:
        """The names of the buffers a run gives: the kernel's GM inputs, or a half split's input streams."""
        if self.split is None:
            return [p.name for p in self.inputs]
        read = {p.name for p in self.inputs}
        return [stream.name for stream in self.split.in_streams if stream.tensor in read]

    def _gm_input(self, tensor: str, inputs: dict[str, np.ndarray], rows: int, swap: bool) -> np.ndarray:
        """GM input `tensor` from the run's buffers: a full-size tensor's halves side by side in each row (the
        formula's second half first where swap_when holds)."""
        if self.split is None or self.split.width(tensor) == 1:
            return np.ascontiguousarray(inputs[tensor]).reshape(-1)
        halves = [inputs[s.name].reshape(rows, -1) for s in self.split.in_streams if s.tensor == tensor]
        return np.stack(halves[::-1] if swap else halves, axis=1).reshape(-1)

    def _program_outputs(self, outputs: list[np.ndarray], rows: int, swap: bool) -> list[np.ndarray]:
        """The kernel's GM outputs as the program's outputs: a full-size output cut into its halves (each where
        swap_when puts it)."""
        if self.split is None:
            return outputs
        by_tensor = dict(zip((p.name for p in self.spec.outputs), outputs, strict=True))
        return [
            by_tensor[s.tensor]
            if s.half is None
            else by_tensor[s.tensor].reshape(rows, 2, -1)[:, 1 - s.half if swap else s.half].reshape(-1)
            for s in self.split.out_streams
        ]

    def run(
        self,
        soc_name: str,
        runs: list[tuple[DType, int, dict[str, np.ndarray], dict[str, float], int | tuple[int, int]]],
        cores: int | None = None,
    ) -> list[KernelRun]:
        """Each (dtype, mode, inputs, scalars, ny) run, in one process on SoC `soc_name`; `inputs` holds each of
        `program_inputs`, flat; a half split views them as (rows, ny) (elementwise: ny = 1), a reduce_dim kernel as
        (rows, ny) or, ny = (r, a0), (rows, r, a0). The tiling plans for `cores` vector cores (default: the SoC's)."""
        soc = get_soc(soc_name)
        lines, outputs = [], []
        for index, (dtype, mode, inputs, scalars, view) in enumerate(runs):
            r, a0 = view if isinstance(view, tuple) else (view, 1)
            assert a0 == 1 or self.rows_of, view
            ny = r * a0
            total = next(iter(inputs.values())).size
            assert total % ny == 0 and (ny == 1 or self.split is not None or self.rows_of), (total, ny)
            rows = total // ny
            swap = self.swap is not None and bool(scalars.get(self.swap, False))
            files = []
            for param in self.inputs:
                path = self.workdir / f"in{index}_{param.name}.bin"
                path.write_bytes(self._gm_input(param.name, inputs, rows, swap).tobytes())
                files.append(str(path))
            for name in self.gm_scalars:  # the value as given: the caller converts it to the dtype
                path = self.workdir / f"in{index}_{name}.bin"
                path.write_bytes(np.array([scalars[name]], np.float64).astype(dtype.numpy).tobytes())
                files.append(str(path))
            out_path = self.workdir / f"out{index}.bin"
            outputs.append((out_path, dtype, rows, ny, swap))
            fields = [rows, ny, GE_DTYPE[dtype], mode, cores or soc.vector_cores, soc.ub_usable_bytes, dtype.itemsize]
            fields += [out_path, *files] + [repr(float(scalars[a.param])) for a in self.scalars]
            fields += [int(swap)] if self.swap is not None else []
            fields += [a0] if self.rows_of else []
            lines.append(" ".join(map(str, fields)))
        run_file = self.workdir / "runs.txt"
        run_file.write_text("\n".join(lines) + "\n")
        env = {**os.environ, "OPGEN_SOC": soc_name}
        proc = subprocess.run([str(self.binary), str(run_file)], capture_output=True, text=True, env=env, timeout=1200)
        if proc.returncode != 0:
            raise RuntimeError(f"kernel run failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
        plans = [json.loads(line) for line in proc.stdout.strip().splitlines()]
        assert len(plans) == len(runs), proc.stdout[-2000:]
        results = []
        for (path, dtype, rows, ny, swap), plan in zip(outputs, plans, strict=True):
            data = np.frombuffer(path.read_bytes(), dtype=dtype.numpy).copy()
            sizes = np.cumsum([self._elements(p.name, rows, ny) for p in self.spec.outputs])[:-1]
            results.append(KernelRun(self._program_outputs(np.split(data, sizes), rows, swap), plan))
        return results
