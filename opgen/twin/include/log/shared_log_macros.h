// OP_LOGx macros shared by op_host code (log/log.h: node name or context first) and aclnn code
// (opdev/op_log.h: error code first); one definition accepts both calling conventions.
#ifndef OPGEN_TWIN_SHARED_LOG_MACROS_
#define OPGEN_TWIN_SHARED_LOG_MACROS_

#include "log/twin_log.h"

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
