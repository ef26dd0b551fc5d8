// Kernels that step outside their memory through raw pointers, which no twin API call sees: the pointer of
// GlobalTensor::GetPhyAddr, the GM_ADDR argument itself, and LocalTensor::GetPhyAddr into UB.
//
// Usage: raw_pointer_kernels CASE. Exits 0 if every kernel ran to completion (nothing was caught).
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kElems = 256;  // floats per GM buffer: 1024 bytes

volatile float g_sink = 0.0f;  // keeps the compiler from dropping reads

}  // namespace

// Core `bad_core` reads element kElems + extra of a kElems-element buffer through GetPhyAddr.
extern "C" __global__ __aicore__ void gm_raw_read_kernel(GM_ADDR x, GM_ADDR bad_core) {
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kElems);
  __gm__ float* p = gm.GetPhyAddr();
  float sum = 0.0f;
  for (uint32_t i = 0; i < kElems; ++i) sum += p[i];  // in bounds: fine
  if (GetBlockIdx() == static_cast<int64_t>(*reinterpret_cast<__gm__ int32_t*>(bad_core))) sum += p[kElems + 3];
  g_sink = sum;
}

// The GM_ADDR argument itself, written one element past the end.
extern "C" __global__ __aicore__ void gm_raw_write_kernel(GM_ADDR y) {
  __gm__ float* p = reinterpret_cast<__gm__ float*>(y);
  for (uint32_t i = 0; i <= kElems; ++i) p[i] = 1.0f;  // i == kElems is past the end
}

// A read well before the start of the buffer.
extern "C" __global__ __aicore__ void gm_raw_underflow_kernel(GM_ADDR x) {
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kElems);
  g_sink = *(gm.GetPhyAddr() - 1024);
}

// Core 1 writes a float at UB byte *target (the UB's size: just past its end) through a raw pointer.
extern "C" __global__ __aicore__ void ub_raw_write_kernel(GM_ADDR target) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  float* p = t.GetPhyAddr();
  for (uint32_t i = 0; i < 256; ++i) p[i] = 2.0f;  // inside the TBuf: fine
  const uint32_t index = *reinterpret_cast<__gm__ uint32_t*>(target) / sizeof(float);
  if (GetBlockIdx() == 1) p[index] = 3.0f;
}

// A raw read of UB 8 bytes before its start.
extern "C" __global__ __aicore__ void ub_raw_read_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  g_sink = t.GetPhyAddr()[-2];
}

// A null pointer is no guard page: it still crashes the way it always did.
extern "C" __global__ __aicore__ void null_read_kernel(GM_ADDR) { g_sink = *reinterpret_cast<volatile float*>(0x10); }

// Works: used after a caught fault to show that the runtime recovered.
extern "C" __global__ __aicore__ void good_kernel(GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> out_queue;
  pipe.InitBuffer(out_queue, 1, 256);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + 64 * GetBlockIdx(), 64);
  LocalTensor<float> t = out_queue.AllocTensor<float>();
  Duplicate(t, 1.0f + static_cast<float>(GetBlockIdx()), 64);
  out_queue.EnQue(t);
  LocalTensor<float> u = out_queue.DeQue<float>();
  DataCopy(gm, u, 64);
  out_queue.FreeTensor(u);
}

namespace {

void CatchOne(const char* label, const std::function<void()>& launch) {
  try {
    launch();
    std::printf("%s not caught\n", label);
  } catch (const opgen_twin::CheckError& error) {
    std::printf("%s caught check=%s kernel=%s core=%lld api=%s\n", label, error.check().c_str(),
                error.kernel().c_str(), static_cast<long long>(error.core()), error.api().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string name = argv[1];
  uint8_t* x = static_cast<uint8_t*>(GmAlloc(kElems * sizeof(float)));
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(kElems * sizeof(float)));
  std::memset(x, 0, kElems * sizeof(float));
  auto* bad_core = static_cast<uint8_t*>(GmAlloc(sizeof(int32_t)));
  *reinterpret_cast<int32_t*>(bad_core) = 1;
  auto* ub_bytes = static_cast<uint8_t*>(GmAlloc(sizeof(uint32_t)));
  *reinterpret_cast<uint32_t*>(ub_bytes) = static_cast<uint32_t>(opgen_twin::CurrentSoc().ubPhysicalBytes);
  SetKernelMode(KernelMode::AIV_MODE);
  if (name == "gm_raw_read") {
    ICPU_RUN_KF(gm_raw_read_kernel, 2, x, bad_core);
  } else if (name == "gm_raw_write") {
    ICPU_RUN_KF(gm_raw_write_kernel, 1, y);
  } else if (name == "gm_raw_underflow") {
    ICPU_RUN_KF(gm_raw_underflow_kernel, 1, x);
  } else if (name == "device_raw_read") {
    // aclrtMalloc'd memory, as the aclnn runtime hands to kernels
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    void* device = nullptr;
    if (aclrtMalloc(&device, kElems * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 2;
    std::printf("device_aligned_64 %d\n", reinterpret_cast<uintptr_t>(device) % 64 == 0 ? 1 : 0);
    std::fflush(stdout);
    *reinterpret_cast<int32_t*>(bad_core) = 0;
    ICPU_RUN_KF(gm_raw_read_kernel, 1, static_cast<uint8_t*>(device), bad_core);
  } else if (name == "ub_raw_write") {
    ICPU_RUN_KF(ub_raw_write_kernel, 2, ub_bytes);
  } else if (name == "ub_raw_write_far") {
    *reinterpret_cast<uint32_t*>(ub_bytes) += 8192;
    ICPU_RUN_KF(ub_raw_write_kernel, 2, ub_bytes);
  } else if (name == "ub_raw_read") {
    ICPU_RUN_KF(ub_raw_read_kernel, 1, x);
  } else if (name == "null_read") {
    ICPU_RUN_KF(null_read_kernel, 1, x);
  } else if (name == "alignment") {
    // GmAlloc keeps its 64-byte alignment for every size.
    bool aligned = true;
    for (size_t bytes : {1, 3, 63, 64, 65, 100, 4095, 4096, 4097, 100000}) {
      void* p = GmAlloc(bytes);
      aligned = aligned && reinterpret_cast<uintptr_t>(p) % 64 == 0;
      std::memset(p, 1, bytes);  // every requested byte is writable
      GmFree(p);
    }
    std::printf("gm_alloc_aligned_64 %d\n", aligned ? 1 : 0);
  } else if (name == "throw_mode") {
    opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
    CatchOne("gm", [&]() { ICPU_RUN_KF(gm_raw_read_kernel, 2, x, bad_core); });
    ICPU_RUN_KF(good_kernel, 2, y);  // the runtime is usable again
    const float* out = reinterpret_cast<const float*>(y);
    std::printf("recovered %g %g %s\n", out[0], out[64], opgen_twin::LastLaunch().status.c_str());
    CatchOne("ub", [&]() { ICPU_RUN_KF(ub_raw_write_kernel, 2, ub_bytes); });  // a second fault is caught too
    CatchOne("gm_write", [&]() { ICPU_RUN_KF(gm_raw_write_kernel, 1, y); });
    ICPU_RUN_KF(good_kernel, 1, y);
    std::printf("status %s\n", opgen_twin::LastLaunch().status.c_str());
  } else {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  GmFree(x);
  GmFree(y);
  GmFree(bad_core);
  GmFree(ub_bytes);
  std::printf("finished\n");
  return 0;
}
