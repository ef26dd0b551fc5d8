// Kernel registry and launcher: how the ACL/aclnn runtime runs a kernel compiled into the program.
//
// `opgen cc` writes a registration shim that calls RegisterKernel for every
// `extern "C" __global__ __aicore__ void NAME(GM_ADDR ...)` found in an operator's op_kernel sources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace opgen_twin {

using KernelThunk = void (*)(uint8_t* const* args);  // calls the kernel with args[0..n)

// name = the extern "C" kernel name. Registering a name twice fails (KERNEL_REGISTRY).
void RegisterKernel(const char* name, KernelThunk thunk, int numArgs);
bool HasKernel(const char* name);

// Runs a registered kernel on blockDim cores with the tiling key set (ICPU semantics, checks, trace).
// Fails with UNKNOWN_KERNEL for an unregistered name and KERNEL_ARGS for a wrong argument count.
void LaunchKernel(const char* name, uint32_t blockDim, uint64_t tilingKey, const std::vector<uint8_t*>& args);

// Registers GM memory allocated outside GmAlloc (e.g. aclrtMalloc) so checks know its extent.
void RegisterGmRegion(void* base, size_t bytes);
void UnregisterGmRegion(void* base);

// GM memory the twin allocates itself (device memory of the ACL runtime): `bytes` filled with `fill`,
// registered like RegisterGmRegion, the start aligned to `alignment` (a power of two) and the end, rounded
// up to it, abutting an inaccessible guard page, so that a kernel's raw-pointer access past the buffer
// stops with GM_OUT_OF_BOUNDS. nullptr if out of memory.
void* AllocateGuardedGm(size_t bytes, size_t alignment, unsigned char fill);
// Frees memory from AllocateGuardedGm; false if `base` did not come from it (or was freed already).
bool FreeGuardedGm(void* base);

// The twin has one device, which runs one thing at a time: a launch, and an executor's whole phase two
// (tiling, then its launches), hold this lock, so host threads calling aclnn APIs concurrently queue up
// the way launches on a real device queue on its streams. Recursive: an executor's launches take it again.
std::recursive_mutex& DeviceMutex();

}  // namespace opgen_twin
