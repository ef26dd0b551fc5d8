// Twin device memory and runtime state shared by the ACL API and the aclnn executor.
#ifndef OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_
#define OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_

#include <cstddef>

#include "acl/acl_base.h"

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

// aclInit done and a device set (what kernel launches need).
bool RuntimeReady();
// nullptr (default stream) or a stream from aclrtCreateStream that is not destroyed.
bool IsLiveStream(aclrtStream stream);

}  // namespace acl
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_SRC_ACL_DEVICE_MEMORY_H_
