// Small kernels that each break one rule; the twin must stop them with a named check.
//
// Usage: faulty_kernels CASE. Exits 0 if the kernel ran to completion (the check did not fire).
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kElems = 256;

uint8_t* NewGm(size_t bytes) { return static_cast<uint8_t*>(GmAlloc(bytes)); }

}  // namespace

extern "C" __global__ __aicore__ void oversubscribe_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in_queue;
  pipe.InitBuffer(in_queue, 2, 94 * 1024);  // 192,512 bytes: over 188,160 on A2, under 253,952 on 950
  LocalTensor<float> t = in_queue.AllocTensor<float>();
  in_queue.FreeTensor(t);
}

extern "C" __global__ __aicore__ void misaligned_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<half> t = buf.Get<half>();
  Duplicate(t, half(1), 512);
  Adds(t[3], t, half(1), 64);  // dst starts 6 bytes into the buffer
}

extern "C" __global__ __aicore__ void datacopy_length_kernel(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<half> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), kElems);
  LocalTensor<half> t = buf.Get<half>();
  DataCopy(t, gm, 100);  // 200 bytes
}

extern "C" __global__ __aicore__ void compare_count_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, mask;
  pipe.InitBuffer(a, 1024);
  pipe.InitBuffer(mask, 256);
  LocalTensor<float> t = a.Get<float>();
  Duplicate(t, 1.0f, 256);
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Compare(m, t, t, CMPMODE::LT, 100);  // 400 bytes: not whole 256-byte repeats
}

extern "C" __global__ __aicore__ void gm_read_oob_kernel(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gm[32], 64);  // elements 32..95 of a 64-element buffer
}

extern "C" __global__ __aicore__ void gm_pad_write_oob_kernel(GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 10);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 2.0f, 16);
  DataCopyPad(gm, t, DataCopyExtParams(1, 11 * sizeof(float), 0, 0, 0));  // 11 floats into 10
}

extern "C" __global__ __aicore__ void gm_getvalue_oob_kernel(GM_ADDR x) {
  GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(x), 8);
  volatile int32_t value = gm.GetValue(8);
  (void)value;
}

extern "C" __global__ __aicore__ void gm_setvalue_oob_kernel(GM_ADDR x) {
  GlobalTensor<int32_t> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(x) + 4, 8);
  gm.SetValue(-1, 5);  // before the start of the buffer
}

// SetGlobalBuffer without a size: only the GmAlloc'd extent (256 floats) bounds the access.
extern "C" __global__ __aicore__ void gm_allocation_oob_kernel(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2048);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gm[200], 64);
}

// SetGlobalBuffer with a size far beyond the GmAlloc'd buffer (as a tensor describing more storage than its
// block), then a read 1 MiB in: past the buffer and its guard page, and inside no buffer at all.
extern "C" __global__ __aicore__ void gm_far_oob_kernel(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1 << 20);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gm[1 << 18], 64);
}

// Every core writes elements [0, 64) instead of its own slice.
extern "C" __global__ __aicore__ void overlap_kernel(GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  GlobalTensor<float> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx()), 64);
  const int64_t start = GetBlockIdx() == 2 ? 32 : 64 * GetBlockIdx();  // core 2 overlaps core 0's range
  DataCopy(gm[start], t, 64);
}

extern "C" __global__ __aicore__ void deque_empty_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 2> out_queue;
  pipe.InitBuffer(out_queue, 2, 256);
  LocalTensor<float> t = out_queue.DeQue<float>();
  out_queue.FreeTensor(t);
}

extern "C" __global__ __aicore__ void enque_full_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in_queue;
  pipe.InitBuffer(in_queue, 2, 256);
  LocalTensor<float> a = in_queue.AllocTensor<float>();
  LocalTensor<float> b = in_queue.AllocTensor<float>();
  in_queue.EnQue(a);
  in_queue.EnQue(b);  // depth 1
}

