// Runtime behaviours of the twin beyond single APIs: fresh poisoned UB per core, atomic accumulation,
// tiling macros and keys through the kernel registry, TPipe::Reset, TQueBind.
//
// Usage: runtime_features CASE; prints results on stdout.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

// Core 0 fills its UB tensor; every core then copies its (own, fresh) tensor out.
extern "C" __global__ __aicore__ void fresh_ub_kernel(GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> out_queue;
  pipe.InitBuffer(out_queue, 1, 64 * sizeof(float));
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + 64 * GetBlockIdx(), 64);
  LocalTensor<float> t = out_queue.AllocTensor<float>();
  if (GetBlockIdx() == 0) Duplicate(t, 5.0f, 64);
  out_queue.EnQue(t);
  LocalTensor<float> u = out_queue.DeQue<float>();
  DataCopy(gm, u, 64);
  out_queue.FreeTensor(u);
}

// Every core adds its block index + 1 into the same 64 floats.
extern "C" __global__ __aicore__ void atomic_kernel(GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 64);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 64);
  SetAtomicAdd<float>();
  DataCopy(gm, t, 64);
  SetAtomicNone();
}

BEGIN_TILING_DATA_DEF(FeatureTiling)
TILING_DATA_FIELD_DEF(uint32_t, count)
TILING_DATA_FIELD_DEF_ARR(int16_t, 3, weights)
TILING_DATA_FIELD_DEF(float, scale)
END_TILING_DATA_DEF;

extern "C" __global__ __aicore__ void tiling_kernel(GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(FeatureTiling, whole, tiling);
  GET_TILING_DATA_MEMBER(FeatureTiling, scale, scale, tiling);
  GET_TILING_DATA_PTR_WITH_STRUCT(FeatureTiling, pointer, tiling);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 8);
  if (TILING_KEY_IS(5)) {
    gm.SetValue(0, static_cast<float>(whole.count));
    gm.SetValue(1, static_cast<float>(whole.weights[0] + whole.weights[1] + whole.weights[2]));
    gm.SetValue(2, scale);
    gm.SetValue(3, static_cast<float>(pointer->weights[2]));
  } else {
    gm.SetValue(0, -1.0f);
  }
}

// After TPipe::Reset the buffers can be carved again; tensors from before are stale.
extern "C" __global__ __aicore__ void reset_kernel(GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> first;
  pipe.InitBuffer(first, 1024);
  LocalTensor<float> old = first.Get<float>();
  Duplicate(old, 1.0f, 64);
  pipe.Reset();
  TBuf<TPosition::VECCALC> second;
  pipe.InitBuffer(second, 2048);
  LocalTensor<float> fresh = second.Get<float>();
  Duplicate(fresh, 2.0f, 64);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 64);
  DataCopy(gm, fresh, 64);
  Duplicate(old, 3.0f, 64);  // stale: fails
}

// VECIN -> VECOUT through one bound queue, as plain copy kernels do.
extern "C" __global__ __aicore__ void bind_kernel(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> queue;
  pipe.InitBuffer(queue, 1, 64 * sizeof(int32_t));
  GlobalTensor<int32_t> in, out;
  in.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(x), 64);
  out.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(y), 64);
  LocalTensor<int32_t> t = queue.AllocTensor<int32_t>();
  DataCopy(t, in, 64);
  queue.EnQue(t);
  LocalTensor<int32_t> u = queue.DeQue<int32_t>();
  DataCopy(out, u, 64);
  queue.FreeTensor(u);
}

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  float* y = static_cast<float*>(GmAlloc(256 * sizeof(float)));
  if (name == "fresh_ub") {
    uint32_t untouched;
    std::memcpy(&untouched, y, sizeof(untouched));
    std::printf("gm_alloc_bytes=%08x\n", untouched);
    ICPU_RUN_KF(fresh_ub_kernel, 2, reinterpret_cast<uint8_t*>(y));
    std::printf("core0=%g core1_nan=%d\n", y[0], std::isnan(y[64]) ? 1 : 0);
  } else if (name == "atomic") {
    std::memset(y, 0, 64 * sizeof(float));
    ICPU_RUN_KF(atomic_kernel, 4, reinterpret_cast<uint8_t*>(y));
    std::printf("sum=%g %g status=%s\n", y[0], y[63], opgen_twin::LastLaunch().status.c_str());
  } else if (name == "tiling") {
    FeatureTiling host{};
    host.count = 11;
    host.weights[0] = 1;
    host.weights[1] = 2;
    host.weights[2] = 4;
    host.scale = 0.25f;
    uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(host)));
    std::memcpy(tiling, &host, sizeof(host));
    opgen_twin::RegisterKernel("tiling_kernel", [](uint8_t* const* args) { tiling_kernel(args[0], args[1]); }, 2);
    opgen_twin::LaunchKernel("tiling_kernel", 1, 5, {reinterpret_cast<uint8_t*>(y), tiling});
    std::printf("key5 %g %g %g %g\n", y[0], y[1], y[2], y[3]);
    opgen_twin::LaunchKernel("tiling_kernel", 1, 6, {reinterpret_cast<uint8_t*>(y), tiling});
    std::printf("key6 %g tiling_key=%llu\n", y[0],
                static_cast<unsigned long long>(opgen_twin::LastLaunch().tilingKey));
    GmFree(tiling);
  } else if (name == "reset") {
    opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
    try {
      ICPU_RUN_KF(reset_kernel, 1, reinterpret_cast<uint8_t*>(y));
    } catch (const opgen_twin::CheckError& error) {
      std::printf("after_reset=%g check=%s high_water=%llu\n", y[0], error.check().c_str(),
                  static_cast<unsigned long long>(opgen_twin::LastLaunch().cores.at(0).ubHighWater));
    }
  } else if (name == "bind") {
    int32_t* x = static_cast<int32_t*>(GmAlloc(64 * sizeof(int32_t)));
    for (int i = 0; i < 64; ++i) x[i] = i * i - 100;
    ICPU_RUN_KF(bind_kernel, 1, reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y));
    const int32_t* out = reinterpret_cast<const int32_t*>(y);
    std::printf("copied %d %d %d\n", out[0], out[10], out[63]);
    GmFree(x);
  } else {
    return 2;
  }
  GmFree(y);
  return 0;
}
