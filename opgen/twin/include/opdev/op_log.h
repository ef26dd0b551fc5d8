// aclnn logging and check macros: OP_LOGE(errno, fmt, ...), OP_LOGW/OP_LOGD/OP_LOGI(fmt, ...),
// CHECK_RET, CHECK_COND, OP_CHECK, OP_CHECK_NOTNULL.
#ifndef OPGEN_TWIN_OPDEV_OP_LOG_H_
#define OPGEN_TWIN_OPDEV_OP_LOG_H_

#include <cstdint>
#include <string>

#include "log/twin_log.h"
#include "opdev/op_errno.h"

#ifndef OPGEN_TWIN_SHARED_LOG_MACROS_
#define OPGEN_TWIN_SHARED_LOG_MACROS_
// Shared with log/log.h: both accept either calling convention.
#define OP_LOGE(first, ...) ::opgen_twin::log::LogError(__FILE__, __LINE__, __func__, first, __VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(first, ...) OP_LOGE(first, __VA_ARGS__)
#define OP_LOGW(...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kWarning, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define OP_LOGI(...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kInfo, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define OP_LOGD(...) \
  ::opgen_twin::log::LogAmbiguous(::opgen_twin::log::kDebug, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define OP_EVENT(...) OP_LOGI(__VA_ARGS__)
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#endif  // OPGEN_TWIN_SHARED_LOG_MACROS_

#define OP_CHECK_NOTNULL(val)                                                        \
  do {                                                                               \
    if ((val) == nullptr) {                                                          \
      OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "Parameter[%s] must not be null.", #val);    \
      return ACLNN_ERR_INNER_NULLPTR;                                                \
    }                                                                                \
  } while (false)

#define RET_IF_NOT_SUCCESS(x)
#define CHECK_RET(condition, ret_value)                                      \
  do {                                                                       \
    if (!(condition)) {                                                      \
      OP_LOGE_WITHOUT_REPORT(ACLNN_ERR_INNER, "check %s failed.", #condition); \
      return ret_value;                                                      \
    }                                                                        \
  } while (false)

#define CHECK_RET_CODE(func, fmt, ...)       \
  do {                                       \
    aclnnStatus opgenTwinStatus = func;                 \
    if (opgenTwinStatus != ACLNN_SUCCESS) {             \
      OP_LOGE(opgenTwinStatus, fmt, ##__VA_ARGS__);     \
      return opgenTwinStatus;                           \
    }                                        \
  } while (false)

#define OP_CHECK(cond, log_func, return_expr) \
  do {                                        \
    if (!(cond)) {                            \
      log_func;                               \
      return_expr;                            \
    }                                         \
  } while (false)

#define OP_CHECK_NO_RETURN(cond, log_func) \
  do {                                     \
    if (!(cond)) {                         \
      log_func;                            \
    }                                      \
  } while (false)

#define CHECK_COND(cond, ret, fmt, ...)   \
  do {                                    \
    if (!(cond)) {                        \
      OP_LOGE(ret, fmt, ##__VA_ARGS__);   \
      return ret;                         \
    }                                     \
  } while (false)

#endif  // OPGEN_TWIN_OPDEV_OP_LOG_H_
