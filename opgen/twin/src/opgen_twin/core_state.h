// Private state of the twin's kernel runtime: the running launch and the running core.
#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace opgen_twin {
namespace detail {

constexpr size_t kPositionCount = static_cast<size_t>(AscendC::TPosition::MAX) + 1;
constexpr size_t kHardEventCount = static_cast<size_t>(AscendC::HardEvent::MAX) + 1;
constexpr size_t kApiCount = static_cast<size_t>(Api::kCount);

enum class BlockState : uint8_t { kFree, kAllocated, kQueued };

// One buffer carved out by TPipe::InitBuffer.
struct BufferBlock {
  int32_t group = -1;
  uint32_t offset = 0;
  uint32_t bytes = 0;
  BlockState state = BlockState::kFree;
  uint32_t generation = 0;  // bumped on every alloc and free, so stale tensor handles are recognised
};

// The tensors in a queue, oldest first: a vector and a read position (a std::deque allocates a 512-byte
// node for every queue of every core run).
class TensorFifo {
 public:
  size_t size() const { return items_.size() - head_; }
  bool empty() const { return head_ == items_.size(); }
  const UbRef& front() const { return items_[head_]; }
  void push_back(const UbRef& tensor) { items_.push_back(tensor); }
  void pop_front() {
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 16 && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<UbRef> items_;
  size_t head_ = 0;
};

// A TQue (depth > 0) or TBuf (depth 0) and its buffers.
struct BufferGroup {
  int position = 0;
  int32_t depth = 0;
  std::vector<int32_t> blocks;
  TensorFifo fifo;
  size_t next_alloc = 0;
  bool is_queue() const { return depth > 0; }
};

struct WriteRun {
  uintptr_t end = 0;
  const char* api = "";
};

// Byte ranges of UB [begin, end), each with the sequence number of the last access recorded over it and the
// API that made it. Recording a range replaces what it overlaps; ranges touching one recorded by the same
// API merge, so an element-by-element loop stays one range.
class RangeLog {
 public:
  struct Entry {
    uint32_t end = 0;
    uint64_t seq = 0;
    const char* api = "";
  };
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  void Record(uint32_t begin, uint32_t end, uint64_t seq, const char* api);
  void Erase(uint32_t begin, uint32_t end);
  // Forgets every range recorded at or before `seq`.
  void DropUpTo(uint64_t seq);
  // The first recorded range overlapping [begin, end) (its begin in *found_begin), or nullptr.
  const Entry* FindOverlap(uint32_t begin, uint32_t end, uint32_t* found_begin) const;

