// ops-nn common op_api constants.
#ifndef OPGEN_TWIN_OP_API_OP_API_DEF_NN_H_
#define OPGEN_TWIN_OP_API_OP_API_DEF_NN_H_

#include <cstddef>
#include <cstdint>

namespace op {
constexpr size_t BN_MIN_SUPPORT_DIMS_NUMS = 2;
constexpr size_t MAX_SUPPORT_DIMS_NUMS = 8;
}  // namespace op

#endif  // OPGEN_TWIN_OP_API_OP_API_DEF_NN_H_
