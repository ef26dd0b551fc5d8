// TPipe, TQue/TQueBind, TBuf, events and core queries of Ascend C.
//
// The twin runs each core's instructions in program order, so queues and flags order nothing; they are
// kept as state machines so that misuse (which hangs or races on hardware) is reported. V_S and S_V flags
// and PipeBarrier<PIPE_ALL> also feed the vector/scalar synchronisation check (src/opgen_twin/sync.cpp).
#pragma once

#include <cstdint>

#include "opgen_twin/macros.h"
#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"

// Pipes and event ids are global enums in CANN (CCE intrinsics).
enum pipe_t : uint8_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

enum event_t : uint8_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

// Only PIPE_ALL matters to the twin (it ends the vector/scalar hand-offs in flight, see src/opgen_twin/sync.cpp):
// instructions run in program order here.
inline void pipe_barrier(pipe_t pipe) {
  if (pipe == PIPE_ALL) opgen_twin::detail::BarrierAll();
}

// Kernel modes of the CPU debug flow (SetKernelMode).
enum class KernelMode : uint8_t { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };

namespace AscendC {

using ::KernelMode;
using TEventID = int8_t;

enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
  MAX,
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
 public:
  // Contents are garbage (the twin's fresh UB holds NaN bytes).
  template <typename T>
  LocalTensor<T> AllocTensor() {
    opgen_twin::detail::UbRef ref = opgen_twin::detail::QueueAlloc(twin_handle_);
    ref.bytes = static_cast<uint32_t>(ref.bytes / sizeof(T) * sizeof(T));
    return LocalTensor<T>(ref, src);
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    return opgen_twin::detail::QueueEnque(twin_handle_, tensor.twin_ref());
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    opgen_twin::detail::UbRef ref = opgen_twin::detail::QueueDeque(twin_handle_);
    ref.bytes = static_cast<uint32_t>(ref.bytes / sizeof(T) * sizeof(T));
    return LocalTensor<T>(ref, dst);
  }
  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor) {
    opgen_twin::detail::QueueFree(twin_handle_, tensor.twin_ref());
  }

  bool VacantInQue() { return opgen_twin::detail::QueueCount(twin_handle_) < opgen_twin::detail::QueueDepth(twin_handle_); }
  bool HasTensorInQue() { return opgen_twin::detail::QueueCount(twin_handle_) > 0; }
  int32_t GetTensorCountInQue() { return opgen_twin::detail::QueueCount(twin_handle_); }
  bool HasIdleBuffer() { return opgen_twin::detail::QueueHasIdleBuffer(twin_handle_); }
  void FreeAllEvent() {}

  // Twin internals (used by TPipe::InitBuffer).
  static constexpr TPosition kTwinPosition = src;
  static constexpr int32_t kTwinDepth = depth;
  opgen_twin::detail::BufferHandle twin_handle_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::LCM>
class TBuf {
 public:
  // The whole buffer. No synchronisation is implied.
  template <typename T>
  LocalTensor<T> Get() {
    return LocalTensor<T>(Trim<T>(opgen_twin::detail::BufGet(twin_handle_, 0, UINT64_MAX, "TBuf::Get")), pos);
  }
  // The first `len` elements.
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    return LocalTensor<T>(opgen_twin::detail::BufGet(twin_handle_, 0, uint64_t{len} * sizeof(T), "TBuf::Get"), pos);
  }
  // `size` elements starting `bufOffset` bytes into the buffer.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
    return LocalTensor<T>(
        opgen_twin::detail::BufGet(twin_handle_, bufOffset, uint64_t{size} * sizeof(T), "TBuf::GetWithOffset"), pos);
  }

  opgen_twin::detail::BufferHandle twin_handle_;

 private:
  template <typename T>
  static opgen_twin::detail::UbRef Trim(opgen_twin::detail::UbRef ref) {
    ref.bytes = static_cast<uint32_t>(ref.bytes / sizeof(T) * sizeof(T));
    return ref;
  }
};

// One TPipe may exist at a time (per core). It hands out UB contiguously from address 0.
class TPipe {
 public:
  TPipe() { opgen_twin::detail::PipeConstruct(this); }
  ~TPipe() { opgen_twin::detail::PipeDestruct(this); }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  // `num` buffers of `len` bytes (rounded up to 32) for a queue.
  template <class Queue>
  bool InitBuffer(Queue& que, uint8_t num, uint32_t len) {
    que.twin_handle_ = opgen_twin::detail::PipeInitBuffer(this, que.twin_handle_, static_cast<int>(Queue::kTwinPosition),
                                                          Queue::kTwinDepth, num, len);
    return true;
  }
  // One buffer of `len` bytes (rounded up to 32) for a TBuf.
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.twin_handle_ = opgen_twin::detail::PipeInitBuffer(this, buf.twin_handle_, static_cast<int>(pos), 0, 1, len);
    return true;
  }

  // Releases all buffers (queues and TBufs must be initialised again).
  void Reset() { opgen_twin::detail::PipeReset(this); }
  void Destroy() { opgen_twin::detail::PipeReset(this); }

  template <HardEvent event>
  TEventID AllocEventID() {
    return static_cast<TEventID>(opgen_twin::detail::EventAlloc(static_cast<int>(event)));
  }
  template <HardEvent event>
  void ReleaseEventID(TEventID id) {
    opgen_twin::detail::EventRelease(static_cast<int>(event), id);
  }
  template <HardEvent event>
  TEventID FetchEventID() {
    return static_cast<TEventID>(opgen_twin::detail::EventFetch(static_cast<int>(event)));
  }
  TEventID FetchEventID(HardEvent event) {
    return static_cast<TEventID>(opgen_twin::detail::EventFetch(static_cast<int>(event)));
  }
};

// The TPipe of the running core (nullptr if none).
TPipe* GetTPipePtr();

template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  opgen_twin::detail::EventSet(static_cast<int>(event), eventID);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  opgen_twin::detail::EventWait(static_cast<int>(event), eventID);
}

template <pipe_t pipe>
inline void PipeBarrier() {
  if constexpr (pipe == PIPE_ALL) opgen_twin::detail::BarrierAll();
}

inline int64_t GetBlockIdx() { return opgen_twin::detail::BlockIdx(); }
inline int64_t GetBlockNum() { return opgen_twin::detail::BlockNum(); }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetTaskRation() { return 1; }

// Workspace: the twin reserves no system workspace, so the user workspace is the whole buffer.
inline void SetSysWorkspace(GM_ADDR) {}
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }

// While set, UB->GM DataCopy/DataCopyPad add into GM instead of overwriting (no overlap check).
template <typename T>
inline void SetAtomicAdd() {
  opgen_twin::detail::SetAtomicMode(static_cast<int>(opgen_twin::kDTypeOf<T>));
}
inline void SetAtomicNone() { opgen_twin::detail::SetAtomicMode(-1); }

// Mask registers: count-mode APIs in the twin always process exactly their count, so these are no-ops.
inline void SetMaskCount() {}
inline void SetMaskNorm() {}
inline void ResetMask() {}
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t, const uint64_t) {}
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t) {}

}  // namespace AscendC
