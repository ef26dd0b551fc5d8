// l0op::Contiguous / l0op::ViewCopy: the copies around every aclnn kernel launch.
// In the twin they are host-side launches recorded in phase 1 and run in phase 2.
#ifndef OPGEN_TWIN_ACLNN_KERNELS_CONTIGUOUS_H_
#define OPGEN_TWIN_ACLNN_KERNELS_CONTIGUOUS_H_

#include "opdev/op_executor.h"

namespace l0op {
// x itself if already contiguous, else a new contiguous tensor gathered from x's view.
const aclTensor* Contiguous(const aclTensor* x, aclOpExecutor* executor);
// Copies contiguous x into y's (possibly strided) view; returns y. Shapes must match and
// dtypes must be equal (cast first).
const aclTensor* ViewCopy(const aclTensor* x, const aclTensor* y, aclOpExecutor* executor);
// A contiguous view of x's storage when the view already covers a contiguous block, else nullptr.
const aclTensor* PickViewAsContiguous(const aclTensor* x, aclOpExecutor* executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_ACLNN_KERNELS_CONTIGUOUS_H_
