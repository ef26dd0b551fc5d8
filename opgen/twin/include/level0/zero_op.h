// l0op::ZerosLike of the aclnn layer (ops-math level0/zero_op.h): a tensor of zeros shaped like another.
#ifndef OPGEN_TWIN_LEVEL0_ZERO_OP_H_
#define OPGEN_TWIN_LEVEL0_ZERO_OP_H_

#include "opdev/op_executor.h"

namespace l0op {
// A new tensor of self's storage shape, dtype and format holding zeros (self's values are not read); an empty one
// needs no launch. nullptr when it cannot be allocated.
const aclTensor* ZerosLike(const aclTensor* self, aclOpExecutor* executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_LEVEL0_ZERO_OP_H_
