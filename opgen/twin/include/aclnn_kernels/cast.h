// l0op::Cast: dtype conversion of a contiguous tensor (round-to-nearest-even to float types,
// truncation toward zero to integers, != 0 to bool, real -> complex with zero imaginary part).
#ifndef OPGEN_TWIN_ACLNN_KERNELS_CAST_H_
#define OPGEN_TWIN_ACLNN_KERNELS_CAST_H_

#include "opdev/op_executor.h"

namespace l0op {
// self itself if it already has dstDtype, else a new tensor of dstDtype.
const aclTensor* Cast(const aclTensor* self, op::DataType dstDtype, aclOpExecutor* executor);
const aclTensor* CastOnlyForConvertToTensor(const aclTensor* self, op::DataType dstDtype, aclOpExecutor* executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_ACLNN_KERNELS_CAST_H_
