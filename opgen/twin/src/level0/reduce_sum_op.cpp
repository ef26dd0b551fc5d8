// l0op::ReduceSumOp on the twin: a host task in phase 2 that sums every element of x into its output element,
// accumulating in double and rounding once to x's dtype (AI Core's ReduceSum accumulates in float, pairwise:
// within the reduction tolerance of the float32 golden).
#include "level0/reduce_sum_op.h"

#include <memory>
#include <string>
#include <vector>

#include "../acl/device_memory.h"
#include "../aclnn/element_access.h"
#include "opdev/op_log.h"

namespace opgen_twin {
namespace level0_reduce_sum {

class ReduceSumTask : public op::internal::LaunchTask {
 public:
  ReduceSumTask(const aclTensor* x, std::vector<bool> reduced, aclTensor* out)
      : x_(x), reduced_(std::move(reduced)), out_(out) {}
  const char* Name() const override { return "ReduceSum"; }
  std::string Describe() const override {
    return std::string("ReduceSum host ") + op::ToString(x_->GetDataType()).GetString();
  }
  aclnnStatus Run(const op::internal::LaunchEnv& env) override {
    (void)env;
    // The memory behind a tensor is checked where it is touched (aclCreateTensor takes any storage size).
    for (const aclTensor* tensor : {x_, static_cast<const aclTensor*>(out_)}) {
      const std::string overrun = opgen_twin::acl::ViewOverrun(tensor);
      if (!overrun.empty()) {
        OP_LOGE(ACLNN_ERR_INNER, "GM_OUT_OF_BOUNDS: ReduceSum %s %s.", tensor == x_ ? "reads" : "writes",
                overrun.c_str());
        return ACLNN_ERR_INNER;
      }
    }
    const op::Shape& shape = x_->GetViewShape();
    const size_t rank = shape.GetDimNum();
    const int64_t outCount = out_->Numel();
    std::vector<double> sums(static_cast<size_t>(outCount > 0 ? outCount : 0), 0.0);
    // each output element's row-major index over the kept dims
    std::vector<int64_t> keptStride(rank, 0);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      if (!reduced_[d]) {
        keptStride[d] = stride;
        stride *= shape.GetDim(d);
      }
    }
    const auto* base = static_cast<const uint8_t*>(x_->GetStorageAddr());
    const size_t size = op::TypeSize(x_->GetDataType());
    const op::DataType dtype = x_->GetDataType();
    std::vector<int64_t> index(rank, 0);
    opgen_twin::acl::ForEachViewElement(shape, x_->GetViewStrides(), x_->GetViewOffset(),
                                        [&](int64_t element, int64_t storage) {
                                          int64_t rest = element, target = 0;
                                          for (size_t d = rank; d-- > 0;) {
                                            const int64_t at = rest % shape.GetDim(d);
                                            rest /= shape.GetDim(d);
                                            target += at * keptStride[d];
                                          }
                                          const auto value = opgen_twin::acl::ReadElement(
                                              base + storage * static_cast<int64_t>(size), dtype);
                                          sums[static_cast<size_t>(target)] += value.AsDouble();
                                        });
    op::internal::StoreDoubles(out_, sums.data(), static_cast<uint64_t>(sums.size()));
    return ACLNN_SUCCESS;
  }

 private:
  const aclTensor* x_;
  std::vector<bool> reduced_;
  aclTensor* out_;
};

}  // namespace level0_reduce_sum
}  // namespace opgen_twin

namespace l0op {
const aclTensor *ReduceSumOp(const aclTensor *x, const aclIntArray *axes, bool keep_dims, aclOpExecutor *executor) {
  if (x == nullptr || axes == nullptr || executor == nullptr) {
    return nullptr;
  }
  const op::Shape& shape = x->GetViewShape();
  const int64_t rank = static_cast<int64_t>(shape.GetDimNum());
  if (axes->Size() == 0) {
    return x;
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (uint64_t i = 0; i < axes->Size(); ++i) {
    const int64_t given = (*axes)[i];
    const int64_t axis = given < 0 ? given + rank : given;
    // a 0-d tensor reduces over axis 0 or -1 (itself)
    if (rank == 0 && (given == 0 || given == -1)) {
      continue;
    }
    if (axis < 0 || axis >= rank || reduced[static_cast<size_t>(axis)]) {
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "ReduceSum: axis %ld is out of range for rank %ld or given twice.",
              static_cast<long>(given), static_cast<long>(rank));
      return nullptr;
    }
    reduced[static_cast<size_t>(axis)] = true;
  }
  op::Shape outShape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      outShape.AppendDim(shape.GetDim(d));
    } else if (keep_dims) {
      outShape.AppendDim(1);
    }
  }
  aclTensor* out = executor->AllocTensor(outShape, x->GetDataType());
  if (out == nullptr) {
    return nullptr;
  }
  executor->AddLaunchTask(std::make_unique<opgen_twin::level0_reduce_sum::ReduceSumTask>(x, reduced, out));
  return out;
}
}  // namespace l0op