 private:
  std::map<uint32_t, Entry> entries_;  // by begin; disjoint
};

// What the vector pipe and the scalar unit have done to UB that the other has not synchronised with yet
// (sync.cpp). Accesses are numbered in program order; a SetFlag remembers the number it was issued at.
struct PipeSync {
  uint64_t seq = 0;
  RangeLog vector_writes;  // vector results the scalar unit has not waited for (V_S)
  RangeLog vector_reads;   // vector operands the scalar unit must not overwrite before V_S
  RangeLog scalar_writes;  // SetValue stores the vector pipe has not waited for (S_V)
  std::array<std::vector<uint64_t>, kEventIdsPerEvent> v_s_sets;  // per event id: seq of each SetFlag<V_S> not waited
  std::array<std::vector<uint64_t>, kEventIdsPerEvent> s_v_sets;
};

struct CoreState {
  uint32_t index = 0;
  uint32_t epoch = 0;
  uint8_t* ub = nullptr;
  void* pipe = nullptr;
  uint64_t ub_used = 0;
  uint64_t ub_high_water = 0;
  bool raw_ub = false;  // a raw UB pointer was handed out (NoteRawUbAccess)
  std::vector<BufferGroup> groups;
  std::vector<BufferBlock> blocks;
  std::array<uint32_t, kPositionCount> live{};
  std::array<std::array<uint32_t, kEventIdsPerEvent>, kHardEventCount> flags{};
  uint32_t pending_flags = 0;  // sum of `flags`: SetFlags not yet waited for
  std::array<uint8_t, kHardEventCount> allocated_events{};  // bit per event id
  int atomic = -1;
  uint64_t copied[3] = {0, 0, 0};  // by CopyPath
  uint64_t copies = 0;             // GM<->UB copy instructions
  uint64_t ub_copy_bytes = 0;      // UB bytes those copies occupy (CountCopyInstruction)
  std::array<ApiCount, kApiCount> vector{};
  std::map<uintptr_t, WriteRun> writes;  // merged GM ranges written by this core
  PipeSync sync;
};

// A GM range written by an earlier core of the same launch.
struct OwnedWrite {
  uintptr_t end = 0;
  uint32_t core = 0;
  const char* api = "";
};

// Memory whose end abuts an inaccessible guard area (see guard.cpp): [map_begin, map_end) is the whole
// mapping, `data` the buffer, `rounded` its size rounded up to the alignment. map_begin == 0 when no
// guard could be mapped (the buffer then comes from aligned_alloc).
struct GuardedMapping {
  uint8_t* data = nullptr;
  size_t rounded = 0;
  uintptr_t map_begin = 0;
  uintptr_t map_end = 0;
  bool guarded() const { return map_begin != 0; }
  // True if `address` is in the guard area before or after the buffer.
  bool InGuard(uintptr_t address) const {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
    return guarded() && address >= map_begin && address < map_end && (address < begin || address >= begin + rounded);
  }
};

// `bytes` (rounded up to `alignment`, a power of two) ending where the guard starts; data == nullptr if out
// of memory.
GuardedMapping MapGuarded(size_t bytes, size_t alignment);
void UnmapGuarded(const GuardedMapping& mapping);

enum class FaultAccess { kUnknown, kRead, kWrite };
struct FaultRecord {
  uintptr_t address = 0;
  FaultAccess access = FaultAccess::kUnknown;
};
const char* FaultAccessName(FaultAccess access);

// The SIGSEGV handler of a launch (installed at its start, the previous disposition restored at its end).
void InstallFaultTrap();
void RemoveFaultTrap();
// Runs a core's body; false (and the fault) if it touched an inaccessible page on this thread, after which
// the body's frames are abandoned. Any other SIGSEGV goes to the previous disposition.
bool RunTrapped(const std::function<void()>& body, FaultRecord* fault);

struct LaunchState {
  std::string kernel;
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  const SocInfo* soc = nullptr;
  bool core_active = false;
  CoreState core;
  uint8_t* ub_storage = nullptr;
  GuardedMapping ub_mapping;  // ub_storage's mapping, with a guard after the SoC's physical UB (kept across launches)
  std::map<uintptr_t, OwnedWrite> written;
  LaunchTrace trace;
};

// The running launch, or nullptr.
LaunchState* ActiveLaunch();
// The running core, or nullptr.
CoreState* ActiveCore();
// The running core; fails with NO_ACTIVE_CORE outside a kernel.
CoreState& RequireCore(const char* api);
// The SoC of the running launch, or the selected SoC outside a launch.
const SocInfo& ActiveSoc();
// A fresh epoch number (tensor and buffer handles carry the epoch they were made in).
uint32_t NextEpoch();

// The core's trace so far.
CoreTrace SnapshotCoreTrace(const CoreState& core);
// Records a finished (or failed) launch: trace list and OPGEN_TWIN_TRACE file.
void RecordLaunch(LaunchTrace trace);
// Called by Fail() in exit mode just before the process ends.
void OnFatalCheck(const char* check);
// Kernel name and core index for messages ("-" / -1 outside).
void DescribeLaunch(std::string* kernel, int64_t* core);

// --- vector/scalar synchronisation (sync.cpp) ---
// Checks `use` of UB bytes [begin, end) against what the other unit left unsynchronised, then records it.
void TrackUbUse(CoreState& core, const char* api, const char* role, uint32_t begin, uint32_t end, UbUse use);
// SetFlag/WaitFlag of `hard_event` (only V_S and S_V matter here).
void SyncFlagSet(CoreState& core, int hard_event, int32_t id);
void SyncFlagWait(CoreState& core, int hard_event, int32_t id);
// The buffer [begin, end) is released (FreeTensor) or the TPipe's buffers are (`begin` 0, `end` UINT32_MAX):
// what was done to it no longer matters.
void SyncForget(CoreState& core, uint32_t begin, uint32_t end);

// Checks run when a core's kernel returns.
void CheckCoreEnd(LaunchState& launch);
// Fails with TENSOR_LEAK if a queue tensor is still allocated; `when` says at which point.
void CheckTensorsReleased(const CoreState& core, const char* when);

// GM allocations known to the twin.
struct GmRegion {
  uintptr_t base = 0;
  size_t bytes = 0;
  bool from_gm_alloc = false;
  GuardedMapping mapping;  // for buffers the twin allocated (GmAlloc, device memory); else unguarded
};
bool FindGmRegion(uintptr_t address, GmRegion* region);
// GmAlloc / AllocateGuardedGm: a registered, guarded buffer of `bytes` filled with `fill` (nullptr if out of
// memory), and its release (false if `base` is no such buffer of that kind).
void* AllocateGuardedGmRegion(size_t bytes, size_t alignment, unsigned char fill, bool from_gm_alloc);
bool FreeGuardedGmRegion(void* base, bool from_gm_alloc);
// The GM buffer whose guard area holds `address`. Does not wait for the region lock (false if it is held),
// as it runs after a fault that may have interrupted anything.
bool FindGuardedGmRegion(uintptr_t address, GmRegion* region);
// "GmAlloc'd buffer 0x... (4096 bytes), bytes [a, b)" style description of a GM range.
std::string DescribeGmRange(uintptr_t begin, uintptr_t end);

const char* HardEventName(int hard_event);
const char* PositionName(int position);

}  // namespace detail
}  // namespace opgen_twin
