// Twin device memory and runtime state shared by the ACL API and the aclnn executor.
#ifndef OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_
#define OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "acl/acl_base.h"

class aclTensor;

namespace opgen_twin {
namespace acl {

// A device buffer: host memory registered as a GM region of exactly `bytes`, contents
// deliberately not zeroed (filled with a marker byte) as device memory is uninitialised.
void* AllocateDeviceBuffer(size_t bytes);
// False if ptr is not the start of a live device buffer.
bool FreeDeviceBuffer(void* ptr);
// True if [ptr, ptr + bytes) lies inside one live device buffer.
bool IsDeviceRange(const void* ptr, size_t bytes);
// True if ptr points into any live device buffer.
bool IsDevicePointer(const void* ptr);
// Bytes [first, first + bytes) past `storage`, the start of a tensor's storage: "" when storage is no
// device pointer (a host tensor) or the range lies inside its device buffer, else a description of the
// overrun ("bytes [a, b) of the device buffer at p, which has only n bytes"). Copies and launches check
// what they are about to touch with it, as aclCreateTensor takes any storage size (as CANN's does).
std::string DeviceOverrun(const void* storage, uint64_t first, uint64_t bytes);
// DeviceOverrun of every storage byte a tensor's view may touch (offset to offset + span); also not ""
// for a view with negative dims or an extent beyond int64_t, which no copy can walk.
std::string ViewOverrun(const aclTensor* view);

// aclInit done and a device set (what kernel launches need).
bool RuntimeReady();
// nullptr (default stream) or a stream from aclrtCreateStream that is not destroyed.
bool IsLiveStream(aclrtStream stream);

}  // namespace acl
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_
