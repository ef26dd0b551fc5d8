// Parameter-check macros of the aclnn L2 layer. Each logs one [ERROR] line naming the argument
// and the offending value, then runs the caller's retExpr (usually `return false`).
#ifndef OPGEN_TWIN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H_
#define OPGEN_TWIN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H_

#include <cstdint>

#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"

static inline bool IsNullptr(const aclTensor* tensor, const char* name) {
  if (tensor != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected a tensor, got nullptr.", name);
  return true;
}
static inline bool IsNullptr(const aclTensorList* tensorList, const char* name) {
  if (tensorList != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected a tensor list, got nullptr.", name);
  return true;
}
static inline bool IsNullptr(const aclScalar* scalar, const char* name) {
  if (scalar != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected a scalar, got nullptr.", name);
  return true;
}
static inline bool IsNullptr(const aclIntArray* array, const char* name) {
  if (array != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected an int array, got nullptr.", name);
  return true;
}
static inline bool IsNullptr(const aclBoolArray* array, const char* name) {
  if (array != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected a bool array, got nullptr.", name);
  return true;
}
static inline bool IsNullptr(const aclFloatArray* array, const char* name) {
  if (array != nullptr) return false;
  OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Argument %s: expected a float array, got nullptr.", name);
  return true;
}

static inline bool CheckDims(const aclTensor* tensor) {
  const op::Shape& shape = tensor->GetViewShape();
  for (size_t i = 0; i < shape.GetDimNum(); ++i) {
    if (shape.GetDim(i) > INT32_MAX) {
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dimension %zu of the tensor exceeds %d.", i, INT32_MAX);
      return false;
    }
  }
  return true;
}

#define OP_CHECK_NULL(param, retExpr) \
  if (IsNullptr(param, #param)) {     \
    retExpr;                          \
  }

#define OP_CHECK_DTYPE_NOT_SUPPORT(tensor, supportList, retExpr)                                               \
  if (!::op::CheckType((tensor)->GetDataType(), supportList)) {                                                 \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor %s has dtype %s, which is not in the supported list %s.", #tensor, \
            ::op::ToString((tensor)->GetDataType()).GetString(), ::op::ToString(supportList).GetString());     \
    retExpr;                                                                                                    \
  }

#define OP_CHECK_DTYPE_NOT_MATCH(tensor, expectedDtype, retExpr)                                          \
  if ((tensor)->GetDataType() != (expectedDtype)) {                                                        \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor %s should have dtype %s, got %s.", #tensor,                  \
            ::op::ToString(expectedDtype).GetString(), ::op::ToString((tensor)->GetDataType()).GetString()); \
    retExpr;                                                                                               \
  }

#define OP_CHECK_DTYPE_NOT_SAME(tensor1, tensor2, retExpr)                                                      \
  if ((tensor1)->GetDataType() != (tensor2)->GetDataType()) {                                                    \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensors %s (%s) and %s (%s) should have the same dtype.", #tensor1,      \
            ::op::ToString((tensor1)->GetDataType()).GetString(), #tensor2,                                     \
            ::op::ToString((tensor2)->GetDataType()).GetString());                                              \
    retExpr;                                                                                                     \
  }

#define OP_CHECK_RESULT_DTYPE_CAST_FAILED(dtype, desiredDtype, retExpr)                                       \
  ;                                                                                                            \
  if (!::op::CanCast(dtype, desiredDtype)) {                                                                   \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Result dtype %s cannot be cast to the output dtype %s.",                 \
            ::op::ToString(dtype).GetString(), ::op::ToString(desiredDtype).GetString());                      \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_BROADCAST(tensor1, tensor2, retExpr)                                                         \
  if (!::op::CheckBroadcastShape((tensor1)->GetViewShape(), (tensor2)->GetViewShape())) {                     \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shapes of %s %s and %s %s do not broadcast.", #tensor1,                  \
            ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                   \
            ::op::ToString((tensor2)->GetViewShape()).GetString());                                            \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_BROADCAST_WITH_SHAPE(tensor, shape, retExpr)                                                 \
  if (!::op::CheckBroadcastShape((tensor)->GetViewShape(), shape)) {                                          \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of %s %s does not broadcast with %s.", #tensor,                    \
            ::op::ToString((tensor)->GetViewShape()).GetString(), ::op::ToString(shape).GetString());          \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_BROADCAST_AND_INFER_SHAPE(tensor1, tensor2, retShape, retExpr)                                \
  if (!::op::BroadcastInferShape((tensor1)->GetViewShape(), (tensor2)->GetViewShape(), retShape)) {            \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shapes of %s %s and %s %s do not broadcast.", #tensor1,                  \
            ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                   \
            ::op::ToString((tensor2)->GetViewShape()).GetString());                                            \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_SHAPE_NOT_EQUAL(tensor1, tensor2, retExpr)                                                   \
  if ((tensor1)->GetViewShape() != (tensor2)->GetViewShape()) {                                               \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of %s %s should equal shape of %s %s.", #tensor1,                  \
            ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                   \
            ::op::ToString((tensor2)->GetViewShape()).GetString());                                            \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(tensor, shape, retExpr)                                   \
  if ((tensor)->GetViewShape() != (shape)) {                                                                  \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of %s should be %s, got %s.", #tensor,                             \
            ::op::ToString(shape).GetString(), ::op::ToString((tensor)->GetViewShape()).GetString());          \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_WRONG_DIMENSION(tensor, expectedDimNum, retExpr)                                             \
  if ((tensor)->GetViewShape().GetDimNum() != static_cast<size_t>(expectedDimNum)) {                          \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor %s should have %zu dimensions, got shape %s.", #tensor,           \
            static_cast<size_t>(expectedDimNum), ::op::ToString((tensor)->GetViewShape()).GetString());        \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_MAX_DIM(tensor, maxDim, retExpr)                                                             \
  if ((tensor)->GetViewShape().GetDimNum() > static_cast<size_t>(maxDim)) {                                   \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor %s has %zu dimensions, more than the supported %zu.", #tensor,    \
            (tensor)->GetViewShape().GetDimNum(), static_cast<size_t>(maxDim));                                \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_MIN_DIM(tensor, minDim, retExpr)                                                             \
  if ((tensor)->GetViewShape().GetDimNum() < static_cast<size_t>(minDim)) {                                   \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor %s has %zu dimensions, fewer than the required %zu.", #tensor,    \
            (tensor)->GetViewShape().GetDimNum(), static_cast<size_t>(minDim));                                \
    retExpr;                                                                                                   \
  }

#define OP_CHECK_COMM_INPUT(workspaceSize, executor)                                     \
  if ((workspaceSize) == nullptr || (executor) == nullptr) {                             \
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be nullptr."); \
    return ACLNN_ERR_PARAM_NULLPTR;                                                      \
  }

#define OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE(cond, retExpr, errMsg, ...)      \
  if (cond) {                                                                 \
    OP_LOGE(ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID, errMsg, ##__VA_ARGS__); \
    retExpr;                                                                  \
  }

#define OP_CHECK_INFERSHAPE(cond, retExpr, errMsg, ...)               \
  if (cond) {                                                         \
    OP_LOGE(ACLNN_ERR_INNER_INFERSHAPE_ERROR, errMsg, ##__VA_ARGS__); \
    retExpr;                                                          \
  }

#define OP_CHECK_TENSORLIST_SIZE_EQUAL(tensorlist1, tensorlist2, retExpr)                                        \
  if ((tensorlist1)->Size() != (tensorlist2)->Size()) {                                                          \
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Tensor lists %s and %s should have the same length, got %lu and %lu.",     \
            #tensorlist1, #tensorlist2, static_cast<unsigned long>((tensorlist1)->Size()),                      \
            static_cast<unsigned long>((tensorlist2)->Size()));                                                  \
    retExpr;                                                                                                     \
  }

#endif  // OPGEN_TWIN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H_
