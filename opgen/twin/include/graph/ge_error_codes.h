// ge::graphStatus and its codes (values as in CANN's graph/ge_error_codes.h).
#ifndef OPGEN_TWIN_GRAPH_GE_ERROR_CODES_H_
#define OPGEN_TWIN_GRAPH_GE_ERROR_CODES_H_

#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0U;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFU;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649U;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304U;
}  // namespace ge

#endif  // OPGEN_TWIN_GRAPH_GE_ERROR_CODES_H_
