// Built-in L0 ops of the aclnn layer, run on the host in phase 2: Contiguous (gather a strided
// view), Cast (dtype conversion) and ViewCopy (scatter into a possibly strided view), Reshape.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "aclnn_kernels/reshape.h"
#include "../aclnn/element_access.h"
#include "opdev/op_dfx.h"
#include "opdev/shape_utils.h"
#include "opdev/tensor_view_utils.h"
#include "../tiling/platform/twin_platform.h"

namespace opgen_twin {
namespace acl {
namespace {

// Copies src's view into dst's view element by element, converting dtype on the way. Goes
// through a staging buffer so overlapping storages copy correctly.
class ElementCopyTask : public op::internal::LaunchTask {
 public:
  ElementCopyTask(const char* name, const aclTensor* src, const aclTensor* dst) : name_(name), src_(src), dst_(dst) {}
  const char* Name() const override { return name_; }
  std::string Describe() const override {
    return std::string(name_) + " host " + op::ToString(src_->GetDataType()).GetString() + "->" +
           op::ToString(dst_->GetDataType()).GetString();
  }
  aclnnStatus Run(const op::internal::LaunchEnv& env) override {
    (void)env;
    const int64_t count = src_->Numel();
    if (count == 0) return ACLNN_SUCCESS;
    auto* srcBase = static_cast<const uint8_t*>(src_->GetStorageAddr());
    auto* dstBase = static_cast<uint8_t*>(dst_->GetStorageAddr());
    if (srcBase == nullptr || dstBase == nullptr) {
      OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "%s: tensor without storage.", name_);
      return ACLNN_ERR_INNER_NULLPTR;
    }
    const op::DataType srcType = src_->GetDataType();
    const op::DataType dstType = dst_->GetDataType();
    const size_t srcSize = op::TypeSize(srcType);
    const size_t dstSize = op::TypeSize(dstType);
    std::vector<WideValue> staged(static_cast<size_t>(count));
    ForEachViewElement(src_->GetViewShape(), src_->GetViewStrides(), src_->GetViewOffset(),
                       [&](int64_t element, int64_t storage) {
                         staged[static_cast<size_t>(element)] = ReadElement(srcBase + storage * srcSize, srcType);
                       });
    ForEachViewElement(dst_->GetViewShape(), dst_->GetViewStrides(), dst_->GetViewOffset(),
                       [&](int64_t element, int64_t storage) {
                         WriteElement(dstBase + storage * dstSize, dstType, staged[static_cast<size_t>(element)]);
                       });
    return ACLNN_SUCCESS;
  }

 private:
  const char* name_;
  const aclTensor* src_;
  const aclTensor* dst_;
};

bool CheckElementType(op::DataType dtype, const char* op) {
  if (IsSupportedElementType(dtype)) return true;
  OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s does not support dtype %s.", op, op::ToString(dtype).GetString());
  return false;
}

}  // namespace
}  // namespace acl
}  // namespace opgen_twin

using opgen_twin::acl::CheckElementType;
using opgen_twin::acl::ElementCopyTask;

namespace l0op {

const aclTensor* Contiguous(const aclTensor* x, aclOpExecutor* executor) {
  if (x == nullptr || executor == nullptr) return nullptr;
  if (op::IsContiguous(x)) return x;
  if (!CheckElementType(x->GetDataType(), "Contiguous")) return nullptr;
  aclTensor* out = executor->AllocTensor(x->GetViewShape(), x->GetDataType(), x->GetViewFormat());
  if (out == nullptr) return nullptr;
  executor->AddLaunchTask(std::make_unique<ElementCopyTask>("Contiguous", x, out));
  return out;
}

const aclTensor* PickViewAsContiguous(const aclTensor* x, aclOpExecutor* executor) {
  (void)executor;
  return op::IsContiguous(x) ? x : nullptr;
}

const aclTensor* ViewCopy(const aclTensor* x, const aclTensor* y, aclOpExecutor* executor) {
  if (x == nullptr || y == nullptr || executor == nullptr) return nullptr;
  if (x->GetViewShape().GetShapeSize() != y->GetViewShape().GetShapeSize()) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "ViewCopy: source shape %s does not match destination shape %s.",
            op::ToString(x->GetViewShape()).GetString(), op::ToString(y->GetViewShape()).GetString());
    return nullptr;
  }
  if (x->GetDataType() != y->GetDataType()) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "ViewCopy: source dtype %s differs from destination dtype %s; cast first.",
            op::ToString(x->GetDataType()).GetString(), op::ToString(y->GetDataType()).GetString());
    return nullptr;
  }
  if (x == y) return y;
  executor->AddLaunchTask(std::make_unique<ElementCopyTask>("ViewCopy", x, y));
  return y;
}

const aclTensor* Cast(const aclTensor* self, op::DataType dstDtype, aclOpExecutor* executor) {
  if (self == nullptr || executor == nullptr) return nullptr;
  if (self->GetDataType() == dstDtype) return self;
  if (!CheckElementType(self->GetDataType(), "Cast") || !CheckElementType(dstDtype, "Cast")) return nullptr;
  bool needsBf16 = self->GetDataType() == ge::DT_BF16 || dstDtype == ge::DT_BF16;
  if (needsBf16 && !opgen_twin::acl::CurrentPlatform().bf16Supported) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Cast: DT_BF16 is not supported on %s.",
            opgen_twin::acl::CurrentPlatform().socName.c_str());
    return nullptr;
  }
  aclTensor* out = executor->AllocTensor(self->GetViewShape(), dstDtype, self->GetViewFormat());
  if (out == nullptr) return nullptr;
  executor->AddLaunchTask(std::make_unique<ElementCopyTask>("Cast", self, out));
  return out;
}

const aclTensor* CastOnlyForConvertToTensor(const aclTensor* self, op::DataType dstDtype, aclOpExecutor* executor) {
  return Cast(self, dstDtype, executor);
}

const aclTensor* Reshape(const aclTensor* x, const op::Shape& shape, aclOpExecutor* executor) {
  if (x == nullptr || executor == nullptr) return nullptr;
  if (x->GetViewShape().GetShapeSize() != shape.GetShapeSize()) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Reshape: %s cannot become %s.", op::ToString(x->GetViewShape()).GetString(),
            op::ToString(shape).GetString());
    return nullptr;
  }
  const aclTensor* contiguous = Contiguous(x, executor);
  if (contiguous == nullptr) return nullptr;
  return executor->CreateView(contiguous, shape, contiguous->GetViewOffset());
}

const aclTensor* Reshape(const aclTensor* x, const aclIntArray* shape, aclOpExecutor* executor) {
  if (shape == nullptr) return nullptr;
  op::Shape target;
  op::ToShape(shape->GetData(), shape->Size(), target);
  return Reshape(x, target, executor);
}

}  // namespace l0op
