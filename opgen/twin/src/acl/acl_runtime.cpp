// AscendCL runtime subset on the host. Misuse returns the ACL error code CANN returns
// (before aclInit: ACL_ERROR_UNINITIALIZE; before aclrtSetDevice: ACL_ERROR_RT_CONTEXT_NULL;
// bad sizes/pointers: ACL_ERROR_INVALID_PARAM / ACL_ERROR_RT_PARAM_INVALID) and never crashes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "acl/acl.h"
#include "device_memory.h"
#include "log/twin_log.h"
#include "opdev/common_types.h"
#include "opgen_twin/kernel_registry.h"

namespace opgen_twin {
namespace acl {
namespace {

constexpr int32_t kDeviceCount = 8;
// aclrtMalloc's documented guarantee: the start of device memory is 64-byte aligned.
constexpr size_t kDeviceAlignment = 64;
constexpr unsigned char kUninitialisedByte = 0xA5;

struct RuntimeState {
  std::mutex mutex;
  bool initialized = false;
  bool finalized = false;
  std::map<int32_t, int> deviceRefs;  // device id -> aclrtSetDevice count
  int32_t currentDevice = -1;
  std::set<void*> streams;
  std::map<const char*, size_t, std::less<>> deviceBuffers;  // start -> requested bytes
  std::set<void*> hostBuffers;
};

RuntimeState& State() {
  static RuntimeState* state = new RuntimeState();  // never destroyed: usable from static destructors
  return *state;
}

aclError Report(aclError code, const char* function, const std::string& message) {
  if (log::Enabled(log::kError)) {
    log::Emit(log::kError, "acl_runtime.cpp", 0, function, "aclError[" + std::to_string(code) + "]", message);
  }
  return code;
}

// Checks common to calls that need aclInit and a set device; caller holds the lock.
aclError CheckDeviceContext(const RuntimeState& state, const char* function) {
  if (!state.initialized) return Report(ACL_ERROR_UNINITIALIZE, function, "aclInit has not been called.");
  if (state.currentDevice < 0) {
    return Report(ACL_ERROR_RT_CONTEXT_NULL, function, "no device is set; call aclrtSetDevice first.");
  }
  return ACL_SUCCESS;
}

// The buffer containing ptr, or end(); caller holds the lock.
std::map<const char*, size_t, std::less<>>::const_iterator FindBuffer(const RuntimeState& state, const void* ptr) {
  const char* p = static_cast<const char*>(ptr);
  auto it = state.deviceBuffers.upper_bound(p);
  if (it == state.deviceBuffers.begin()) return state.deviceBuffers.end();
  --it;
  size_t extent = it->second == 0 ? 1 : it->second;
  return p < it->first + extent ? it : state.deviceBuffers.end();
}

bool InRange(const RuntimeState& state, const void* ptr, size_t bytes) {
  auto it = FindBuffer(state, ptr);
  if (it == state.deviceBuffers.end()) return false;
  size_t end = 0;
  return !__builtin_add_overflow(static_cast<size_t>(static_cast<const char*>(ptr) - it->first), bytes, &end) &&
         end <= it->second;
}

}  // namespace

void* AllocateDeviceBuffer(size_t bytes) {
  // Registered as GM, with a guard page after it: kernels reading past it through raw pointers are caught.
  void* ptr = AllocateGuardedGm(bytes, kDeviceAlignment, kUninitialisedByte);
  if (ptr == nullptr) return nullptr;
  {
    std::lock_guard<std::mutex> lock(State().mutex);
    State().deviceBuffers[static_cast<const char*>(ptr)] = bytes;
  }
  return ptr;
}

bool FreeDeviceBuffer(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(State().mutex);
    auto it = State().deviceBuffers.find(static_cast<const char*>(ptr));
    if (it == State().deviceBuffers.end()) return false;
    State().deviceBuffers.erase(it);
  }
  FreeGuardedGm(ptr);
  return true;
}

bool IsDeviceRange(const void* ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return InRange(State(), ptr, bytes);
}

bool IsDevicePointer(const void* ptr) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return FindBuffer(State(), ptr) != State().deviceBuffers.end();
}

std::string DeviceOverrun(const void* storage, uint64_t first, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(State().mutex);
  auto it = FindBuffer(State(), storage);
  if (it == State().deviceBuffers.end()) return "";
  uint64_t begin = 0;
  uint64_t end = 0;
  const bool wraps = __builtin_add_overflow(static_cast<uint64_t>(static_cast<const char*>(storage) - it->first),
                                            first, &begin) ||
                     __builtin_add_overflow(begin, bytes, &end);
  if (!wraps && end <= it->second) return "";
  char base[32];
  std::snprintf(base, sizeof(base), "%p", static_cast<const void*>(it->first));
  const std::string range =
      wraps ? std::string("bytes past 2^64") : "bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
  return range + " of the device buffer at " + base + ", which has only " + std::to_string(it->second) + " bytes";
}

