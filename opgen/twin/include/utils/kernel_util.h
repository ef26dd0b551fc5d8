// AICPU kernel helpers: logging (KERNEL_LOG_*) and check macros, NormalCheck.
#ifndef OPGEN_TWIN_UTILS_KERNEL_UTIL_H_
#define OPGEN_TWIN_UTILS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>

#include "cpu_context.h"
#include "log/twin_log.h"
#include "status.h"

#define KERNEL_LOG_DEBUG(fmt, ...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kDebug, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_INFO(fmt, ...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kInfo, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_WARN(fmt, ...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kWarning, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)
#define KERNEL_LOG_ERROR(fmt, ...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kError, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__)

#define KERNEL_CHECK_NULLPTR(value, errorCode, logText, ...) \
  if ((value) == nullptr) {                                  \
    KERNEL_LOG_ERROR(logText, ##__VA_ARGS__);                \
    return errorCode;                                        \
  }

#define KERNEL_CHECK_FALSE(condition, errorCode, logText, ...) \
  if (!(condition)) {                                          \
    KERNEL_LOG_ERROR(logText, ##__VA_ARGS__);                  \
    return errorCode;                                          \
  }

#define KERNEL_HANDLE_ERROR(expression, logText, ...) \
  {                                                   \
    uint32_t opgenTwinStatus = (expression);                    \
    if (opgenTwinStatus != ::aicpu::KERNEL_STATUS_OK) {         \
      KERNEL_LOG_ERROR(logText, ##__VA_ARGS__);       \
      return opgenTwinStatus;                                   \
    }                                                 \
  }

namespace aicpu {
// Checks that ctx has inputsNum inputs and outputsNum outputs, all with data.
inline uint32_t NormalCheck(CpuKernelContext& ctx, const uint32_t inputsNum, const uint32_t outputsNum) {
  if (ctx.GetInputsSize() < inputsNum || ctx.GetOutputsSize() < outputsNum) {
    KERNEL_LOG_ERROR("[%s] expects %u inputs and %u outputs, got %u and %u.", ctx.GetOpType().c_str(), inputsNum,
                     outputsNum, ctx.GetInputsSize(), ctx.GetOutputsSize());
    return KERNEL_STATUS_PARAM_INVALID;
  }
  for (uint32_t i = 0; i < inputsNum; ++i) {
    if (ctx.Input(i) == nullptr || (ctx.Input(i)->GetData() == nullptr && ctx.Input(i)->NumElements() > 0)) {
      KERNEL_LOG_ERROR("[%s] input %u has no data.", ctx.GetOpType().c_str(), i);
      return KERNEL_STATUS_PARAM_INVALID;
    }
  }
  for (uint32_t i = 0; i < outputsNum; ++i) {
    if (ctx.Output(i) == nullptr || (ctx.Output(i)->GetData() == nullptr && ctx.Output(i)->NumElements() > 0)) {
      KERNEL_LOG_ERROR("[%s] output %u has no data.", ctx.GetOpType().c_str(), i);
      return KERNEL_STATUS_PARAM_INVALID;
    }
  }
  return KERNEL_STATUS_OK;
}
}  // namespace aicpu

#endif  // OPGEN_TWIN_UTILS_KERNEL_UTIL_H_
