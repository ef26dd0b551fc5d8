// op_host logging and check macros (ops-nn "log/log.h"): OP_LOGx(nodeName|context, fmt, ...),
// OP_CHECK_IF, OP_CHECK_NULL_WITH_CONTEXT.
#ifndef OPGEN_TWIN_LOG_LOG_H_
#define OPGEN_TWIN_LOG_LOG_H_

#include <string>

#include "exe_graph/runtime/shape.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "log/twin_log.h"

#include "log/shared_log_macros.h"

#define OP_CHECK_IF(condition, log, return_expr) \
  do {                                           \
    if (unlikely(condition)) {                   \
      log;                                       \
      return_expr;                               \
    }                                            \
  } while (0)

#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                                                      \
  do {                                                                                                \
    if (unlikely((ptr) == nullptr)) {                                                                 \
      const char* opgenTwinNodeName = ((context) == nullptr || (context)->GetNodeName() == nullptr) ? "nil"      \
                                                                                         : (context)->GetNodeName(); \
      OP_LOGE(opgenTwinNodeName, "%s is nullptr!", #ptr);                                                       \
      return ge::GRAPH_FAILED;                                                                        \
    }                                                                                                 \
  } while (0)

#define OP_LOGE_FOR_INVALID_DTYPE(nodeName, paramName, actualDtype, expectedDtypes)                        \
  OP_LOGE(nodeName, "Parameter %s has invalid dtype %s, expected %s.", std::string(paramName).c_str(),    \
          std::string(actualDtype).c_str(), std::string(expectedDtypes).c_str())
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(nodeName, paramNames, actualDtypes, reason)                 \
  OP_LOGE(nodeName, "Parameters %s have invalid dtypes %s: %s.", std::string(paramNames).c_str(),         \
          std::string(actualDtypes).c_str(), std::string(reason).c_str())
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(nodeName, paramName, actualShape, reason)                    \
  OP_LOGE(nodeName, "Parameter %s has invalid shape %s: %s.", std::string(paramName).c_str(),             \
          std::string(actualShape).c_str(), std::string(reason).c_str())

namespace Ops {
namespace Base {
std::string ToString(ge::DataType type);
std::string ToString(ge::Format format);
std::string ToString(const gert::Shape& shape);
}  // namespace Base
}  // namespace Ops

#endif  // OPGEN_TWIN_LOG_LOG_H_
