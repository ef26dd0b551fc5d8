// Kernels that hand data between the vector pipe and the scalar unit through UB, with and without the
// V_S / S_V synchronisation hardware needs (the vector pipe runs asynchronously to the scalar unit).
//
// Usage: sync_kernels CASE. A case that runs to completion prints `value=<float>` and exits 0.
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

constexpr uint32_t kCount = 64;  // floats of x
constexpr uint32_t kGmBytes = 4096;

enum Case : uint32_t {
  kMaxSynced,          // ReduceMax, V_S flag, GetValue
  kMaxBarrier,         // ReduceMax, PipeBarrier<PIPE_ALL>, GetValue
  kMaxUnsynced,        // ReduceMax, GetValue
  kMaxWrongEvent,      // ReduceMax, a V_MTE3 flag, GetValue
  kMaxFlagTooEarly,    // V_S SetFlag, ReduceMax, WaitFlag, GetValue: the flag covers only earlier vector work
  kMaxOtherBuffer,     // ReduceMax into one buffer, GetValue of another the vector pipe did not touch
  kSetUnsynced,        // SetValue, Adds reading it
  kSetSynced,          // SetValue, S_V flag, Adds reading it
  kSetOverVectorRead,  // Adds reading a buffer, SetValue into that buffer
  kSetOtherBuffer,     // SetValue into one buffer, Adds reading another
  kQueueRecycled,      // vector writes a queue buffer, frees it; the scalar unit writes it again after AllocTensor
  kMaxSyncedLoop,      // ReduceMax twice, each followed by a V_S flag; the second flag reuses the id
  kPartialOverlap,     // Adds writes floats [8, 16) of a synchronised buffer; GetValue of 0 and 7, then of 8
  kRefUnsynced,        // Adds, then operator() on its result
  kSetThenLocalCopy,   // SetValue, then a UB->UB DataCopy (a vector-pipe copy) of it
  kInnerWriteLeft,     // Duplicate writes floats [0, 64), Adds [8, 16); GetValue of float 8 (Adds's)
  kInnerWriteRight,    // the same; GetValue of float 20 (still Duplicate's)
};

}  // namespace

