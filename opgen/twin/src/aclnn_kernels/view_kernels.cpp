// Built-in L0 ops of the aclnn layer, run on the host in phase 2: Contiguous (gather a strided
// view), Cast (dtype conversion) and ViewCopy (scatter into a possibly strided view), Reshape.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "aclnn_kernels/reshape.h"
#include "../acl/device_memory.h"
#include "../aclnn/element_access.h"
#include "opdev/op_dfx.h"
#include "opdev/shape_utils.h"
#include "opdev/tensor_view_utils.h"
#include "../tiling/platform/twin_platform.h"

namespace opgen_twin {
namespace acl {
namespace {

// A view's elements in row-major order: the storage offset (in elements) of the current one.
class ViewCursor {
 public:
  ViewCursor(const op::Shape& shape, const op::Strides& strides, int64_t offset)
      : rank_(shape.GetDimNum()), storage_(offset) {
    for (size_t d = 0; d < rank_; ++d) {
      dims_[d] = shape.GetDim(d);
      strides_[d] = d < strides.size() ? strides[d] : 0;
      index_[d] = 0;
    }
  }
  int64_t storage() const { return storage_; }
  // Elements left in the innermost dimension, from the current one (the whole view for a 0-d view).
  int64_t InnerLeft() const { return rank_ == 0 ? 1 : dims_[rank_ - 1] - index_[rank_ - 1]; }
  int64_t InnerStride() const { return rank_ == 0 ? 0 : strides_[rank_ - 1]; }
  // Moves `steps` elements on, all within the innermost dimension (steps <= InnerLeft()).
  void Advance(int64_t steps) {
    if (rank_ == 0) return;
    const size_t last = rank_ - 1;
    if (index_[last] + steps < dims_[last]) {
      index_[last] += steps;
      storage_ += steps * strides_[last];
      return;
    }
    // The innermost dimension is done: odometer carry into the outer ones.
    storage_ -= strides_[last] * index_[last];
    index_[last] = 0;
    for (size_t d = last; d-- > 0;) {
      if (++index_[d] < dims_[d]) {
        storage_ += strides_[d];
        return;
      }
      storage_ -= strides_[d] * (dims_[d] - 1);
      index_[d] = 0;
    }
  }

