// Global memory: allocations known to the twin, bounds checks, transfers, per-core write tracking.
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "core_state.h"
#include "tikicpulib.h"

namespace opgen_twin {
namespace detail {
namespace {

// Addresses below this are treated as null pointers.
constexpr uintptr_t kNullPage = 4096;

std::mutex& RegionMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<uintptr_t, GmRegion>& Regions() {
  static std::map<uintptr_t, GmRegion> regions;
  return regions;
}

void RecordWrite(CoreState& core, uintptr_t begin, uintptr_t end, const char* api) {
  auto& writes = core.writes;
  auto it = writes.upper_bound(begin);
  if (it != writes.begin()) {
    auto previous = std::prev(it);
    if (previous->second.end >= begin) {
      begin = previous->first;
      if (previous->second.end > end) end = previous->second.end;
      api = previous->second.api;
      it = previous;
    }
  }
  while (it != writes.end() && it->first <= end) {
    if (it->second.end > end) end = it->second.end;
    it = writes.erase(it);
  }
  writes[begin] = WriteRun{end, api};
}

template <typename T>
void AccumulateAs(uint8_t* gm, const uint8_t* ub, uint64_t bytes) {
  for (uint64_t i = 0; i < bytes / sizeof(T); ++i) {
    const T sum = static_cast<T>(LoadElement<T>(gm, i) + LoadElement<T>(ub, i));
    StoreElement<T>(gm, i, sum);
  }
}

void Accumulate(const char* api, DType type, uint8_t* gm, const uint8_t* ub, uint64_t bytes) {
  switch (type) {
    case DType::kFloat: AccumulateAs<float>(gm, ub, bytes); return;
    case DType::kHalf: AccumulateAs<Half>(gm, ub, bytes); return;
    case DType::kBfloat16: AccumulateAs<Bfloat16>(gm, ub, bytes); return;
    case DType::kInt32: AccumulateAs<int32_t>(gm, ub, bytes); return;
    case DType::kInt16: AccumulateAs<int16_t>(gm, ub, bytes); return;
    case DType::kInt8: AccumulateAs<int8_t>(gm, ub, bytes); return;
    default:
      Fail("DTYPE_UNSUPPORTED", api,
           StringPrintf("dtype=%s: atomic accumulation (SetAtomicAdd) takes float, half, bfloat16_t, int32_t, int16_t or "
                  "int8_t",
                  DTypeName(type)));
  }
}

}  // namespace

bool FindGmRegion(uintptr_t address, GmRegion* region) {
  std::lock_guard<std::mutex> lock(RegionMutex());
  auto& regions = Regions();
  auto it = regions.upper_bound(address);
  if (it == regions.begin()) return false;
  --it;
  const bool inside = address < it->first + it->second.bytes || (it->second.bytes == 0 && address == it->first);
  if (!inside) return false;
  if (region != nullptr) *region = it->second;
  return true;
}

bool FindGuardedGmRegion(uintptr_t address, GmRegion* region) {
  std::unique_lock<std::mutex> lock(RegionMutex(), std::try_to_lock);
  if (!lock.owns_lock()) return false;
  auto& regions = Regions();
  auto it = regions.upper_bound(address);
  // The guard before the next buffer, or the guard after the one at or below the address.
  if (it != regions.end() && it->second.mapping.InGuard(address)) {
    *region = it->second;
    return true;
  }
  if (it != regions.begin() && std::prev(it)->second.mapping.InGuard(address)) {
    *region = std::prev(it)->second;
    return true;
  }
  return false;
}

std::string DescribeGmRange(uintptr_t begin, uintptr_t end) {
  GmRegion region;
  if (FindGmRegion(begin, &region)) {
    return StringPrintf("bytes [%llu, %llu) of the %s buffer at %p (%zu bytes)",
                  static_cast<unsigned long long>(begin - region.base),
                  static_cast<unsigned long long>(end - region.base),
                  region.from_gm_alloc ? "GmAlloc" : "registered", reinterpret_cast<void*>(region.base),
                  region.bytes);
  }
  return StringPrintf("GM [%p, %p)", reinterpret_cast<void*>(begin), reinterpret_cast<void*>(end));
}

GmExtent MakeGmExtent(const void* base, uint64_t bytes, bool sized) {
  GmExtent extent;
  extent.set = true;
  const uintptr_t address = reinterpret_cast<uintptr_t>(base);
  if (sized) {
    extent.begin = address;
    extent.end = address + bytes;
    extent.bounded = true;
    extent.from_size = true;
    return extent;
  }
  GmRegion region;
  if (FindGmRegion(address, &region)) {
    extent.begin = region.base;
    extent.end = region.base + region.bytes;
    extent.bounded = true;
  }
  return extent;
}

void CheckGmAccess(const char* api, const GmExtent& extent, const void* address, uint64_t bytes, bool write) {
  const char* verb = write ? "writes" : "reads";
  if (!extent.set) {
    Fail("GM_OUT_OF_BOUNDS", api, "the GlobalTensor is used before SetGlobalBuffer");
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(address);
  const uintptr_t end = begin + bytes;
  if (begin < kNullPage) {
    Fail("GM_OUT_OF_BOUNDS", api, StringPrintf("%s %llu bytes at GM address %p (a null pointer)", verb,
                                         static_cast<unsigned long long>(bytes), address));
  }
  if (extent.bounded && (begin < extent.begin || end > extent.end)) {
    const long long first = static_cast<long long>(begin - extent.begin);
    Fail("GM_OUT_OF_BOUNDS", api,
         StringPrintf("%s bytes [%lld, %lld) of a GlobalTensor whose %s covers %llu bytes (%s)", verb, first,
                first + static_cast<long long>(bytes), extent.from_size ? "SetGlobalBuffer size" : "allocation",
                static_cast<unsigned long long>(extent.end - extent.begin),
                begin < extent.begin ? "before its start" : "past its end"));
  }
  // The buffer the GlobalTensor was set on bounds every access through it, also one that starts past
  // its end (a tensor describing more storage than its aclrtMalloc block: aclCreateTensor takes that).
  GmRegion region;
  if ((FindGmRegion(extent.begin, &region) || FindGmRegion(begin, &region)) &&
      (begin < region.base || end > region.base + region.bytes)) {
    Fail("GM_OUT_OF_BOUNDS", api,
         StringPrintf("%s bytes [%lld, %lld) of the %s buffer at %p, which has only %zu bytes", verb,
                static_cast<long long>(begin - region.base), static_cast<long long>(end - region.base),
                region.from_gm_alloc ? "GmAlloc" : "registered", reinterpret_cast<void*>(region.base), region.bytes));
  }
  if (write && bytes > 0) {
    CoreState* core = ActiveCore();
    if (core != nullptr && core->atomic < 0) RecordWrite(*core, begin, end, api);
  }
}

void CopyGmToUb(const char* api, const GmExtent& extent, const void* gm, uint8_t* ub, uint64_t bytes) {
  CheckGmAccess(api, extent, gm, bytes, false);
  std::memcpy(ub, gm, bytes);
  CountCopy(CopyPath::kGmToUb, bytes);
}

void CopyUbToGm(const char* api, const GmExtent& extent, void* gm, const uint8_t* ub, uint64_t bytes, DType type) {
  CheckGmAccess(api, extent, gm, bytes, true);
  if (AtomicMode() >= 0) {
    Accumulate(api, type, static_cast<uint8_t*>(gm), ub, bytes);
  } else {
    std::memcpy(gm, ub, bytes);
  }
  CountCopy(CopyPath::kUbToGm, bytes);
}

void LoadTiling(void* destination, uint64_t bytes, const void* tiling, const char* type_name) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(tiling);
  if (address < kNullPage) {
    Fail("GM_OUT_OF_BOUNDS", "GET_TILING_DATA", StringPrintf("tiling=%s: the tiling pointer is null", type_name));
  }
  GmRegion region;
  if (FindGmRegion(address, &region) && address + bytes > region.base + region.bytes) {
    Fail("GM_OUT_OF_BOUNDS", "GET_TILING_DATA",
         StringPrintf("tiling=%s needs %llu bytes but its GM buffer has %llu bytes from the tiling pointer", type_name,
                static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(region.base + region.bytes - address)));
  }
  if (destination != nullptr) std::memcpy(destination, tiling, bytes);
}

void* AllocateGuardedGmRegion(size_t bytes, size_t alignment, unsigned char fill, bool from_gm_alloc) {
  const GuardedMapping mapping = MapGuarded(bytes, alignment);
  if (mapping.data == nullptr) return nullptr;
  std::memset(mapping.data, fill, mapping.rounded);
  std::lock_guard<std::mutex> lock(RegionMutex());
  GmRegion region;
  region.base = reinterpret_cast<uintptr_t>(mapping.data);
  region.bytes = bytes;
  region.from_gm_alloc = from_gm_alloc;
  region.mapping = mapping;
  Regions()[region.base] = region;
  return mapping.data;
}

bool FreeGuardedGmRegion(void* base, bool from_gm_alloc) {
  GuardedMapping mapping;
  {
    std::lock_guard<std::mutex> lock(RegionMutex());
    auto& regions = Regions();
    auto it = regions.find(reinterpret_cast<uintptr_t>(base));
    if (it == regions.end() || it->second.from_gm_alloc != from_gm_alloc || it->second.mapping.data == nullptr) {
      return false;
    }
    mapping = it->second.mapping;
    regions.erase(it);
  }
  UnmapGuarded(mapping);
  return true;
}

}  // namespace detail

void* AllocateGuardedGm(size_t bytes, size_t alignment, unsigned char fill) {
  return detail::AllocateGuardedGmRegion(bytes, alignment, fill, false);
}

bool FreeGuardedGm(void* base) { return detail::FreeGuardedGmRegion(base, false); }

void RegisterGmRegion(void* base, size_t bytes) {
  std::lock_guard<std::mutex> lock(detail::RegionMutex());
  detail::GmRegion region;
  region.base = reinterpret_cast<uintptr_t>(base);
  region.bytes = bytes;
  detail::Regions()[region.base] = region;
}

void UnregisterGmRegion(void* base) {
  std::lock_guard<std::mutex> lock(detail::RegionMutex());
  detail::Regions().erase(reinterpret_cast<uintptr_t>(base));
}

}  // namespace opgen_twin

namespace AscendC {

void* GmAlloc(size_t size) {
  // 64-byte aligned, the buffer's (rounded) end abutting a guard page.
  constexpr size_t kAlignment = 64;
  void* memory = opgen_twin::detail::AllocateGuardedGmRegion(size, kAlignment, 0xff, true);
  if (memory == nullptr) {
    opgen_twin::Fail("GM_ALLOC", "GmAlloc", opgen_twin::StringPrintf("could not allocate %zu bytes", size));
  }
  return memory;
}

void GmFree(void* ptr) {
  if (ptr == nullptr) return;
  if (opgen_twin::detail::FreeGuardedGmRegion(ptr, true)) return;
  opgen_twin::Fail("GM_FREE_INVALID", "GmFree", opgen_twin::StringPrintf("%p was not returned by GmAlloc", ptr));
}

void SetKernelMode(KernelMode) {}

}  // namespace AscendC