extern "C" __global__ __aicore__ void live_tensors_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q1;
  TQue<TPosition::VECIN, 1> q2;
  pipe.InitBuffer(q1, 5, 64);
  pipe.InitBuffer(q2, 5, 64);
  for (int i = 0; i < 5; ++i) q1.AllocTensor<half>();
  for (int i = 0; i < 5; ++i) q2.AllocTensor<half>();  // the 9th live VECIN tensor fails
}

extern "C" __global__ __aicore__ void leak_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 2> out_queue;
  pipe.InitBuffer(out_queue, 2, 256);
  LocalTensor<float> t = out_queue.AllocTensor<float>();
  Duplicate(t, 0.0f, 64);
  out_queue.EnQue(t);  // never dequeued or freed
}

extern "C" __global__ __aicore__ void cast_mode_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, 512);
  pipe.InitBuffer(b, 1024);
  LocalTensor<half> src = a.Get<half>();
  Duplicate(src, half(1), 256);
  LocalTensor<float> dst = b.Get<float>();
  Cast(dst, src, RoundMode::CAST_RINT, 256);  // half -> float takes CAST_NONE only
}

extern "C" __global__ __aicore__ void dtype_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a;
  pipe.InitBuffer(a, 512);
  LocalTensor<bfloat16_t> t = a.Get<bfloat16_t>();
  Duplicate(t, bfloat16_t(1), 256);
  Exp(t, t, 256);  // no bfloat16 arithmetic on A2/A3
}

extern "C" __global__ __aicore__ void wait_without_set_kernel(GM_ADDR) {
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
}

extern "C" __global__ __aicore__ void set_without_wait_kernel(GM_ADDR) {
  SetFlag<HardEvent::V_MTE3>(EVENT_ID2);
  SetFlag<HardEvent::MTE3_V>(3);
  WaitFlag<HardEvent::MTE3_V>(3);
}

extern "C" __global__ __aicore__ void event_id_kernel(GM_ADDR) { SetFlag<HardEvent::V_MTE3>(8); }

extern "C" __global__ __aicore__ void no_free_buffer_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in_queue;
  pipe.InitBuffer(in_queue, 2, 256);
  in_queue.AllocTensor<float>();
  in_queue.AllocTensor<float>();
  in_queue.AllocTensor<float>();
}

extern "C" __global__ __aicore__ void use_after_free_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in_queue;
  pipe.InitBuffer(in_queue, 2, 256);
  LocalTensor<float> t = in_queue.AllocTensor<float>();
  in_queue.FreeTensor(t);
  Duplicate(t, 1.0f, 64);
}

extern "C" __global__ __aicore__ void double_free_kernel(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in_queue;
  pipe.InitBuffer(in_queue, 2, 256);
  LocalTensor<float> t = in_queue.AllocTensor<float>();
  in_queue.FreeTensor(t);
  in_queue.FreeTensor(t);
}

extern "C" __global__ __aicore__ void two_pipes_kernel(GM_ADDR) {
  TPipe first;
  TPipe second;
}

extern "C" __global__ __aicore__ void ub_range_kernel(GM_ADDR) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Muls(t, t, 2.0f, 65);  // a 64-element tensor
}

struct SmallTiling {
  uint32_t totalLength;
  uint32_t tileNum;
  uint64_t extra[4];
};

extern "C" __global__ __aicore__ void tiling_kernel(GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(SmallTiling, tiling_data, tiling);
  (void)tiling_data;
}

