// Synchronisation between the vector pipe (PIPE_V) and the scalar unit (PIPE_S) through UB.
//
// On hardware the scalar unit issues vector instructions and goes on without waiting for them: a vector
// instruction's UB writes land, and its UB reads happen, some time later. The twin runs every instruction at
// once, in program order, so it has to remember what hardware would still have in flight. Facts relied on
// (Ascend C API reference: SetFlag/WaitFlag, PipeBarrier, the pipe types):
// - LocalTensor::GetValue/SetValue run on PIPE_S; vector instructions (and UB->UB DataCopy) on PIPE_V.
// - SetFlag<HardEvent::SRC_DST>(id) takes effect once every read and write of the instructions issued to the
//   source pipe before it has completed; WaitFlag<SRC_DST>(id) holds the destination pipe's later
//   instructions until that flag is set (and clears it). Set and Wait come in pairs with the same id.
// - PipeBarrier<PIPE_ALL> waits until everything issued before it, on every pipe, has completed.
// - EnQue/DeQue and AllocTensor/FreeTensor synchronise the MTE pipes with the vector pipe for queue buffers.
//
// The model: every UB access is numbered in program order. Vector writes and reads, and scalar writes, are
// logged per byte range with their number. SetFlag<V_S>(id) remembers the number it was issued at and the
// matching WaitFlag<V_S>(id) drops the vector accesses up to it (the scalar unit has now seen them); S_V does
// the same for scalar writes; PipeBarrier<PIPE_ALL> drops everything. What is still logged is in flight:
// - a scalar read (GetValue, operator()) of bytes a logged vector instruction writes: stale data;
// - a scalar write (SetValue) of bytes a logged vector instruction reads or writes: it may land first;
// - a vector read or write of bytes a logged SetValue wrote: the store may not have landed.
// An MTE2 write (GM->UB) replaces what the range held: the queue orders it after earlier vector work, and
// what the vector or scalar unit left there is gone. FreeTensor, TPipe::Reset and the end of a core clear
// the buffer's log, as the queue orders its next user. Not modelled: GM, MTE<->scalar (MTE2_S, S_MTE3),
// vector<->vector (PipeBarrier<PIPE_V>), writes through operator()'s reference or GetPhyAddr's raw pointer,
// and a scalar read followed by a vector overwrite (the scalar unit has the value once GetValue returns).
#include <iterator>
#include <string>
#include <vector>

#include "core_state.h"

namespace opgen_twin {
namespace detail {

// --- RangeLog ---

void RangeLog::Erase(uint32_t begin, uint32_t end) {
  if (begin >= end || entries_.empty()) return;
  auto it = entries_.lower_bound(begin);
  if (it != entries_.begin()) {
    auto before = std::prev(it);
    if (before->second.end > begin) {  // straddles `begin`: keep its left part, and its right part if any
      const Entry left = before->second;
      before->second.end = begin;
      if (left.end > end) {
        Entry right = left;
        entries_[end] = right;
        return;
      }
    }
  }
  while (it != entries_.end() && it->first < end) {
    if (it->second.end > end) {  // straddles `end`: keep its right part
      Entry right = it->second;
      entries_.erase(it);
      entries_[end] = right;
      return;
    }
    it = entries_.erase(it);
  }
}

void RangeLog::Record(uint32_t begin, uint32_t end, uint64_t seq, const char* api) {
  if (begin >= end) return;
  Erase(begin, end);
  auto next = entries_.lower_bound(begin);
  if (next != entries_.begin()) {
    auto before = std::prev(next);
    if (before->second.end == begin && before->second.api == api) {  // extends the range just before
      before->second.end = end;
      before->second.seq = seq;
      if (next != entries_.end() && next->first == end && next->second.api == api) {
        before->second.end = next->second.end;
        entries_.erase(next);
      }
      return;
    }
  }
  Entry entry;
  entry.end = end;
  entry.seq = seq;
  entry.api = api;
  if (next != entries_.end() && next->first == end && next->second.api == api) {
    entry.end = next->second.end;
    entries_.erase(next);
  }
  entries_[begin] = entry;
}

void RangeLog::DropUpTo(uint64_t seq) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.seq <= seq ? entries_.erase(it) : std::next(it);
  }
}

const RangeLog::Entry* RangeLog::FindOverlap(uint32_t begin, uint32_t end, uint32_t* found_begin) const {
  auto it = entries_.lower_bound(begin);
  if (it != entries_.begin() && std::prev(it)->second.end > begin) it = std::prev(it);
  if (it == entries_.end() || it->first >= end) return nullptr;
  *found_begin = it->first;
  return &it->second;
}

