// ge::TypeUtils string conversions used in op_host log messages.
#ifndef OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H_
#define OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H_

#include <string>

#include "graph/types.h"

namespace ge {
class TypeUtils {
 public:
  static std::string DataTypeToSerialString(DataType dataType);  // e.g. "DT_FLOAT"
  static std::string FormatToSerialString(Format format);        // e.g. "ND"
};
}  // namespace ge

#endif  // OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H_
