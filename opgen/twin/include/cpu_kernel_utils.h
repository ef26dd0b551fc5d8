// aicpu::CpuKernelUtils: sharding helper; the twin runs the shards in order on one thread.
#ifndef OPGEN_TWIN_CPU_KERNEL_UTILS_H_
#define OPGEN_TWIN_CPU_KERNEL_UTILS_H_

#include <cstdint>
#include <functional>

#include "cpu_context.h"
#include "status.h"

namespace aicpu {

class AICPU_VISIBILITY CpuKernelUtils {
 public:
  static uint32_t GetCPUNum(const CpuKernelContext& ctx) {
    (void)ctx;
    return 1;
  }
  // Calls shard(start, end) over [0, total) in pieces of perUnitSize (the whole range if <= 0).
  static uint32_t ParallelFor(const CpuKernelContext& ctx, int64_t total, int64_t perUnitSize,
                              const std::function<void(int64_t, int64_t)>& shard) {
    (void)ctx;
    if (total <= 0) return KERNEL_STATUS_OK;
    int64_t step = perUnitSize > 0 ? perUnitSize : total;
    for (int64_t start = 0; start < total; start += step) shard(start, start + step < total ? start + step : total);
    return KERNEL_STATUS_OK;
  }
};

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_KERNEL_UTILS_H_
