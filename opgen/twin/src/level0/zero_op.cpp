// l0op::ZerosLike on the twin: a host task in phase 2 that writes zeros into the new tensor (AI Core's ZerosLike
// kernel, or its AICPU kernel for dtypes the vector unit lacks, on hardware).
#include "level0/zero_op.h"

#include <memory>
#include <string>
#include <vector>

#include "opdev/op_log.h"

namespace opgen_twin {
namespace level0_zero_op {

class ZerosLikeTask : public op::internal::LaunchTask {
 public:
  explicit ZerosLikeTask(aclTensor* out) : out_(out) {}
  const char* Name() const override { return "ZerosLike"; }
  std::string Describe() const override {
    return std::string("ZerosLike host ") + op::ToString(out_->GetDataType()).GetString();
  }
  aclnnStatus Run(const op::internal::LaunchEnv& env) override {
    (void)env;
    const std::vector<double> zeros(static_cast<size_t>(out_->Numel()), 0.0);
    op::internal::StoreDoubles(out_, zeros.data(), static_cast<uint64_t>(zeros.size()));
    return ACLNN_SUCCESS;
  }

 private:
  aclTensor* out_;
};

}  // namespace level0_zero_op
}  // namespace opgen_twin

namespace l0op {
const aclTensor* ZerosLike(const aclTensor* self, aclOpExecutor* executor) {
  if (self == nullptr || executor == nullptr) {
    return nullptr;
  }
  aclTensor* out = executor->AllocTensor(self->GetStorageShape(), self->GetDataType(), self->GetStorageFormat());
  if (out == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "ZerosLike: the result tensor cannot be allocated.");
    return nullptr;
  }
  if (out->IsEmpty()) {
    return out;
  }
  executor->AddLaunchTask(std::make_unique<opgen_twin::level0_zero_op::ZerosLikeTask>(out));
  return out;
}
}  // namespace l0op
