// l0op::Reshape: a view of x's (contiguous) storage with another shape of the same size.
#ifndef OPGEN_TWIN_ACLNN_KERNELS_RESHAPE_H_
#define OPGEN_TWIN_ACLNN_KERNELS_RESHAPE_H_

#include "opdev/op_executor.h"

namespace l0op {
const aclTensor* Reshape(const aclTensor* x, const op::Shape& shape, aclOpExecutor* executor);
const aclTensor* Reshape(const aclTensor* x, const aclIntArray* shape, aclOpExecutor* executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_ACLNN_KERNELS_RESHAPE_H_
