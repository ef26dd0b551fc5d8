// aclnn logging and check macros: OP_LOGE(errno, fmt, ...), OP_LOGW/OP_LOGD/OP_LOGI(fmt, ...),
// CHECK_RET, CHECK_COND, OP_CHECK, OP_CHECK_NOTNULL.
#ifndef OPGEN_TWIN_OPDEV_OP_LOG_H_
#define OPGEN_TWIN_OPDEV_OP_LOG_H_

#include <cstdint>
#include <string>

#include "log/twin_log.h"
#include "opdev/op_errno.h"

#include "log/shared_log_macros.h"

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