namespace {

const int kVtoS = static_cast<int>(AscendC::HardEvent::V_S);
const int kStoV = static_cast<int>(AscendC::HardEvent::S_V);

// "bytes [a, b) of the VECCALC TBuf at UB offset o" for the overlap of [begin, end) and the logged range.
std::string DescribeOverlap(const CoreState& core, uint32_t begin, uint32_t end, uint32_t logged_begin,
                            uint32_t logged_end) {
  const uint32_t first = begin > logged_begin ? begin : logged_begin;
  const uint32_t last = end < logged_end ? end : logged_end;
  for (const BufferBlock& block : core.blocks) {
    if (first >= block.offset && first < block.offset + block.bytes) {
      const BufferGroup& group = core.groups[static_cast<size_t>(block.group)];
      return StringPrintf("bytes [%u, %u) of the %s %s at UB offset %u", first - block.offset, last - block.offset,
                          PositionName(group.position), group.is_queue() ? "queue buffer" : "TBuf", block.offset);
    }
  }
  return StringPrintf("UB bytes [%u, %u)", first, last);
}

// `what` names the logged access (%s: its API); `effect` what can happen on hardware.
[[noreturn]] void Refuse(const CoreState& core, const char* api, const char* role, uint32_t begin, uint32_t end,
                         uint32_t logged_begin, const RangeLog::Entry& logged, const char* what, const char* event,
                         const char* effect) {
  Fail("PIPE_SYNC_MISSING", api,
       StringPrintf("%s: %s %s, with no SetFlag/WaitFlag<HardEvent::%s> pair (or PipeBarrier<PIPE_ALL>) in between; "
                    "the vector pipe runs asynchronously to the scalar unit, so on hardware %s",
                    role, DescribeOverlap(core, begin, end, logged_begin, logged.end).c_str(),
                    StringPrintf(what, logged.api).c_str(), event, effect));
}

}  // namespace

void TrackUbUse(CoreState& core, const char* api, const char* role, uint32_t begin, uint32_t end, UbUse use) {
  PipeSync& sync = core.sync;
  if (begin >= end) return;
  uint32_t found = 0;
  const RangeLog::Entry* hit = nullptr;
  switch (use) {
    case UbUse::kScalarRead:
    case UbUse::kScalarRef:
      if ((hit = sync.vector_writes.FindOverlap(begin, end, &found)) != nullptr) {
        Refuse(core, api, role, begin, end, found, *hit, "written by %s on the vector pipe, read by the scalar unit",
               "V_S", "the scalar unit reads stale data");
      }
      return;
    case UbUse::kScalarWrite:
      if ((hit = sync.vector_writes.FindOverlap(begin, end, &found)) != nullptr) {
        Refuse(core, api, role, begin, end, found, *hit, "written by %s on the vector pipe, then by the scalar unit",
               "V_S", "the vector write may land last");
      }
      if ((hit = sync.vector_reads.FindOverlap(begin, end, &found)) != nullptr) {
        Refuse(core, api, role, begin, end, found, *hit,
               "read by %s on the vector pipe, then written by the scalar unit", "V_S",
               "the vector pipe may read the new value");
      }
      sync.scalar_writes.Record(begin, end, ++sync.seq, api);
      return;
    case UbUse::kVectorRead:
      if ((hit = sync.scalar_writes.FindOverlap(begin, end, &found)) != nullptr) {
        Refuse(core, api, role, begin, end, found, *hit, "written by %s on the scalar unit, read by the vector pipe",
               "S_V", "the vector pipe may read the old value");
      }
      sync.vector_reads.Record(begin, end, ++sync.seq, api);
      return;
    case UbUse::kVectorWrite:
      if ((hit = sync.scalar_writes.FindOverlap(begin, end, &found)) != nullptr) {
        Refuse(core, api, role, begin, end, found, *hit, "written by %s on the scalar unit, then by the vector pipe",
               "S_V", "the scalar store may land last");
      }
      sync.vector_writes.Record(begin, end, ++sync.seq, api);
      return;
    case UbUse::kMteWrite:
      sync.vector_writes.Erase(begin, end);
      sync.vector_reads.Erase(begin, end);
      sync.scalar_writes.Erase(begin, end);
      return;
    case UbUse::kMteRead:
      return;
  }
}

void SyncFlagSet(CoreState& core, int hard_event, int32_t id) {
  PipeSync& sync = core.sync;
  if (hard_event == kVtoS) sync.v_s_sets[static_cast<size_t>(id)].push_back(sync.seq);
  if (hard_event == kStoV) sync.s_v_sets[static_cast<size_t>(id)].push_back(sync.seq);
}

void SyncFlagWait(CoreState& core, int hard_event, int32_t id) {
  PipeSync& sync = core.sync;
  if (hard_event != kVtoS && hard_event != kStoV) return;
  std::vector<uint64_t>& sets = (hard_event == kVtoS ? sync.v_s_sets : sync.s_v_sets)[static_cast<size_t>(id)];
  if (sets.empty()) return;  // EventWait reports the unpaired WaitFlag
  const uint64_t seen = sets.front();
  sets.erase(sets.begin());
  if (hard_event == kVtoS) {
    sync.vector_writes.DropUpTo(seen);
    sync.vector_reads.DropUpTo(seen);
  } else {
    sync.scalar_writes.DropUpTo(seen);
  }
}

void SyncForget(CoreState& core, uint32_t begin, uint32_t end) {
  core.sync.vector_writes.Erase(begin, end);
  core.sync.vector_reads.Erase(begin, end);
  core.sync.scalar_writes.Erase(begin, end);
}

void BarrierAll() {
  CoreState* core = ActiveCore();
  if (core == nullptr) return;
  core->sync.vector_writes.clear();
  core->sync.vector_reads.clear();
  core->sync.scalar_writes.clear();
}

}  // namespace detail
}  // namespace opgen_twin
