// The running core: UB access, operand checks, trace counters, event flags.
#include <string>

#include "core_state.h"

namespace opgen_twin {
namespace detail {

CoreState* ActiveCore() {
  LaunchState* launch = ActiveLaunch();
  return launch != nullptr && launch->core_active ? &launch->core : nullptr;
}

CoreState& RequireCore(const char* api) {
  CoreState* core = ActiveCore();
  if (core == nullptr) {
    Fail("NO_ACTIVE_CORE", api, "no kernel is running (launch kernels with ICPU_RUN_KF or LaunchKernel)");
  }
  return *core;
}

uint32_t NextEpoch() {
  static uint32_t epoch = 0;
  return ++epoch;
}

uint8_t* UbBase(const char* api) { return RequireCore(api).ub; }

void NoteRawUbAccess() {
  CoreState* core = ActiveCore();
  if (core != nullptr) core->raw_ub = true;
}

uint32_t CoreEpoch() {
  const CoreState* core = ActiveCore();
  return core != nullptr ? core->epoch : 0;
}

int64_t BlockIdx() { return RequireCore("GetBlockIdx").index; }

int64_t BlockNum() {
  RequireCore("GetBlockNum");
  return ActiveLaunch()->block_dim;
}

uint64_t CurrentTilingKey() {
  const LaunchState* launch = ActiveLaunch();
  return launch != nullptr ? launch->tiling_key : 0;
}

void CheckUbOperand(const char* api, const char* role, const UbRef& ref, uint64_t first_byte, uint64_t need_bytes,
                    bool aligned, UbUse use) {
  CoreState& core = RequireCore(api);
  if (ref.epoch == 0) {
    Fail("TENSOR_INVALID", api, StringPrintf("%s: the LocalTensor has no buffer (not allocated from a TQue or TBuf)", role));
  }
  if (ref.epoch != core.epoch) {
    Fail("TENSOR_INVALID", api,
         StringPrintf("%s: the LocalTensor belongs to an earlier core run or was released by TPipe::Reset", role));
  }
  if (ref.block >= 0) {
    const BufferBlock& block = core.blocks[static_cast<size_t>(ref.block)];
    if (block.state == BlockState::kFree || block.generation != ref.generation) {
      Fail("USE_AFTER_FREE", api,
           StringPrintf("%s: the LocalTensor at UB offset %u was freed with FreeTensor (buffer %d of its queue)", role,
                  ref.offset, ref.block));
    }
  }
  if (aligned && ref.offset % kUbBlockBytes != 0) {
    Fail("UB_MISALIGNED", api,
         StringPrintf("%s starts at UB offset %u, which is not 32-byte aligned (offset %% 32 = %u)", role, ref.offset,
                ref.offset % kUbBlockBytes));
  }
  if (first_byte + need_bytes > ref.bytes) {
    Fail("UB_OUT_OF_BOUNDS", api,
         StringPrintf("%s: needs bytes [%llu, %llu) but the tensor at UB offset %u has %u bytes", role,
                static_cast<unsigned long long>(first_byte), static_cast<unsigned long long>(first_byte + need_bytes),
                ref.offset, ref.bytes));
  }
  const uint32_t begin = static_cast<uint32_t>(ref.offset + first_byte);
  TrackUbUse(core, api, role, begin, static_cast<uint32_t>(begin + need_bytes), use);
}

void CountVector(Api api, uint64_t elements) {
  CoreState* core = ActiveCore();
  if (core == nullptr) return;
  ApiCount& count = core->vector[static_cast<size_t>(api)];
  ++count.calls;
  count.elements += elements;
}

void CountCopy(CopyPath path, uint64_t bytes) {
  CoreState* core = ActiveCore();
  if (core == nullptr) return;
  core->copied[static_cast<size_t>(path)] += bytes;
}

void CountCopyInstruction(uint64_t ub_bytes) {
  CoreState* core = ActiveCore();
  if (core == nullptr) return;
  ++core->copies;
  core->ub_copy_bytes += ub_bytes;
}

CoreTrace SnapshotCoreTrace(const CoreState& core) {
  CoreTrace trace;
  trace.core = core.index;
  trace.gmToUbBytes = core.copied[static_cast<size_t>(CopyPath::kGmToUb)];
  trace.ubToGmBytes = core.copied[static_cast<size_t>(CopyPath::kUbToGm)];
  trace.ubToUbBytes = core.copied[static_cast<size_t>(CopyPath::kUbToUb)];
  trace.ubHighWater = core.ub_high_water;
  trace.copies = core.copies;
  trace.ubCopyBytes = core.ub_copy_bytes;
  for (size_t a = 0; a < kApiCount; ++a) {
    if (core.vector[a].calls > 0) trace.vector[ApiName(static_cast<Api>(a))] = core.vector[a];
  }
  return trace;
}

// --- events ---

namespace {

uint32_t& FlagCount(CoreState& core, int hard_event, int32_t id, const char* api) {
  if (hard_event < 0 || static_cast<size_t>(hard_event) >= kHardEventCount - 1) {
    Fail("INVALID_ARGUMENT", api, StringPrintf("event=%d is not a HardEvent", hard_event));
  }
  if (id < 0 || id >= kEventIdsPerEvent) {
    Fail("EVENT_ID_RANGE", api,
         StringPrintf("event=%s id=%d: event ids are 0..%d", HardEventName(hard_event), id, kEventIdsPerEvent - 1));
  }
  return core.flags[static_cast<size_t>(hard_event)][static_cast<size_t>(id)];
}

}  // namespace

void EventSet(int hard_event, int32_t id) {
  CoreState& core = RequireCore("SetFlag");
  ++FlagCount(core, hard_event, id, "SetFlag");
  ++core.pending_flags;
  SyncFlagSet(core, hard_event, id);
}

void EventWait(int hard_event, int32_t id) {
  CoreState& core = RequireCore("WaitFlag");
  uint32_t& count = FlagCount(core, hard_event, id, "WaitFlag");
  if (count == 0) {
    Fail("EVENT_UNPAIRED", "WaitFlag",
         StringPrintf("event=%s id=%d: WaitFlag without a matching SetFlag (hangs on hardware)", HardEventName(hard_event),
                id));
  }
  --count;
  --core.pending_flags;
  SyncFlagWait(core, hard_event, id);
}

int32_t EventFetch(int hard_event) {
  CoreState& core = RequireCore("FetchEventID");
  FlagCount(core, hard_event, 0, "FetchEventID");
  const uint8_t taken = core.allocated_events[static_cast<size_t>(hard_event)];
  for (int32_t id = 0; id < kEventIdsPerEvent; ++id) {
    if (((taken >> id) & 1u) == 0) return id;
  }
  Fail("EVENT_ID_RANGE", "FetchEventID",
       StringPrintf("event=%s: all %d ids are allocated", HardEventName(hard_event), kEventIdsPerEvent));
}

int32_t EventAlloc(int hard_event) {
  CoreState& core = RequireCore("AllocEventID");
  const int32_t id = EventFetch(hard_event);
  core.allocated_events[static_cast<size_t>(hard_event)] =
      static_cast<uint8_t>(core.allocated_events[static_cast<size_t>(hard_event)] | (1u << id));
  return id;
}

void EventRelease(int hard_event, int32_t id) {
  CoreState& core = RequireCore("ReleaseEventID");
  FlagCount(core, hard_event, id, "ReleaseEventID");
  core.allocated_events[static_cast<size_t>(hard_event)] =
      static_cast<uint8_t>(core.allocated_events[static_cast<size_t>(hard_event)] & ~(1u << id));
}

// --- atomic accumulation ---

void SetAtomicMode(int dtype_or_minus_one) { RequireCore("SetAtomicAdd").atomic = dtype_or_minus_one; }

int AtomicMode() {
  const CoreState* core = ActiveCore();
  return core != nullptr ? core->atomic : -1;
}

}  // namespace detail
}  // namespace opgen_twin