// Works: used after a caught failure to show that the runtime recovered.
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

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string name = argv[1];
  uint8_t* x = NewGm(kElems * sizeof(float));
  uint8_t* y = NewGm(kElems * sizeof(float));
  std::memset(x, 0, kElems * sizeof(float));
  SetKernelMode(KernelMode::AIV_MODE);
  if (name == "oversubscribe") ICPU_RUN_KF(oversubscribe_kernel, 1, x);
  else if (name == "misaligned") ICPU_RUN_KF(misaligned_kernel, 1, x);
  else if (name == "datacopy_length") ICPU_RUN_KF(datacopy_length_kernel, 1, x);
  else if (name == "compare_count") ICPU_RUN_KF(compare_count_kernel, 1, x);
  else if (name == "gm_read_oob") ICPU_RUN_KF(gm_read_oob_kernel, 1, x);
  else if (name == "gm_pad_write_oob") ICPU_RUN_KF(gm_pad_write_oob_kernel, 1, y);
  else if (name == "gm_getvalue_oob") ICPU_RUN_KF(gm_getvalue_oob_kernel, 1, x);
  else if (name == "gm_setvalue_oob") ICPU_RUN_KF(gm_setvalue_oob_kernel, 1, x);
  else if (name == "gm_allocation_oob") ICPU_RUN_KF(gm_allocation_oob_kernel, 1, x);
  else if (name == "gm_far_oob") ICPU_RUN_KF(gm_far_oob_kernel, 1, x);
  else if (name == "overlap") ICPU_RUN_KF(overlap_kernel, 4, y);
  else if (name == "deque_empty") ICPU_RUN_KF(deque_empty_kernel, 1, x);
  else if (name == "enque_full") ICPU_RUN_KF(enque_full_kernel, 1, x);
  else if (name == "live_tensors") ICPU_RUN_KF(live_tensors_kernel, 1, x);
  else if (name == "leak") ICPU_RUN_KF(leak_kernel, 2, x);
  else if (name == "cast_mode") ICPU_RUN_KF(cast_mode_kernel, 1, x);
  else if (name == "dtype") ICPU_RUN_KF(dtype_kernel, 1, x);
  else if (name == "wait_without_set") ICPU_RUN_KF(wait_without_set_kernel, 1, x);
  else if (name == "set_without_wait") ICPU_RUN_KF(set_without_wait_kernel, 1, x);
  else if (name == "event_id") ICPU_RUN_KF(event_id_kernel, 1, x);
  else if (name == "no_free_buffer") ICPU_RUN_KF(no_free_buffer_kernel, 1, x);
  else if (name == "use_after_free") ICPU_RUN_KF(use_after_free_kernel, 1, x);
  else if (name == "double_free") ICPU_RUN_KF(double_free_kernel, 1, x);
  else if (name == "two_pipes") ICPU_RUN_KF(two_pipes_kernel, 1, x);
  else if (name == "ub_range") ICPU_RUN_KF(ub_range_kernel, 1, x);
  else if (name == "tiling_short") {
    uint8_t* tiling = NewGm(8);  // SmallTiling needs 40 bytes
    ICPU_RUN_KF(tiling_kernel, 1, tiling);
  } else if (name == "outside_kernel") {
    std::printf("%lld\n", static_cast<long long>(GetBlockIdx()));
  } else if (name == "unknown_kernel") {
    opgen_twin::LaunchKernel("no_such_kernel", 1, 0, {x});
  } else if (name == "kernel_args") {
    opgen_twin::RegisterKernel("good_kernel", [](uint8_t* const* args) { good_kernel(args[0]); }, 1);
    opgen_twin::LaunchKernel("good_kernel", 1, 0, {x, y});
  } else if (name == "unknown_soc") {
    opgen_twin::SetSoc("ascend999");
  } else if (name == "gm_free_invalid") {
    GmFree(x + 4);
  } else if (name == "throw_mode" || name == "env_throw_mode") {
    if (name == "throw_mode") opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
    try {
      ICPU_RUN_KF(overlap_kernel, 3, y);
      std::printf("no exception\n");
    } catch (const opgen_twin::CheckError& error) {
      std::printf("caught check=%s kernel=%s core=%lld api=%s\n", error.check().c_str(), error.kernel().c_str(),
                  static_cast<long long>(error.core()), error.api().c_str());
      std::printf("what=%s\n", error.what());
      std::printf("is_runtime_error=%d\n", dynamic_cast<const std::runtime_error*>(&error) != nullptr ? 1 : 0);
    }
    ICPU_RUN_KF(good_kernel, 2, y);  // the runtime is usable again
    const float* out = reinterpret_cast<const float*>(y);
    std::printf("recovered %g %g %s\n", out[0], out[64], opgen_twin::LastLaunch().status.c_str());
  } else {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  GmFree(x);
  GmFree(y);
  return 0;
}
