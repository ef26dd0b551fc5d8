// View predicates on aclTensor.
#ifndef OPGEN_TWIN_OPDEV_TENSOR_VIEW_UTILS_H_
#define OPGEN_TWIN_OPDEV_TENSOR_VIEW_UTILS_H_

#include <initializer_list>

#include "opdev/common_types.h"

namespace op {
// Contiguous: null, empty, a private format, or strides equal to the row-major strides of the
// view shape (size-1 dims ignored).
bool IsContiguous(const aclTensor* tensor);
bool CanPickViewAsContiguous(std::initializer_list<const aclTensor*> tensorList);
bool CanPickViewAsContiguous(const aclTensor* tensor);
// Non-null, known dtype, strides rank equal to the view rank, no negative dims or strides.
bool Validate(const aclTensor* tensor);
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_TENSOR_VIEW_UTILS_H_
