"""Runs lowered vector programs on the CPU twin, to hold the numpy model of a program to what the twin computes.

Each program becomes one single-core kernel whose Compute is the lowered instruction list, printed by the
kernel emitter (`opgen.emit.kernel.compute_lines`, the code generated kernels contain); all programs of a test
go into one executable, compiled once. Buffers are TBuf regions of a whole number of 256-byte repeats (the
length Compare works on); inputs are padded with zeros to that length.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opgen.emit.kernel import compute_lines, uniform_cpp
from opgen.lang import cpp
from opgen.plan.kernel import KernelVariant
from opgen.plan.kernel_model import run_program
from opgen.plan.lowering import VectorProgram
from opgen.twin.compiler import compile_program


@dataclass(frozen=True)
class ProgramCase:
    name: str  # a C++ identifier
    program: VectorProgram
    scalars: dict[str, float]


def _kernel_source(case: ProgramCase) -> str:
    program = case.program
    storage, compute = program.storage.cpp_type, program.compute.cpp_type
    align = 256 // program.compute.itemsize
    fields = {name: f"static_cast<float>({cpp.float_literal(value)})" for name, value in case.scalars.items()}
    params = [f"GM_ADDR in{i}" for i in range(len(program.inputs))] + ["GM_ADDR out", "GM_ADDR lengthGm"]
    lines = [
        f'extern "C" __global__ __aicore__ void {case.name}({", ".join(params)}) {{',
        "  GlobalTensor<uint32_t> lengthTensor;",
        "  lengthTensor.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(lengthGm), 8);",
        "  const uint32_t len = lengthTensor.GetValue(0);",
        f"  const uint32_t cmpLen = (len + {align - 1}) / {align} * {align};",
        "  (void)cmpLen;",
        "  TPipe pipe;",
    ]
    for i, buffer in enumerate(program.inputs):
        lines += [
            f"  TBuf<TPosition::VECCALC> inBuf{i};",
            f"  pipe.InitBuffer(inBuf{i}, cmpLen * sizeof({storage}));",
            f"  GlobalTensor<{storage}> inGm{i};",
            f"  inGm{i}.SetGlobalBuffer(reinterpret_cast<__gm__ {storage}*>(in{i}), cmpLen);",
            f"  LocalTensor<{storage}> {buffer.cpp} = inBuf{i}.Get<{storage}>();",
            f"  DataCopy({buffer.cpp}, inGm{i}, cmpLen);",
        ]
    lines += [
        "  TBuf<TPosition::VECCALC> outBuf;",
        f"  pipe.InitBuffer(outBuf, cmpLen * sizeof({storage}));",
        f"  LocalTensor<{storage}> outLocal = outBuf.Get<{storage}>();",
        f"  GlobalTensor<{storage}> outGm;",
        f"  outGm.SetGlobalBuffer(reinterpret_cast<__gm__ {storage}*>(out), cmpLen);",
    ]
    for buffer in program.temps:
        lines += [
            f"  TBuf<TPosition::VECCALC> tmpBuf{buffer.index};",
            f"  pipe.InitBuffer(tmpBuf{buffer.index}, cmpLen * sizeof({compute}));",
            f"  LocalTensor<{compute}> {buffer.cpp} = tmpBuf{buffer.index}.Get<{compute}>();",
        ]
    for buffer in program.masks:
        lines += [
            f"  TBuf<TPosition::VECCALC> maskBuf{buffer.index};",
            f"  pipe.InitBuffer(maskBuf{buffer.index}, cmpLen / 8 < 32 ? 32 : cmpLen / 8);",
            f"  LocalTensor<uint8_t> {buffer.cpp} = maskBuf{buffer.index}.Get<uint8_t>();",
        ]
    for slot in program.slots:
        lines.append(f"  const {compute} {slot.name} = static_cast<{compute}>({uniform_cpp(slot.expr, fields)});")
    variant = KernelVariant(0, program.storage, (), 0, program)
    lines += [f"  {line}" for line in compute_lines(variant)]
    lines += ["  PipeBarrier<PIPE_ALL>();", "  DataCopy(outGm, outLocal, cmpLen);", "}", ""]
    return "\n".join(lines)


_MAIN = """\
int main(int argc, char** argv) {
  // argv: kernel length out_bytes out.bin in.bin...
  if (argc < 5) return 2;
  const std::string name = argv[1];
  const uint32_t length = static_cast<uint32_t>(std::atoll(argv[2]));
  std::vector<uint8_t*> inputs;
  for (int i = 5; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    inputs.push_back(static_cast<uint8_t*>(AscendC::GmAlloc(bytes.size())));
    std::memcpy(inputs.back(), bytes.data(), bytes.size());
  }
  const size_t out_bytes = static_cast<size_t>(std::atoll(argv[3]));
  uint8_t* out = static_cast<uint8_t*>(AscendC::GmAlloc(out_bytes));
  auto* lengthGm = static_cast<uint32_t*>(AscendC::GmAlloc(32));
  lengthGm[0] = length;
  uint8_t* len_arg = reinterpret_cast<uint8_t*>(lengthGm);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
{dispatch}
  std::ofstream result(argv[4], std::ios::binary);
  result.write(reinterpret_cast<const char*>(out), static_cast<std::streamsize>(out_bytes));
  return 0;
}
"""


class ProgramRunner:
    """Compiles `cases` into one executable (for `soc`) and runs them by name."""

    def __init__(self, cases: list[ProgramCase], workdir: Path, soc: str = "ascend910b") -> None:
        self.cases = {c.name: c for c in cases}
        self.workdir, self.soc = workdir, soc
        dispatch = []
        for case in cases:
            args = ", ".join([f"inputs[{i}]" for i in range(len(case.program.inputs))] + ["out", "len_arg"])
            dispatch.append(f'  if (name == "{case.name}") ICPU_RUN_KF({case.name}, 1, {args});')
        source = "\n".join(
            [
                "#include <cstdlib>",
                "#include <cstring>",
                "#include <fstream>",
                "#include <iterator>",
                "#include <string>",
                "#include <vector>",
                '#include "kernel_operator.h"',
                '#include "tikicpulib.h"',
                "using namespace AscendC;",
                "",
                *(_kernel_source(case) for case in cases),
                _MAIN.replace("{dispatch}", "\n".join(dispatch)),
            ]
        )
        path = workdir / "programs.cpp"
        path.write_text(source)
        self.binary = workdir / "programs"
        compile_program([path], self.binary, soc=soc, ops_dirs=[], flags=["-Wall", "-Werror"])

    def run(self, name: str, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """The program's output (storage dtype) for flat inputs of one length."""
        case = self.cases[name]
        program = case.program
        length = next(iter(inputs.values())).size
        align = 256 // program.compute.itemsize
        padded = -(-max(length, 1) // align) * align
        files = []
        for i, buffer in enumerate(program.inputs):
            data = np.zeros(padded, dtype=program.storage.numpy)
            data[:length] = inputs[buffer.name]
            path = self.workdir / f"{name}_in{i}.bin"
            path.write_bytes(data.tobytes())
            files.append(str(path))
        out = self.workdir / f"{name}_out.bin"
        out_bytes = padded * program.storage.itemsize
        env = {**os.environ, "OPGEN_SOC": self.soc}
        proc = subprocess.run(
            [str(self.binary), name, str(length), str(out_bytes), str(out), *files],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{name} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
        result = np.frombuffer(out.read_bytes(), dtype=program.storage.numpy)
        return result[:length].copy()

    def model(self, name: str, inputs: dict[str, np.ndarray]) -> np.ndarray:
        case = self.cases[name]
        return np.asarray(run_program(case.program, inputs, case.scalars))
