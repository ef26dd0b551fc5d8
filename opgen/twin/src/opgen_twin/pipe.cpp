// TPipe buffer allocation and the TQue state machine (alloc -> enque -> deque -> free).
#include <string>
#include <utility>

#include "core_state.h"

namespace opgen_twin {
namespace detail {
namespace {

const char* GroupKind(const BufferGroup& group) { return group.is_queue() ? "queue" : "TBuf"; }

std::string GroupLabel(const BufferGroup& group) {
  return StringPrintf("%s %s", PositionName(group.position), GroupKind(group));
}

void ClearBuffers(CoreState& core) {
  core.groups.clear();
  core.blocks.clear();
  core.live.fill(0);
  core.ub_used = 0;
  core.sync = PipeSync();
}

BufferGroup& LookupGroup(const BufferHandle& handle, const char* api, bool want_queue) {
  CoreState& core = RequireCore(api);
  if (handle.id < 0 || handle.epoch != core.epoch || static_cast<size_t>(handle.id) >= core.groups.size()) {
    Fail("TPIPE_MISUSE", api,
         StringPrintf("the %s is used before TPipe::InitBuffer (in this core run)", want_queue ? "queue" : "TBuf"));
  }
  BufferGroup& group = core.groups[static_cast<size_t>(handle.id)];
  if (group.is_queue() != want_queue) {
    Fail("TPIPE_MISUSE", api, StringPrintf("%s used as a %s", GroupLabel(group).c_str(), want_queue ? "queue" : "TBuf"));
  }
  return group;
}

// Checks that `tensor` came from `group` in this core run and returns its block.
BufferBlock& OwnedBlock(CoreState& core, const BufferGroup& group, int32_t group_id, const UbRef& tensor,
                        const char* api) {
  if (tensor.epoch != core.epoch || tensor.block < 0 || static_cast<size_t>(tensor.block) >= core.blocks.size() ||
      core.blocks[static_cast<size_t>(tensor.block)].group != group_id) {
    Fail("QUEUE_MISUSE", api,
         StringPrintf("the tensor (UB offset %u) was not allocated from this %s", tensor.offset, GroupLabel(group).c_str()));
  }
  return core.blocks[static_cast<size_t>(tensor.block)];
}

}  // namespace

void PipeConstruct(void* pipe) {
  CoreState* core = ActiveCore();
  if (core == nullptr) return;  // a TPipe at namespace scope: adopted by the first InitBuffer of each core
  if (core->pipe != nullptr && core->pipe != pipe) {
    Fail("TPIPE_MISUSE", "TPipe", "a second TPipe was created while another is alive (one TPipe at a time)");
  }
  if (core->pipe == nullptr) {
    // A new pipe after an earlier one ended: whatever the earlier one still held must have been freed.
    CheckTensorsReleased(*core, "a new TPipe was created");
    ClearBuffers(*core);
  }
  core->pipe = pipe;
}

void PipeDestruct(void* pipe) noexcept {
  CoreState* core = ActiveCore();
  if (core != nullptr && core->pipe == pipe) core->pipe = nullptr;  // buffers stay for the end-of-kernel checks
}

void PipeReset(void* pipe) {
  CoreState& core = RequireCore("TPipe::Reset");
  if (core.pipe != nullptr && core.pipe != pipe) {
    Fail("TPIPE_MISUSE", "TPipe::Reset", "Reset called on a TPipe that is not the live one");
  }
  ClearBuffers(core);
  core.epoch = NextEpoch();  // every tensor and buffer handle of the old pipe is now stale
}

BufferHandle PipeInitBuffer(void* pipe, BufferHandle existing, int position, int32_t depth, uint32_t num,
                            uint64_t bytes) {
  const char* api = "TPipe::InitBuffer";
  CoreState& core = RequireCore(api);
  if (core.pipe == nullptr) core.pipe = pipe;
  if (core.pipe != pipe) {
    Fail("TPIPE_MISUSE", api, "InitBuffer on a TPipe that is not the live one (one TPipe at a time)");
  }
  const char* kind = depth > 0 ? "queue" : "TBuf";
  if (existing.id >= 0 && existing.epoch == core.epoch) {
    Fail("TPIPE_MISUSE", api, StringPrintf("InitBuffer called twice for the same %s %s", PositionName(position), kind));
  }
  if (num == 0 || bytes == 0) {
    Fail("INVALID_ARGUMENT", api,
         StringPrintf("%s %s: num=%u len=%llu; both must be at least 1", PositionName(position), kind, num,
                static_cast<unsigned long long>(bytes)));
  }
  const uint64_t rounded = (bytes + kUbBlockBytes - 1) / kUbBlockBytes * kUbBlockBytes;
  const uint64_t total = rounded * num;
  if (core.blocks.size() + num > kMaxPipeBuffers) {
    Fail("TOO_MANY_BUFFERS", api,
         StringPrintf("%s %s: num=%u would make %zu buffers; a TPipe holds at most %u", PositionName(position), kind, num,
                core.blocks.size() + num, kMaxPipeBuffers));
  }
  const SocInfo& soc = *ActiveLaunch()->soc;
  if (core.ub_used + total > soc.ubUsableBytes) {
    Fail("UB_OVERSUBSCRIBED", api,
         StringPrintf("%s %s: num=%u len=%llu (%llu bytes each after rounding to 32) needs %llu bytes, but %llu of the "
                "%llu usable UB bytes are already taken (soc=%s)",
                PositionName(position), kind, num, static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(rounded), static_cast<unsigned long long>(total),
                static_cast<unsigned long long>(core.ub_used), static_cast<unsigned long long>(soc.ubUsableBytes),
                soc.name));
  }
  BufferGroup group;
  group.position = position;
  group.depth = depth;
  const int32_t group_id = static_cast<int32_t>(core.groups.size());
  for (uint32_t i = 0; i < num; ++i) {
    BufferBlock block;
    block.group = group_id;
    block.offset = static_cast<uint32_t>(core.ub_used + rounded * i);
    block.bytes = static_cast<uint32_t>(rounded);
    // A TBuf's single buffer is permanently "allocated": it has no alloc/free cycle.
    block.state = depth > 0 ? BlockState::kFree : BlockState::kAllocated;
    group.blocks.push_back(static_cast<int32_t>(core.blocks.size()));
    if (core.blocks.capacity() == 0) core.blocks.reserve(16);
    core.blocks.push_back(block);
  }
  if (core.groups.capacity() == 0) core.groups.reserve(8);
  core.groups.push_back(std::move(group));
  core.ub_used += total;
  if (core.ub_used > core.ub_high_water) core.ub_high_water = core.ub_used;
  BufferHandle handle;
  handle.epoch = core.epoch;
  handle.id = group_id;
  return handle;
}

UbRef QueueAlloc(const BufferHandle& queue) {
  const char* api = "AllocTensor";
  BufferGroup& group = LookupGroup(queue, api, true);
  CoreState& core = *ActiveCore();
  const size_t count = group.blocks.size();
  for (size_t step = 0; step < count; ++step) {
    const size_t slot = (group.next_alloc + step) % count;
    BufferBlock& block = core.blocks[static_cast<size_t>(group.blocks[slot])];
    if (block.state != BlockState::kFree) continue;
    uint32_t& live = core.live[static_cast<size_t>(group.position)];
    if (live >= kMaxLiveTensorsPerPosition) {
      Fail("LIVE_TENSORS_EXCEEDED", api,
           StringPrintf("%s: %u tensors of position %s are already allocated; at most %u may be live per position",
                  GroupLabel(group).c_str(), live, PositionName(group.position), kMaxLiveTensorsPerPosition));
    }
    ++live;
    block.state = BlockState::kAllocated;
    ++block.generation;
    group.next_alloc = (slot + 1) % count;
    UbRef ref;
    ref.epoch = core.epoch;
    ref.offset = block.offset;
    ref.bytes = block.bytes;
    ref.block = group.blocks[slot];
    ref.generation = block.generation;
    return ref;
  }
  Fail("ALLOC_NO_FREE_BUFFER", api,
       StringPrintf("%s: all %zu buffers are in use (FreeTensor missing?); hardware would hang",
              GroupLabel(group).c_str(), count));
}

bool QueueEnque(const BufferHandle& queue, const UbRef& tensor) {
  const char* api = "EnQue";
  BufferGroup& group = LookupGroup(queue, api, true);
  CoreState& core = *ActiveCore();
  BufferBlock& block = OwnedBlock(core, group, queue.id, tensor, api);
  if (block.state != BlockState::kAllocated || block.generation != tensor.generation) {
    Fail("QUEUE_MISUSE", api,
         StringPrintf("%s: the tensor at UB offset %u is %s", GroupLabel(group).c_str(), tensor.offset,
                block.state == BlockState::kQueued ? "already in the queue" : "not allocated (freed)"));
  }
  if (static_cast<int32_t>(group.fifo.size()) >= group.depth) {
    Fail("ENQUE_FULL", api,
         StringPrintf("%s already holds depth=%d tensors; EnQue beyond the depth fails on hardware",
                GroupLabel(group).c_str(), group.depth));
  }
  block.state = BlockState::kQueued;
  group.fifo.push_back(tensor);
  return true;
}

UbRef QueueDeque(const BufferHandle& queue) {
  const char* api = "DeQue";
  BufferGroup& group = LookupGroup(queue, api, true);
  CoreState& core = *ActiveCore();
  if (group.fifo.empty()) {
    Fail("DEQUE_EMPTY", api,
         StringPrintf("%s is empty (no EnQue before this DeQue); hardware would hang", GroupLabel(group).c_str()));
  }
  UbRef tensor = group.fifo.front();
  group.fifo.pop_front();
  core.blocks[static_cast<size_t>(tensor.block)].state = BlockState::kAllocated;
  // DeQue hands back the whole buffer.
  tensor.offset = core.blocks[static_cast<size_t>(tensor.block)].offset;
  tensor.bytes = core.blocks[static_cast<size_t>(tensor.block)].bytes;
  return tensor;
}

void QueueFree(const BufferHandle& queue, const UbRef& tensor) {
  const char* api = "FreeTensor";
  BufferGroup& group = LookupGroup(queue, api, true);
  CoreState& core = *ActiveCore();
  BufferBlock& block = OwnedBlock(core, group, queue.id, tensor, api);
  if (block.state == BlockState::kFree || block.generation != tensor.generation) {
    Fail("FREE_INVALID", api,
         StringPrintf("%s: the tensor at UB offset %u is already free", GroupLabel(group).c_str(), tensor.offset));
  }
  if (block.state == BlockState::kQueued) {
    Fail("FREE_INVALID", api,
         StringPrintf("%s: the tensor at UB offset %u is still in the queue (EnQue'd, not DeQue'd)",
                GroupLabel(group).c_str(), tensor.offset));
  }
  block.state = BlockState::kFree;
  ++block.generation;
  --core.live[static_cast<size_t>(group.position)];
  SyncForget(core, block.offset, block.offset + block.bytes);
}

int32_t QueueCount(const BufferHandle& queue) {
  return static_cast<int32_t>(LookupGroup(queue, "GetTensorCountInQue", true).fifo.size());
}

int32_t QueueDepth(const BufferHandle& queue) { return LookupGroup(queue, "VacantInQue", true).depth; }

bool QueueHasIdleBuffer(const BufferHandle& queue) {
  BufferGroup& group = LookupGroup(queue, "HasIdleBuffer", true);
  const CoreState& core = *ActiveCore();
  for (int32_t b : group.blocks) {
    if (core.blocks[static_cast<size_t>(b)].state == BlockState::kFree) return true;
  }
  return false;
}

int QueuePosition(const BufferHandle& queue) { return LookupGroup(queue, "TQue", true).position; }

UbRef BufGet(const BufferHandle& buf, uint64_t offset_bytes, uint64_t length_bytes, const char* api) {
  BufferGroup& group = LookupGroup(buf, api, false);
  const CoreState& core = *ActiveCore();
  const BufferBlock& block = core.blocks[static_cast<size_t>(group.blocks[0])];
  if (length_bytes == UINT64_MAX) length_bytes = block.bytes > offset_bytes ? block.bytes - offset_bytes : 0;
  if (offset_bytes + length_bytes > block.bytes) {
    Fail("UB_OUT_OF_BOUNDS", api,
         StringPrintf("bytes [%llu, %llu) requested from a %s TBuf of %u bytes", static_cast<unsigned long long>(offset_bytes),
                static_cast<unsigned long long>(offset_bytes + length_bytes), PositionName(group.position),
                block.bytes));
  }
  UbRef ref;
  ref.epoch = core.epoch;
  ref.offset = static_cast<uint32_t>(block.offset + offset_bytes);
  ref.bytes = static_cast<uint32_t>(length_bytes);
  ref.block = -1;
  return ref;
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

TPipe* GetTPipePtr() {
  opgen_twin::detail::CoreState* core = opgen_twin::detail::ActiveCore();
  return core != nullptr ? static_cast<TPipe*>(core->pipe) : nullptr;
}

}  // namespace AscendC
