// l0op::BroadcastTo on the twin: a stride-0 view over x's storage, materialised by Contiguous in phase 2.
#include "level0/broadcast_to.h"

#include "aclnn_kernels/contiguous.h"
#include "opdev/op_log.h"

namespace l0op {
const aclTensor* BroadcastTo(const aclTensor* x, const aclIntArray* shape, aclOpExecutor* executor) {
  if (x == nullptr || shape == nullptr || executor == nullptr) {
    return nullptr;
  }
  const op::Shape& source = x->GetViewShape();
  const op::Strides& sourceStrides = x->GetViewStrides();
  const size_t rank = static_cast<size_t>(shape->Size());
  const size_t sourceRank = source.GetDimNum();
  if (sourceRank > rank) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "BroadcastTo: rank %zu cannot broadcast to rank %zu.", sourceRank, rank);
    return nullptr;
  }
  op::Shape target;
  op::Strides strides;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t dim = (*shape)[i];
    target.AppendDim(dim);
    const size_t offset = rank - sourceRank;
    if (i < offset) {
      strides.push_back(0);
      continue;
    }
    const int64_t sourceDim = source.GetDim(i - offset);
    if (sourceDim == dim) {
      strides.push_back(sourceStrides[i - offset]);
    } else if (sourceDim == 1) {
      strides.push_back(0);  // repeat the single element along this dim
    } else {
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "BroadcastTo: dim %zu of size %ld cannot broadcast to %ld.", i,
              static_cast<long>(sourceDim), static_cast<long>(dim));
      return nullptr;
    }
  }
  aclTensor* view = executor->CreateView(x, target, x->GetStorageShape(), strides, x->GetViewOffset());
  if (view == nullptr) {
    return nullptr;
  }
  return Contiguous(view, executor);
}
}  // namespace l0op
