// Internal interface between the inline Ascend C API headers and the twin's runtime (src/opgen_twin/).
// Nothing here is part of Ascend C; user code should not call it.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "opgen_twin/check.h"
#include "opgen_twin/dtype.h"

namespace opgen_twin {

// Ascend C APIs the twin checks and traces by name.
enum class Api : uint8_t {
  kDataCopy,
  kDataCopyPad,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kAdds,
  kMuls,
  kMaxs,
  kMins,
  kLeakyRelu,
  kExp,
  kLn,
  kAbs,
  kSqrt,
  kReciprocal,
  kRelu,
  kDuplicate,
  kCompare,
  kCompares,
  kCompareScalar,
  kSelect,
  kCast,
  kRsqrt,
  kTanh,
  kErf,
  kSigmoid,
  kSign,
  kFloor,
  kTrunc,
  kGatherMask,
  kGather,
  kWholeReduceMax,
  kWholeReduceSum,
  kBlockReduceMax,
  kBlockReduceSum,
  kPairReduceSum,
  kReduceMax,
  kReduceSum,
  kCount
};

const char* ApiName(Api api);

namespace detail {

constexpr uint32_t kUbBlockBytes = 32;      // UB addresses and DataCopy lengths come in 32-byte blocks
constexpr uint32_t kRepeatBytes = 256;      // one vector repeat
constexpr uint32_t kMaxLiveTensorsPerPosition = 8;
constexpr uint32_t kMaxPipeBuffers = 64;
constexpr int32_t kEventIdsPerEvent = 8;

// A tensor's place in the current core's UB. `block` is the queue buffer it came from (-1 for TBuf
// memory), `generation` that buffer's allocation count, so that a freed tensor can be recognised.
struct UbRef {
  uint32_t epoch = 0;  // which core run the tensor belongs to; 0 = none
  uint32_t offset = 0;
  uint32_t bytes = 0;
  int32_t block = -1;
  uint32_t generation = 0;
};

// The first a_bytes of `a` and the first b_bytes of `b` share UB bytes.
inline bool UbOverlap(const UbRef& a, uint64_t a_bytes, const UbRef& b, uint64_t b_bytes) {
  return a.epoch == b.epoch && a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}

// The part of GM an access may touch: [begin, end).
struct GmExtent {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool set = false;        // SetGlobalBuffer was called
  bool bounded = false;    // end is known (a size was given, or the allocation is known)
  bool from_size = false;  // the bounds come from SetGlobalBuffer's size (else from the allocation)
};

// --- current core ---
// Base of the current core's UB; fails with NO_ACTIVE_CORE outside a kernel run.
uint8_t* UbBase(const char* api);
// The kernel holds a raw pointer into UB (LocalTensor::GetPhyAddr / operator()): it may write anywhere in
// UB, so the next core starts from a UB refilled whole.
void NoteRawUbAccess();
uint32_t CoreEpoch();
int64_t BlockIdx();
int64_t BlockNum();
uint64_t CurrentTilingKey();

// --- operand checks ---
// Which pipe touches a UB operand and how; the vector/scalar synchronisation check (sync.cpp) keys on it.
enum class UbUse : uint8_t {
  kVectorRead,   // PIPE_V: vector instructions, and UB->UB DataCopy
  kVectorWrite,
  kScalarRead,   // PIPE_S: LocalTensor::GetValue
  kScalarWrite,  // LocalTensor::SetValue
  kScalarRef,    // LocalTensor::operator(): a reference the kernel may read (checked as a read) or write (untracked)
  kMteRead,      // MTE3: UB->GM (ordered with the vector pipe by the queues; not tracked)
  kMteWrite,     // MTE2: GM->UB (likewise; it overwrites whatever the vector or scalar unit left there)
};
// Checks that [first_byte, first_byte + need_bytes) lies inside the tensor, that the tensor belongs to the
// running core and is not freed, and (if `aligned`) that its start is 32-byte aligned; then the
// vector/scalar synchronisation of the access (`use`).
void CheckUbOperand(const char* api, const char* role, const UbRef& ref, uint64_t first_byte, uint64_t need_bytes,
                    bool aligned, UbUse use);
// Fails with DTYPE_UNSUPPORTED if the selected SoC's `api` does not take `type`.
void RequireDtype(Api api, DType type);
// Compare/Compares/CompareScalar: A2/A3 also take int32_t, for CMPMODE::EQ only (asc-devkit's type lists).
void RequireCompareDtype(Api api, DType type, bool equality);
// Fails with DTYPE_UNSUPPORTED / CAST_MODE_ILLEGAL for an unsupported conversion or rounding mode.
void RequireCast(DType dst, DType src, int round_mode);
// WholeReduceMax: fails with INVALID_ARGUMENT if the selected SoC lacks ReduceOrder `order`.
void RequireReduceOrder(Api api, int order);
// True where level-2 ReduceSum adds the repeats' sums in order (A2/A3); elsewhere as a tree.
bool ReduceSumSequentialRepeats();

// With `sized` false the extent is the allocation containing `base` (GmAlloc / RegisterGmRegion), if known.
GmExtent MakeGmExtent(const void* base, uint64_t bytes, bool sized);
// Checks an access of `bytes` at `address` against the extent and the allocation; records writes for the
// cross-core overlap check (unless atomic accumulation is on).
void CheckGmAccess(const char* api, const GmExtent& extent, const void* address, uint64_t bytes, bool write);

// Checked GM transfers (counted in the trace). UB->GM honours SetAtomicAdd: with it on, elements of
// `type` are added into GM and the write is exempt from the overlap check.
void CopyGmToUb(const char* api, const GmExtent& extent, const void* gm, uint8_t* ub, uint64_t bytes);
void CopyUbToGm(const char* api, const GmExtent& extent, void* gm, const uint8_t* ub, uint64_t bytes, DType type);

// --- trace ---
enum class CopyPath { kGmToUb, kUbToGm, kUbToUb };
void CountVector(Api api, uint64_t elements);
void CountCopy(CopyPath path, uint64_t bytes);
// One GM<->UB copy instruction (DataCopy, DataCopyPad) and the UB bytes its blocks occupy, each block from its
// 32-byte boundary to the next (padding included, the gaps between blocks not).
void CountCopyInstruction(uint64_t ub_bytes);

// --- TPipe / TQue / TBuf ---
struct BufferHandle {
  uint32_t epoch = 0;
  int32_t id = -1;
};
void PipeConstruct(void* pipe);
void PipeDestruct(void* pipe) noexcept;
void PipeReset(void* pipe);
// Carves `num` buffers of `bytes` (rounded up to 32) out of UB for a queue (depth > 0) or a TBuf (depth 0).
BufferHandle PipeInitBuffer(void* pipe, BufferHandle existing, int position, int32_t depth, uint32_t num,
                            uint64_t bytes);
UbRef QueueAlloc(const BufferHandle& queue);
bool QueueEnque(const BufferHandle& queue, const UbRef& tensor);
UbRef QueueDeque(const BufferHandle& queue);
void QueueFree(const BufferHandle& queue, const UbRef& tensor);
int32_t QueueCount(const BufferHandle& queue);
int32_t QueueDepth(const BufferHandle& queue);
bool QueueHasIdleBuffer(const BufferHandle& queue);
int QueuePosition(const BufferHandle& queue);
UbRef BufGet(const BufferHandle& buf, uint64_t offset_bytes, uint64_t length_bytes, const char* api);

// --- events ---
void EventSet(int hard_event, int32_t id);
void EventWait(int hard_event, int32_t id);
int32_t EventFetch(int hard_event);
int32_t EventAlloc(int hard_event);
void EventRelease(int hard_event, int32_t id);
// PipeBarrier<PIPE_ALL>: every pipe has finished everything issued before it.
void BarrierAll();

// --- atomic accumulation of UB->GM copies (SetAtomicAdd) ---
void SetAtomicMode(int dtype_or_minus_one);  // DType value, or -1 for none
int AtomicMode();

// --- launches ---
void RunLaunch(const char* kernel, uint32_t block_dim, uint64_t tiling_key, const std::function<void()>& body);
void SetPendingTilingKey(uint64_t key);
uint64_t PendingTilingKey();
// Copies `bytes` of tiling data from GM, checking the pointer against known GM allocations.
void LoadTiling(void* destination, uint64_t bytes, const void* tiling, const char* type_name);

// --- element access: UB bytes have no declared type, so elements go through memcpy ---
template <typename T>
inline T LoadElement(const uint8_t* base, uint64_t index) {
  T value;
  std::memcpy(static_cast<void*>(&value), base + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
inline void StoreElement(uint8_t* base, uint64_t index, const T& value) {
  std::memcpy(base + index * sizeof(T), static_cast<const void*>(&value), sizeof(T));
}

}  // namespace detail
}  // namespace opgen_twin
