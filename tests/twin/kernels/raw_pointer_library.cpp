// A shared library whose kernel writes past its GM buffer through a raw pointer, for loading into Python
// (as the opgen_ops binding loads the twin): run() launches it three times in throw mode and returns how
// many launches stopped with a twin error.
#include <cstdio>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void raw_write_kernel(GM_ADDR x) {
  volatile float* p = reinterpret_cast<__gm__ float*>(x);
  p[256 + 44] = 1.0f;  // 1024-byte buffer: byte 1200
}

extern "C" int run() {
  opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
  uint8_t* x = static_cast<uint8_t*>(GmAlloc(1024));
  int caught = 0;
  for (int i = 0; i < 3; ++i) {
    try {
      ICPU_RUN_KF(raw_write_kernel, 2, x);
    } catch (const opgen_twin::CheckError& error) {
      ++caught;
      std::printf("%s\n", error.what());
    }
  }
  std::fflush(stdout);
  GmFree(x);
  return caught;
}
