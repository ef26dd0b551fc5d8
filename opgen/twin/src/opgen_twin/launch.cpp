// Kernel launches (ICPU_RUN_KF and LaunchKernel share RunLaunch), the kernel registry, end-of-core checks.
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "core_state.h"
#include "opgen_twin/kernel_registry.h"

namespace opgen_twin {
namespace detail {
namespace {

LaunchState* g_launch = nullptr;
uint64_t g_pending_tiling_key = 0;

constexpr uint32_t kMaxBlockDim = 65535;
constexpr size_t kUbAlignment = 4096;  // so that host UB addresses keep the alignment of UB offsets

// The UB model: one guarded mapping kept from launch to launch (remapped when the SoC's UB size changes),
// and how many of its leading bytes may differ from the fresh-UB fill. Launches run one at a time
// (DeviceMutex), so this needs no lock of its own.
struct UbModel {
  GuardedMapping mapping;
  uint64_t bytes = 0;
  uint64_t dirty = 0;  // bytes [0, dirty) may hold data; the rest holds the fill
};
UbModel g_ub;

GuardedMapping AcquireUb(uint64_t bytes) {
  if (g_ub.mapping.data == nullptr || g_ub.bytes != bytes) {
    if (g_ub.mapping.data != nullptr) UnmapGuarded(g_ub.mapping);
    g_ub.mapping = MapGuarded(bytes, kUbAlignment);
    g_ub.bytes = g_ub.mapping.data != nullptr ? bytes : 0;
    g_ub.dirty = g_ub.bytes;  // whatever the memory held before
  }
  return g_ub.mapping;
}

void BeginCore(LaunchState& launch, uint32_t index) {
  launch.core = CoreState();
  launch.core.index = index;
  launch.core.epoch = NextEpoch();
  launch.core.ub = launch.ub_storage;
  // Fresh UB holds NaN bytes, so reading memory no instruction wrote shows up in the results. Only the part
  // earlier cores may have written needs the fill again: UB beyond their TPipe buffers is written only
  // through raw pointers, which mark the whole UB dirty.
  std::memset(launch.ub_storage, 0xff, g_ub.dirty);
  g_ub.dirty = g_ub.bytes;  // until the core finishes cleanly
  launch.core_active = true;
}

// After a core that finished cleanly: what it can have written.
void NoteUbWritten(const CoreState& core) {
  g_ub.dirty = core.raw_ub || core.ub_high_water > g_ub.bytes ? g_ub.bytes : core.ub_high_water;
}

void FinishCore(LaunchState& launch) {
  launch.trace.cores.push_back(SnapshotCoreTrace(launch.core));
  launch.core_active = false;
}

void ReleaseLaunch(LaunchState& launch) {
  RemoveFaultTrap();
  launch.ub_storage = nullptr;  // the mapping stays for the next launch (g_ub)
  g_launch = nullptr;
}

// A core touched a guard page (or another inaccessible page) through a raw pointer: names the access.
[[noreturn]] void ReportFault(const LaunchState& launch, const FaultRecord& fault) {
  const uintptr_t address = fault.address;
  const char* access = FaultAccessName(fault.access);
  if (launch.ub_mapping.InGuard(address)) {
    const long long byte = static_cast<long long>(address - reinterpret_cast<uintptr_t>(launch.ub_storage));
    const unsigned long long ub_bytes = launch.soc->ubPhysicalBytes;
    const std::string where =
        byte < 0 ? StringPrintf("%lld bytes before the start of the core's UB", -byte)
                 : StringPrintf("%llu bytes past the end of the core's %llu-byte UB",
                                static_cast<unsigned long long>(byte) - ub_bytes, ub_bytes);
    Fail("UB_OUT_OF_BOUNDS", "LocalTensor::GetPhyAddr",
         StringPrintf("UB %s out of bounds via raw pointer: UB byte %lld (address %p), %s (soc=%s)", access, byte,
                      reinterpret_cast<void*>(address), where.c_str(), launch.soc->name));
  }
  GmRegion region;
  if (FindGuardedGmRegion(address, &region)) {
    const long long byte = static_cast<long long>(address - region.base);
    const std::string where =
        byte < 0 ? StringPrintf("%lld bytes before its start", -byte)
                 : StringPrintf("%llu bytes past its end", static_cast<unsigned long long>(byte) - region.bytes);
    Fail("GM_OUT_OF_BOUNDS", "GlobalTensor::GetPhyAddr",
         StringPrintf("GM %s out of bounds via raw pointer (from GlobalTensor::GetPhyAddr or a GM_ADDR argument): "
                      "byte %lld of the %s buffer at %p (%zu bytes), %s",
                      access, byte, region.from_gm_alloc ? "GmAlloc" : "registered",
                      reinterpret_cast<void*>(region.base), region.bytes, where.c_str()));
  }
  Fail("MEMORY_FAULT", "raw-pointer",
       StringPrintf("%s of address %p: an inaccessible or read-only page that is neither a GM buffer nor UB",
                    access, reinterpret_cast<void*>(address)));
}

// Moves this core's GM writes into the launch's record, failing if another core wrote the same bytes.
void MergeCoreWrites(LaunchState& launch) {
  const CoreState& core = launch.core;
  for (const auto& run : core.writes) {
    const uintptr_t begin = run.first;
    const uintptr_t end = run.second.end;
    auto it = launch.written.upper_bound(begin);
    const OwnedWrite* clash = nullptr;
    uintptr_t clash_begin = 0;
    if (it != launch.written.begin() && std::prev(it)->second.end > begin) {
      clash = &std::prev(it)->second;
      clash_begin = std::prev(it)->first;
    } else if (it != launch.written.end() && it->first < end) {
      clash = &it->second;
      clash_begin = it->first;
    }
    if (clash != nullptr) {
      const uintptr_t overlap_begin = begin > clash_begin ? begin : clash_begin;
      const uintptr_t overlap_end = end < clash->end ? end : clash->end;
      Fail("GM_WRITE_OVERLAP", run.second.api,
           StringPrintf("core %u and core %u both write %s (core %u via %s); cores must write disjoint GM ranges",
                  core.index, clash->core, DescribeGmRange(overlap_begin, overlap_end).c_str(), clash->core,
                  clash->api));
    }
  }
  for (const auto& run : core.writes) {
    launch.written[run.first] = OwnedWrite{run.second.end, core.index, run.second.api};
  }
}

}  // namespace

LaunchState* ActiveLaunch() { return g_launch; }

void DescribeLaunch(std::string* kernel, int64_t* core) {
  if (g_launch == nullptr) return;
  *kernel = g_launch->kernel;
  *core = g_launch->core_active ? static_cast<int64_t>(g_launch->core.index) : -1;
}

void OnFatalCheck(const char* check) {
  if (g_launch == nullptr) return;
  g_launch->trace.status = check;
  if (g_launch->core_active) g_launch->trace.cores.push_back(SnapshotCoreTrace(g_launch->core));
  RecordLaunch(g_launch->trace);
}

void CheckTensorsReleased(const CoreState& core, const char* when) {
  std::string held;
  size_t count = 0;
  for (const BufferGroup& group : core.groups) {
    if (!group.is_queue()) continue;
    for (int32_t b : group.blocks) {
      const BufferBlock& block = core.blocks[static_cast<size_t>(b)];
      if (block.state == BlockState::kFree) continue;
      ++count;
      if (!held.empty()) held += ", ";
      held += StringPrintf("%s queue buffer at UB offset %u (%s)", PositionName(group.position), block.offset,
                     block.state == BlockState::kQueued ? "enqueued, never dequeued" : "allocated, never freed");
    }
  }
  if (count > 0) {
    Fail("TENSOR_LEAK", "FreeTensor", StringPrintf("%zu tensor(s) still allocated when %s: %s", count, when, held.c_str()));
  }
}

void CheckCoreEnd(LaunchState& launch) {
  const CoreState& core = launch.core;
  CheckTensorsReleased(core, "the kernel returned");
  for (size_t e = 0; core.pending_flags > 0 && e < kHardEventCount; ++e) {
    for (size_t id = 0; id < static_cast<size_t>(kEventIdsPerEvent); ++id) {
      if (core.flags[e][id] > 0) {
        Fail("EVENT_UNPAIRED", "SetFlag",
             StringPrintf("event=%s id=%zu: %u SetFlag(s) never waited for when the kernel returned",
                    HardEventName(static_cast<int>(e)), id, core.flags[e][id]));
      }
    }
  }
  MergeCoreWrites(launch);
}

void SetPendingTilingKey(uint64_t key) { g_pending_tiling_key = key; }
uint64_t PendingTilingKey() { return g_pending_tiling_key; }

void RunLaunch(const char* kernel, uint32_t block_dim, uint64_t tiling_key, const std::function<void()>& body) {
  // Another thread's launch finishes first; a launch from inside a running kernel (same thread) is an error.
  std::lock_guard<std::recursive_mutex> device(DeviceMutex());
  if (g_launch != nullptr) {
    Fail("INVALID_ARGUMENT", "ICPU_RUN_KF", StringPrintf("kernel %s launched while kernel %s runs", kernel,
                                                   g_launch->kernel.c_str()));
  }
  LaunchState launch;
  launch.kernel = kernel;
  launch.block_dim = block_dim;
  launch.tiling_key = tiling_key;
  launch.soc = &CurrentSoc();
  launch.trace.kernel = kernel;
  launch.trace.blockDim = block_dim;
  launch.trace.tilingKey = tiling_key;
  launch.trace.soc = launch.soc->name;
  // UB ends at a guard page: a raw-pointer access past it (or before it) stops with UB_OUT_OF_BOUNDS.
  launch.ub_mapping = AcquireUb(launch.soc->ubPhysicalBytes);
  launch.ub_storage = launch.ub_mapping.data;
  g_launch = &launch;
  InstallFaultTrap();
  try {
    if (launch.ub_storage == nullptr) Fail("GM_ALLOC", "ICPU_RUN_KF", "could not allocate the UB model");
    if (block_dim == 0 || block_dim > kMaxBlockDim) {
      Fail("INVALID_ARGUMENT", "ICPU_RUN_KF", StringPrintf("blockDim=%u must be in [1, %u]", block_dim, kMaxBlockDim));
    }
    for (uint32_t index = 0; index < block_dim; ++index) {
      BeginCore(launch, index);
      FaultRecord fault;
      if (!RunTrapped(body, &fault)) ReportFault(launch, fault);
      CheckCoreEnd(launch);
      NoteUbWritten(launch.core);
      FinishCore(launch);
    }
  } catch (const CheckError& error) {
    launch.trace.status = error.check();
    if (launch.core_active) FinishCore(launch);
    RecordLaunch(launch.trace);
    ReleaseLaunch(launch);
    throw;
  } catch (...) {
    launch.trace.status = "EXCEPTION";
    if (launch.core_active) FinishCore(launch);
    RecordLaunch(launch.trace);
    ReleaseLaunch(launch);
    throw;
  }
  RecordLaunch(std::move(launch.trace));
  ReleaseLaunch(launch);
}

}  // namespace detail

std::recursive_mutex& DeviceMutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

namespace {

struct RegisteredKernel {
  KernelThunk thunk = nullptr;
  int num_args = 0;
};

std::map<std::string, RegisteredKernel>& Registry() {
  static std::map<std::string, RegisteredKernel> registry;
  return registry;
}

}  // namespace

void RegisterKernel(const char* name, KernelThunk thunk, int numArgs) {
  auto& registry = Registry();
  auto it = registry.find(name);
  if (it != registry.end() && it->second.thunk != thunk) {
    Fail("KERNEL_REGISTRY", "RegisterKernel", StringPrintf("kernel %s is registered twice", name));
  }
  registry[name] = RegisteredKernel{thunk, numArgs};
}

bool HasKernel(const char* name) { return Registry().count(name) > 0; }

void LaunchKernel(const char* name, uint32_t blockDim, uint64_t tilingKey, const std::vector<uint8_t*>& args) {
  auto& registry = Registry();
  auto it = registry.find(name);
  if (it == registry.end()) {
    std::string known;
    for (const auto& entry : registry) known += (known.empty() ? "" : ", ") + entry.first;
    Fail("UNKNOWN_KERNEL", "LaunchKernel",
         StringPrintf("kernel %s is not registered (registered: %s)", name, known.empty() ? "none" : known.c_str()));
  }
  const RegisteredKernel kernel = it->second;
  if (static_cast<int>(args.size()) != kernel.num_args) {
    Fail("KERNEL_ARGS", "LaunchKernel",
         StringPrintf("kernel %s takes %d GM_ADDR arguments, %zu given", name, kernel.num_args, args.size()));
  }
  detail::RunLaunch(name, blockDim, tilingKey, [&]() { kernel.thunk(args.data()); });
}

}  // namespace opgen_twin