std::string ViewOverrun(const aclTensor* view) {
  if (view == nullptr || view->IsEmpty()) return "";
  const uint64_t size = op::TypeSize(view->GetDataType());
  const int64_t span = view->ViewSpanElements();
  uint64_t first = 0;
  uint64_t bytes = 0;
  if (span < 0 || __builtin_mul_overflow(static_cast<uint64_t>(view->GetViewOffset()), size, &first) ||
      __builtin_mul_overflow(static_cast<uint64_t>(span), size, &bytes)) {
    return std::string("the extent of ") + view->ToString().GetString() +
           " (negative dims, or more bytes than 2^63)";
  }
  return DeviceOverrun(view->GetStorageAddr(), first, bytes);
}

bool RuntimeReady() {
  std::lock_guard<std::mutex> lock(State().mutex);
  return State().initialized && State().currentDevice >= 0;
}

bool IsLiveStream(aclrtStream stream) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return stream == nullptr || State().streams.count(stream) > 0;
}

}  // namespace acl
}  // namespace opgen_twin

using opgen_twin::acl::CheckDeviceContext;
using opgen_twin::acl::Report;
using opgen_twin::acl::State;

extern "C" {

aclError aclInit(const char* configPath) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (State().initialized) return Report(ACL_ERROR_REPEAT_INITIALIZE, __func__, "aclInit called twice.");
  if (configPath != nullptr && configPath[0] != '\0') {
    std::FILE* file = std::fopen(configPath, "r");
    if (file == nullptr) return Report(ACL_ERROR_INVALID_FILE, __func__, std::string("cannot read ") + configPath);
    std::fclose(file);
  }
  State().initialized = true;
  State().finalized = false;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (!State().initialized) {
    return State().finalized ? Report(ACL_ERROR_REPEAT_FINALIZE, __func__, "aclFinalize called twice.")
                             : Report(ACL_ERROR_UNINITIALIZE, __func__, "aclInit has not been called.");
  }
  State().initialized = false;
  State().finalized = true;
  State().currentDevice = -1;
  State().deviceRefs.clear();
  return ACL_SUCCESS;
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
    return Report(ACL_ERROR_INVALID_PARAM, __func__, "null output pointer.");
  }
  *majorVersion = ACL_MAJOR_VERSION;
  *minorVersion = ACL_MINOR_VERSION;
  *patchVersion = ACL_PATCH_VERSION;
  return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg(void) {
  static thread_local std::string recent;
  std::vector<std::string>& errors = opgen_twin::log::RecentErrors();
  if (errors.empty()) return nullptr;
  recent.clear();
  for (const std::string& line : errors) {
    recent += (recent.empty() ? "" : "\n") + line;
  }
  errors.clear();
  return recent.c_str();
}

aclError aclrtSetDevice(int32_t deviceId) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (!State().initialized) return Report(ACL_ERROR_UNINITIALIZE, __func__, "aclInit has not been called.");
  if (deviceId < 0 || deviceId >= opgen_twin::acl::kDeviceCount) {
    return Report(ACL_ERROR_RT_INVALID_DEVICEID, __func__, "device id " + std::to_string(deviceId) + " out of range.");
  }
  State().deviceRefs[deviceId]++;
  State().currentDevice = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (!State().initialized) return Report(ACL_ERROR_UNINITIALIZE, __func__, "aclInit has not been called.");
  auto it = State().deviceRefs.find(deviceId);
  if (deviceId < 0 || deviceId >= opgen_twin::acl::kDeviceCount || it == State().deviceRefs.end()) {
    return Report(ACL_ERROR_RT_INVALID_DEVICEID, __func__, "device " + std::to_string(deviceId) + " is not set.");
  }
  if (--it->second == 0) State().deviceRefs.erase(it);
  if (State().deviceRefs.count(State().currentDevice) == 0) {
    State().currentDevice = State().deviceRefs.empty() ? -1 : State().deviceRefs.begin()->first;
  }
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t* deviceId) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (deviceId == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "deviceId is null.");
  aclError status = CheckDeviceContext(State(), __func__);
  if (status != ACL_SUCCESS) return status;
  *deviceId = State().currentDevice;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "count is null.");
  *count = opgen_twin::acl::kDeviceCount;
  return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  if (runMode == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "runMode is null.");
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  std::lock_guard<std::mutex> lock(State().mutex);
  return CheckDeviceContext(State(), __func__);
}

