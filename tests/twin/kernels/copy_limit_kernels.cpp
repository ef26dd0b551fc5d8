// Kernels at and past the documented limits of DataCopy, DataCopyPad and GatherMask.
//
// Usage: copy_limit_kernels CASE. Exits 0 if the kernel ran to completion (no check fired).
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kGmBytes = 256 * 1024;

}  // namespace

// GM -> UB: `blocks` blocks of one half each; each takes a 32-byte block of UB.
extern "C" __global__ __aicore__ void pad_in_blocks(GM_ADDR x, GM_ADDR tiling) {
  const uint32_t blocks = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096 * 32);
  GlobalTensor<half> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), kGmBytes / sizeof(half));
  LocalTensor<half> t = buf.Get<half>();
  DataCopyPad(t, gm, DataCopyExtParams{static_cast<uint16_t>(blocks), 2, 0, 0, 0},
              DataCopyPadExtParams<half>{false, 0, 0, half(0)});
}

extern "C" __global__ __aicore__ void pad_out_blocks(GM_ADDR y, GM_ADDR tiling) {
  const uint32_t blocks = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096 * 32);
  GlobalTensor<half> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), kGmBytes / sizeof(half));
  LocalTensor<half> t = buf.Get<half>();
  Duplicate(t, half(1), 4096 * 16);
  DataCopyPad(gm, t, DataCopyExtParams{static_cast<uint16_t>(blocks), 2, 0, 0, 0});
}

extern "C" __global__ __aicore__ void copy_blocks(GM_ADDR x, GM_ADDR tiling) {
  const uint32_t blocks = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096 * 32);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kGmBytes / sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gm, DataCopyParams{static_cast<uint16_t>(blocks), 1, 0, 0});
}

extern "C" __global__ __aicore__ void pad_len_over(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<uint8_t> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(x), kGmBytes);
  LocalTensor<uint8_t> t = buf.Get<uint8_t>();
  DataCopyPad(t, gm, DataCopyExtParams{1, 2097152, 0, 0, 0}, DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
}

extern "C" __global__ __aicore__ void pad_len_elements(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, gm, DataCopyExtParams{2, 6, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
}

extern "C" __global__ __aicore__ void pad_value_nonzero(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, gm, DataCopyParams{1, 12, 0, 0}, DataCopyPadParams{true, 0, 2, 5});
}

// GatherMask over one 256-byte repeat of floats, with the case's fault.
extern "C" __global__ __aicore__ void gather_case(GM_ADDR x, GM_ADDR tiling) {
  const uint32_t which = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> src, dst, pattern16;
  pipe.InitBuffer(src, 256);
  pipe.InitBuffer(dst, 256);
  pipe.InitBuffer(pattern16, 32);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  LocalTensor<float> s = src.Get<float>();
  LocalTensor<float> d = dst.Get<float>();
  DataCopy(s, gm, 64);
  uint64_t rsvdCnt = 0;
  switch (which) {
    case 0:  // fine: pattern 2 keeps the 32 odd elements
      GatherMask(d, s, 2, false, 0, {1, 1, 8, 0}, rsvdCnt);
      if (rsvdCnt != 32) std::printf("rsvdCnt=%llu\n", static_cast<unsigned long long>(rsvdCnt));
      break;
    case 1:
      GatherMask(d, s, 8, false, 0, {1, 1, 8, 0}, rsvdCnt);
      break;
    case 2:
      GatherMask(d, s, 1, true, 0, {1, 1, 8, 0}, rsvdCnt);
      break;
    case 3: {
      LocalTensor<uint16_t> p = pattern16.Get<uint16_t>();
      Duplicate(p, uint16_t{0xffff}, 16);
      GatherMask(d, s, p, false, 0, {1, 1, 8, 0}, rsvdCnt);
      break;
    }
    case 4:  // two repeats of 256 bytes from a 256-byte tensor
      GatherMask(d, s, 7, false, 0, {1, 2, 8, 0}, rsvdCnt);
      break;
    default:
      break;
  }
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string name = argv[1];
  uint8_t* x = static_cast<uint8_t*>(GmAlloc(kGmBytes));
  std::memset(x, 0, kGmBytes);
  uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(uint32_t)));
  auto set = [&](uint32_t value) { std::memcpy(tiling, &value, sizeof(value)); };
  SetKernelMode(KernelMode::AIV_MODE);
  if (name == "pad_in_4095") set(4095), ICPU_RUN_KF(pad_in_blocks, 1, x, tiling);
  else if (name == "pad_in_4096") set(4096), ICPU_RUN_KF(pad_in_blocks, 1, x, tiling);
  else if (name == "pad_out_4095") set(4095), ICPU_RUN_KF(pad_out_blocks, 1, x, tiling);
  else if (name == "pad_out_4096") set(4096), ICPU_RUN_KF(pad_out_blocks, 1, x, tiling);
  else if (name == "copy_4095") set(4095), ICPU_RUN_KF(copy_blocks, 1, x, tiling);
  else if (name == "copy_4096") set(4096), ICPU_RUN_KF(copy_blocks, 1, x, tiling);
  else if (name == "pad_len_over") ICPU_RUN_KF(pad_len_over, 1, x);
  else if (name == "pad_len_elements") ICPU_RUN_KF(pad_len_elements, 1, x);
  else if (name == "pad_value_nonzero") ICPU_RUN_KF(pad_value_nonzero, 1, x);
  else if (name == "gather_ok") set(0), ICPU_RUN_KF(gather_case, 1, x, tiling);
  else if (name == "gather_pattern") set(1), ICPU_RUN_KF(gather_case, 1, x, tiling);
  else if (name == "gather_counter_zero") set(2), ICPU_RUN_KF(gather_case, 1, x, tiling);
  else if (name == "gather_pattern_type") set(3), ICPU_RUN_KF(gather_case, 1, x, tiling);
  else if (name == "gather_src_range") set(4), ICPU_RUN_KF(gather_case, 1, x, tiling);
  else {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  GmFree(x);
  GmFree(tiling);
  return 0;
}
