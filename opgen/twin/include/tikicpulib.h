// CANN's CPU debug entry points for the opgen CPU twin: GM buffers and kernel launches on the host.
//
// Cores run one after another in this process, in index order, each with a fresh UB filled with NaN bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel_operator.h"
#include "opgen_twin/kernel_registry.h"

namespace AscendC {

// GM memory known to the twin's checks; filled with 0xFF bytes (NaN for floating types).
void* GmAlloc(size_t size);
void GmFree(void* ptr);
// Only AIV_MODE (vector cores) is modelled; other modes are accepted and run the same way.
void SetKernelMode(KernelMode mode);

}  // namespace AscendC

// Tiling key for the following ICPU_RUN_KF launches.
#define ICPU_SET_TILING_KEY(key) ::opgen_twin::detail::SetPendingTilingKey(static_cast<uint64_t>(key))

// Runs `func(args...)` on `blockdim` cores.
#define ICPU_RUN_KF(func, blockdim, ...)                                                      \
  ::opgen_twin::detail::RunLaunch(#func, static_cast<uint32_t>(blockdim),                     \
                                  ::opgen_twin::detail::PendingTilingKey(), [&]() { func(__VA_ARGS__); })