extern "C" __global__ __aicore__ void sync_case(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const uint32_t which = *reinterpret_cast<const uint32_t*>(tiling);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> scalarBuf;
  TBuf<TPosition::VECCALC> otherBuf;
  TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQ, 1, kCount * sizeof(float));
  pipe.InitBuffer(outQ, 1, kCount * sizeof(float));
  pipe.InitBuffer(scalarBuf, 32);
  pipe.InitBuffer(otherBuf, 32);
  pipe.InitBuffer(tmpBuf, kCount * sizeof(float));
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), kCount);
  yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), kCount);

  LocalTensor<float> xLocal = inQ.AllocTensor<float>();
  DataCopy(xLocal, xGm, kCount);
  inQ.EnQue(xLocal);
  xLocal = inQ.DeQue<float>();
  LocalTensor<float> scalar = scalarBuf.Get<float>();
  LocalTensor<float> other = otherBuf.Get<float>();
  LocalTensor<float> tmp = tmpBuf.Get<float>();
  LocalTensor<float> yLocal = outQ.AllocTensor<float>();
  float value = 0.0f;

  switch (which) {
    case kMaxSynced: {
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      const TEventID id = pipe.FetchEventID(HardEvent::V_S);
      SetFlag<HardEvent::V_S>(id);
      WaitFlag<HardEvent::V_S>(id);
      value = scalar.GetValue(0);
      break;
    }
    case kMaxBarrier:
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      PipeBarrier<PIPE_ALL>();
      value = scalar.GetValue(0);
      break;
    case kMaxUnsynced:
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      value = scalar.GetValue(0);
      break;
    case kMaxWrongEvent: {
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      const TEventID id = pipe.FetchEventID(HardEvent::V_MTE3);
      SetFlag<HardEvent::V_MTE3>(id);
      WaitFlag<HardEvent::V_MTE3>(id);
      value = scalar.GetValue(0);
      break;
    }
    case kMaxFlagTooEarly: {
      const TEventID id = pipe.FetchEventID(HardEvent::V_S);
      SetFlag<HardEvent::V_S>(id);
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      WaitFlag<HardEvent::V_S>(id);
      value = scalar.GetValue(0);
      break;
    }
    case kMaxOtherBuffer:
      other.SetValue(0, 5.0f);
      ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount));
      value = other.GetValue(0);
      PipeBarrier<PIPE_ALL>();
      break;
    case kSetUnsynced:
      scalar.SetValue(0, 2.0f);
      Adds(other, scalar, 1.0f, 8);
      PipeBarrier<PIPE_ALL>();
      value = other.GetValue(0);
      break;
    case kSetSynced: {
      scalar.SetValue(0, 2.0f);
      const TEventID id = pipe.FetchEventID(HardEvent::S_V);
      SetFlag<HardEvent::S_V>(id);
      WaitFlag<HardEvent::S_V>(id);
      Adds(other, scalar, 1.0f, 8);
      PipeBarrier<PIPE_ALL>();
      value = other.GetValue(0);
      break;
    }
    case kSetOverVectorRead:
      Adds(other, scalar, 1.0f, 8);
      scalar.SetValue(0, 2.0f);
      PipeBarrier<PIPE_ALL>();
      value = scalar.GetValue(0);
      break;
    case kSetOtherBuffer:
      scalar.SetValue(0, 2.0f);
      Adds(tmp, xLocal, 1.0f, static_cast<int32_t>(kCount));
      PipeBarrier<PIPE_ALL>();
      value = tmp.GetValue(0);
      break;
    case kQueueRecycled:
      Adds(yLocal, xLocal, 1.0f, static_cast<int32_t>(kCount));
      outQ.EnQue(yLocal);
      yLocal = outQ.DeQue<float>();
      DataCopy(yGm, yLocal, kCount);
      outQ.FreeTensor(yLocal);
      yLocal = outQ.AllocTensor<float>();
      yLocal.SetValue(0, 3.0f);
      value = yLocal.GetValue(0);
      break;
    case kMaxSyncedLoop:
      for (int pass = 0; pass < 2; ++pass) {
        ReduceMax(scalar, xLocal, tmp, static_cast<int32_t>(kCount - pass * 8));
        const TEventID id = pipe.FetchEventID(HardEvent::V_S);
        SetFlag<HardEvent::V_S>(id);
        WaitFlag<HardEvent::V_S>(id);
        value += scalar.GetValue(0);
      }
      break;
    case kPartialOverlap:
      Duplicate(tmp, 1.0f, static_cast<int32_t>(kCount));
      PipeBarrier<PIPE_ALL>();
      Adds(tmp[8], xLocal, 0.5f, 8);
      value = tmp.GetValue(0) + tmp.GetValue(7);
      std::printf("untouched=%g\n", static_cast<double>(value));
      value += tmp.GetValue(8);
      break;
    case kRefUnsynced:
      Adds(tmp, xLocal, 1.0f, static_cast<int32_t>(kCount));
      value = tmp(3);
      break;
    case kSetThenLocalCopy:
      scalar.SetValue(0, 2.0f);
      DataCopy(other, scalar, 8);
      PipeBarrier<PIPE_ALL>();
      value = other.GetValue(0);
      break;
    case kInnerWriteLeft:
    case kInnerWriteRight:
      Duplicate(tmp, 1.0f, static_cast<int32_t>(kCount));
      Adds(tmp[8], xLocal, 0.5f, 8);
      value = tmp.GetValue(which == kInnerWriteLeft ? 8 : 20);
      break;
    default:
      break;
  }
  std::printf("value=%g\n", static_cast<double>(value));
  inQ.FreeTensor(xLocal);
  outQ.FreeTensor(yLocal);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string name = argv[1];
  // In the order of enum Case.
  static const char* const kNames[] = {
      "max_synced",       "max_barrier",       "max_unsynced",    "max_wrong_event",      "max_flag_too_early",
      "max_other_buffer", "set_unsynced",      "set_synced",      "set_over_vector_read", "set_other_buffer",
      "queue_recycled",   "max_synced_loop",   "partial_overlap", "ref_unsynced",         "set_then_local_copy",
      "inner_write_left", "inner_write_right",
  };
  uint32_t which = 0;
  while (which < sizeof(kNames) / sizeof(kNames[0]) && name != kNames[which]) ++which;
  if (which == sizeof(kNames) / sizeof(kNames[0])) {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  uint8_t* x = static_cast<uint8_t*>(GmAlloc(kGmBytes));
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(kGmBytes));
  uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(uint32_t)));
  float* xs = reinterpret_cast<float*>(x);
  for (uint32_t i = 0; i < kCount; ++i) xs[i] = static_cast<float>((i * 37) % 61) - 20.0f;
  std::memcpy(tiling, &which, sizeof(which));
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(sync_case, 1, x, y, tiling);
  GmFree(x);
  GmFree(y);
  GmFree(tiling);
  return 0;
}