 private:
  size_t rank_;
  int64_t storage_;
  int64_t dims_[op::MAX_DIM_NUM];
  int64_t strides_[op::MAX_DIM_NUM];
  int64_t index_[op::MAX_DIM_NUM];
};

// True if the view covers [offset, offset + count) of its storage in row-major order.
bool IsDense(const aclTensor* tensor) {
  const op::Shape& shape = tensor->GetViewShape();
  const op::Strides& strides = tensor->GetViewStrides();
  if (strides.size() != shape.GetDimNum()) return false;
  int64_t expected = 1;
  bool beyond = false;  // the dims so far hold more elements than int64_t: no stride can match
  for (size_t i = shape.GetDimNum(); i-- > 0;) {
    if (shape.GetDim(i) != 1 && (beyond || strides[i] != expected)) return false;
    beyond = beyond || __builtin_mul_overflow(expected, shape.GetDim(i), &expected);
  }
  return true;
}

// The bytes [first, last) of storage the view touches (strides are non-negative, as Validate requires).
void ViewByteRange(const aclTensor* tensor, size_t elementSize, uintptr_t* first, uintptr_t* last) {
  const op::Shape& shape = tensor->GetViewShape();
  const op::Strides& strides = tensor->GetViewStrides();
  int64_t lo = tensor->GetViewOffset();
  int64_t hi = lo;
  for (size_t d = 0; d < shape.GetDimNum(); ++d) {
    const int64_t reach = (shape.GetDim(d) - 1) * (d < strides.size() ? strides[d] : 0);
    (reach < 0 ? lo : hi) += reach;
  }
  const auto base = reinterpret_cast<uintptr_t>(tensor->GetStorageAddr());
  *first = base + static_cast<uintptr_t>(lo) * elementSize;
  *last = base + static_cast<uintptr_t>(hi + 1) * elementSize;
}

// Copies `count` elements from a view into dense bytes, or from dense bytes into a view, run by run.
void GatherBytes(const aclTensor* view, const uint8_t* base, size_t size, int64_t count, uint8_t* dense) {
  ViewCursor cursor(view->GetViewShape(), view->GetViewStrides(), view->GetViewOffset());
  for (int64_t done = 0; done < count;) {
    const int64_t run = std::min(cursor.InnerLeft(), count - done);
    const int64_t stride = cursor.InnerStride();
    const uint8_t* from = base + cursor.storage() * static_cast<int64_t>(size);
    if (stride == 1) {
      std::memcpy(dense + done * static_cast<int64_t>(size), from, static_cast<size_t>(run) * size);
    } else {
      for (int64_t k = 0; k < run; ++k) {
        std::memcpy(dense + (done + k) * static_cast<int64_t>(size), from + k * stride * static_cast<int64_t>(size),
                    size);
      }
    }
    done += run;
    cursor.Advance(run);
  }
}

void ScatterBytes(const aclTensor* view, uint8_t* base, size_t size, int64_t count, const uint8_t* dense) {
  ViewCursor cursor(view->GetViewShape(), view->GetViewStrides(), view->GetViewOffset());
  for (int64_t done = 0; done < count;) {
    const int64_t run = std::min(cursor.InnerLeft(), count - done);
    const int64_t stride = cursor.InnerStride();
    uint8_t* to = base + cursor.storage() * static_cast<int64_t>(size);
    if (stride == 1) {
      std::memcpy(to, dense + done * static_cast<int64_t>(size), static_cast<size_t>(run) * size);
    } else {
      for (int64_t k = 0; k < run; ++k) {
        std::memcpy(to + k * stride * static_cast<int64_t>(size), dense + (done + k) * static_cast<int64_t>(size),
                    size);
      }
    }
    done += run;
    cursor.Advance(run);
  }
}

// Copies src's view into dst's view, converting dtype on the way (element by element through a wide value,
// as PyTorch converts). Same-dtype copies move the bytes: a memmove when both views are dense, else a
// gather into a staging buffer and a scatter, so overlapping storages copy correctly.
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
    if (!InsideStorage(src_, "reads") || !InsideStorage(dst_, "writes")) return ACLNN_ERR_INNER;
    const op::DataType srcType = src_->GetDataType();
    const op::DataType dstType = dst_->GetDataType();
    const size_t srcSize = op::TypeSize(srcType);
    const size_t dstSize = op::TypeSize(dstType);
    // bool goes through the wide value, which normalises any non-zero byte to 1.
    if (srcType == dstType && srcType != ge::DT_BOOL) {
      if (IsDense(src_) && IsDense(dst_)) {
        std::memmove(dstBase + dst_->GetViewOffset() * static_cast<int64_t>(dstSize),
                     srcBase + src_->GetViewOffset() * static_cast<int64_t>(srcSize),
                     static_cast<size_t>(count) * srcSize);
        return ACLNN_SUCCESS;
      }
      std::vector<uint8_t> staged(static_cast<size_t>(count) * srcSize);
      GatherBytes(src_, srcBase, srcSize, count, staged.data());
      ScatterBytes(dst_, dstBase, dstSize, count, staged.data());
      return ACLNN_SUCCESS;
    }
    uintptr_t srcFirst = 0, srcLast = 0, dstFirst = 0, dstLast = 0;
    ViewByteRange(src_, srcSize, &srcFirst, &srcLast);
    ViewByteRange(dst_, dstSize, &dstFirst, &dstLast);
    ViewCursor from(src_->GetViewShape(), src_->GetViewStrides(), src_->GetViewOffset());
    ViewCursor to(dst_->GetViewShape(), dst_->GetViewStrides(), dst_->GetViewOffset());
    if (srcLast <= dstFirst || dstLast <= srcFirst) {
      // Disjoint storage: convert straight across.
      for (int64_t element = 0; element < count; ++element) {
        WriteElement(dstBase + to.storage() * static_cast<int64_t>(dstSize), dstType,
                     ReadElement(srcBase + from.storage() * static_cast<int64_t>(srcSize), srcType));
        from.Advance(1);
        to.Advance(1);
      }
      return ACLNN_SUCCESS;
    }
    std::vector<WideValue> staged(static_cast<size_t>(count));
    for (int64_t element = 0; element < count; ++element) {
      staged[static_cast<size_t>(element)] = ReadElement(srcBase + from.storage() * static_cast<int64_t>(srcSize), srcType);
      from.Advance(1);
    }
    for (int64_t element = 0; element < count; ++element) {
      WriteElement(dstBase + to.storage() * static_cast<int64_t>(dstSize), dstType, staged[static_cast<size_t>(element)]);
      to.Advance(1);
    }
    return ACLNN_SUCCESS;
  }

 private:
  // The memory behind a tensor is checked where it is touched (aclCreateTensor takes any storage size).
  bool InsideStorage(const aclTensor* view, const char* verb) const {
    const std::string overrun = ViewOverrun(view);
    if (overrun.empty()) return true;
    OP_LOGE(ACLNN_ERR_INNER, "GM_OUT_OF_BOUNDS: %s %s %s.", name_, verb, overrun.c_str());
    return false;
  }

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