aclError aclrtCreateStream(aclrtStream* stream) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (stream == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "stream is null.");
  aclError status = CheckDeviceContext(State(), __func__);
  if (status != ACL_SUCCESS) return status;
  void* handle = std::malloc(1);  // a unique token; streams carry no state in the twin
  State().streams.insert(handle);
  *stream = handle;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (stream == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "stream is null.");
  if (State().streams.erase(stream) == 0) return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "unknown stream.");
  std::free(stream);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  std::lock_guard<std::mutex> lock(State().mutex);
  aclError status = CheckDeviceContext(State(), __func__);
  if (status != ACL_SUCCESS) return status;
  if (stream != nullptr && State().streams.count(stream) == 0) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "unknown stream.");
  }
  return ACL_SUCCESS;  // work runs synchronously at submission
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;
  {
    std::lock_guard<std::mutex> lock(State().mutex);
    if (devPtr == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "devPtr is null.");
    if (size == 0) return Report(ACL_ERROR_INVALID_PARAM, __func__, "size must be greater than 0.");
    aclError status = CheckDeviceContext(State(), __func__);
    if (status != ACL_SUCCESS) return status;
  }
  void* ptr = opgen_twin::acl::AllocateDeviceBuffer(size);
  if (ptr == nullptr) {
    return Report(ACL_ERROR_RT_MEMORY_ALLOCATION, __func__, "cannot allocate " + std::to_string(size) + " bytes.");
  }
  *devPtr = ptr;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr) {
  {
    std::lock_guard<std::mutex> lock(State().mutex);
    if (devPtr == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "devPtr is null.");
    aclError status = CheckDeviceContext(State(), __func__);
    if (status != ACL_SUCCESS) return status;
  }
  if (!opgen_twin::acl::FreeDeviceBuffer(devPtr)) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "pointer was not returned by aclrtMalloc (or freed twice).");
  }
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (hostPtr == nullptr || size == 0) return Report(ACL_ERROR_INVALID_PARAM, __func__, "bad pointer or size.");
  if (!State().initialized) return Report(ACL_ERROR_UNINITIALIZE, __func__, "aclInit has not been called.");
  void* ptr = std::malloc(size);
  if (ptr == nullptr) return Report(ACL_ERROR_BAD_ALLOC, __func__, "out of host memory.");
  State().hostBuffers.insert(ptr);
  *hostPtr = ptr;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  std::lock_guard<std::mutex> lock(State().mutex);
  if (hostPtr == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "hostPtr is null.");
  if (State().hostBuffers.erase(hostPtr) == 0) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "pointer was not returned by aclrtMallocHost.");
  }
  std::free(hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  std::lock_guard<std::mutex> lock(State().mutex);
  const auto& state = State();
  aclError status = CheckDeviceContext(state, __func__);
  if (status != ACL_SUCCESS) return status;
  if (dst == nullptr || src == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "dst or src is null.");
  if (count > destMax) {
    return Report(ACL_ERROR_INVALID_PARAM, __func__,
                  "count " + std::to_string(count) + " exceeds destMax " + std::to_string(destMax) + ".");
  }
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return Report(ACL_ERROR_INVALID_PARAM, __func__, "unknown memcpy kind " + std::to_string(kind) + ".");
  }
  const bool dstOnDevice = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool srcOnDevice = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  // Each side must be what the kind says, and a device side must hold count bytes.
  auto sideOk = [&](const void* ptr, bool onDevice, size_t bytes) {
    return onDevice ? opgen_twin::acl::InRange(state, ptr, bytes)
                    : opgen_twin::acl::FindBuffer(state, ptr) == state.deviceBuffers.end();
  };
  if (!sideOk(dst, dstOnDevice, count)) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__,
                  dstOnDevice ? "dst does not hold count bytes of device memory." : "dst is device memory.");
  }
  if (!sideOk(src, srcOnDevice, count)) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__,
                  srcOnDevice ? "src does not hold count bytes of device memory." : "src is device memory.");
  }
  if (count > 0) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  if (!opgen_twin::acl::IsLiveStream(stream)) return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "unknown stream.");
  return aclrtMemcpy(dst, destMax, src, count, kind);
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  std::lock_guard<std::mutex> lock(State().mutex);
  aclError status = CheckDeviceContext(State(), __func__);
  if (status != ACL_SUCCESS) return status;
  if (devPtr == nullptr) return Report(ACL_ERROR_INVALID_PARAM, __func__, "devPtr is null.");
  if (count > maxCount) return Report(ACL_ERROR_INVALID_PARAM, __func__, "count exceeds maxCount.");
  if (!opgen_twin::acl::InRange(State(), devPtr, count)) {
    return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "devPtr does not hold count bytes of device memory.");
  }
  if (count > 0) std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  if (!opgen_twin::acl::IsLiveStream(stream)) return Report(ACL_ERROR_RT_PARAM_INVALID, __func__, "unknown stream.");
  return aclrtMemset(devPtr, maxCount, value, count);
}

}  // extern "C"
