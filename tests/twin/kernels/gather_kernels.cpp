// Gather (the level-2 form) on the twin: a run against numpy, and one kernel per documented limit.
//
//   gather_kernels run half|float COUNT BASE DIR   src.bin (256 elements) and offsets.bin (COUNT uint32_t) from DIR;
//                                                  dst.bin: 256 elements, the first COUNT gathered, the rest -7
//   gather_kernels CASE                            one of the limit cases below; exits 0 if no check fired
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kElements = 256;

struct GatherRun {
  uint32_t count;
  uint32_t base;
};

}  // namespace

template <typename T>
__aicore__ inline void GatherRunKernel(GM_ADDR src, GM_ADDR offsets, GM_ADDR dst, const GatherRun& t) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> srcBuf, offsetBuf, dstBuf;
  pipe.InitBuffer(srcBuf, kElements * sizeof(T));
  pipe.InitBuffer(offsetBuf, kElements * sizeof(uint32_t));
  pipe.InitBuffer(dstBuf, kElements * sizeof(T));
  GlobalTensor<T> srcGm, dstGm;
  GlobalTensor<uint32_t> offsetGm;
  srcGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(src), kElements);
  dstGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dst), kElements);
  offsetGm.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(offsets), kElements);
  LocalTensor<T> s = srcBuf.Get<T>();
  LocalTensor<uint32_t> o = offsetBuf.Get<uint32_t>();
  LocalTensor<T> d = dstBuf.Get<T>();
  DataCopy(s, srcGm, kElements);
  DataCopy(o, offsetGm, kElements);
  Duplicate(d, static_cast<T>(-7), static_cast<int32_t>(kElements));
  Gather(d, s, o, t.base, t.count);
  DataCopy(dstGm, d, kElements);
}

extern "C" __global__ __aicore__ void gather_run(GM_ADDR src, GM_ADDR offsets, GM_ADDR dst, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(GatherRun, t, tiling);
  if (TILING_KEY_IS(1)) {
    GatherRunKernel<half>(src, offsets, dst, t);
  } else {
    GatherRunKernel<float>(src, offsets, dst, t);
  }
}

// 64 floats of src, offsets 0, 4, 8, ... (each element in order), with the case's fault.
extern "C" __global__ __aicore__ void gather_case(GM_ADDR x, GM_ADDR tiling) {
  const uint32_t which = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TBuf<TPosition::VECCALC> srcBuf, offsetBuf, dstBuf;
  pipe.InitBuffer(srcBuf, 64 * sizeof(float));
  pipe.InitBuffer(offsetBuf, 64 * sizeof(uint32_t));
  pipe.InitBuffer(dstBuf, 64 * sizeof(float));
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  LocalTensor<float> s = srcBuf.Get<float>();
  LocalTensor<uint32_t> o = offsetBuf.Get<uint32_t>();
  LocalTensor<float> d = dstBuf.Get<float>();
  DataCopy(s, gm, 64);
  for (uint32_t i = 0; i < 64; ++i) o.SetValue(i, i * sizeof(float));
  if (which == 1) o.SetValue(5, 22);  // not a multiple of 4 bytes
  if (which == 2) o.SetValue(63, 64 * sizeof(float));  // the element after src's last
  const TEventID id = pipe.FetchEventID(HardEvent::S_V);
  SetFlag<HardEvent::S_V>(id);
  WaitFlag<HardEvent::S_V>(id);
  switch (which) {
    case 0:  // fine: all 64, and the last 32 from base 128 bytes
      Gather(d, s, o, 0, 64);
      Gather(d, s, o, 128, 32);
      break;
    case 1:
    case 2:
      Gather(d, s, o, 0, 64);
      break;
    case 3:  // srcBaseAddr not a multiple of 4 bytes
      Gather(d, s, o, 2, 8);
      break;
    case 4:  // base 4 bytes: the 64th offset reads past src
      Gather(d, s, o, 4, 64);
      break;
    case 5:  // dst is src: results would overwrite elements not yet read
      Gather(s, s, o, 0, 64);
      break;
    case 6:  // 65 offsets from a tensor of 64
      Gather(d, s, o, 0, 65);
      break;
    default:
      break;
  }
}

namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint8_t* ToGm(const std::vector<uint8_t>& bytes, size_t size) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(size));
  std::memset(gm, 0, size);
  std::memcpy(gm, bytes.data(), bytes.size() < size ? bytes.size() : size);
  return gm;
}

int Run(char** argv) {
  const std::string dtype = argv[2];
  const size_t elem = dtype == "half" ? 2 : 4;
  const GatherRun t{static_cast<uint32_t>(std::stoul(argv[3])), static_cast<uint32_t>(std::stoul(argv[4]))};
  const std::string dir = argv[5];
  uint8_t* src = ToGm(ReadFile(dir + "/src.bin"), kElements * elem);
  uint8_t* offsets = ToGm(ReadFile(dir + "/offsets.bin"), kElements * sizeof(uint32_t));
  uint8_t* dst = static_cast<uint8_t*>(GmAlloc(kElements * elem));
  uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(t)));
  std::memcpy(tiling, &t, sizeof(t));
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(dtype == "half" ? 1 : 2);
  ICPU_RUN_KF(gather_run, 1, src, offsets, dst, tiling);
  std::ofstream out(dir + "/dst.bin", std::ios::binary);
  out.write(reinterpret_cast<const char*>(dst), static_cast<std::streamsize>(kElements * elem));
  for (uint8_t* p : {src, offsets, dst, tiling}) GmFree(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  if (name == "run" && argc == 6) return Run(argv);
  static const char* const kCases[] = {"gather_ok",           "gather_offset_misaligned", "gather_offset_past_src",
                                       "gather_base_misaligned", "gather_base_past_src",  "gather_dst_is_src",
                                       "gather_count_past_offsets"};
  for (uint32_t which = 0; which < sizeof(kCases) / sizeof(kCases[0]); ++which) {
    if (name != kCases[which]) continue;
    uint8_t* x = static_cast<uint8_t*>(GmAlloc(64 * sizeof(float)));
    std::memset(x, 0, 64 * sizeof(float));
    uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(uint32_t)));
    std::memcpy(tiling, &which, sizeof(which));
    SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(gather_case, 1, x, tiling);
    GmFree(x);
    GmFree(tiling);
    return 0;
  }
  std::fprintf(stderr, "usage: gather_kernels run|CASE ...\n");
  return 2;
}
