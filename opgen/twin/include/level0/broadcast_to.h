// l0op::BroadcastTo of the aclnn layer: expands a tensor to a shape by numpy broadcasting rules.
#ifndef OPGEN_TWIN_LEVEL0_BROADCAST_TO_H_
#define OPGEN_TWIN_LEVEL0_BROADCAST_TO_H_

#include "opdev/common_types.h"
#include "opdev/op_executor.h"

namespace l0op {
// A contiguous tensor of `shape` whose elements repeat x along the broadcast dims; nullptr if x does not
// broadcast to `shape`.
const aclTensor* BroadcastTo(const aclTensor* x, const aclIntArray* shape, aclOpExecutor* executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_LEVEL0_BROADCAST_TO_H_
