// aicpu::TensorShape: dims and format of an AICPU kernel tensor.
#ifndef OPGEN_TWIN_CPU_TENSOR_SHAPE_H_
#define OPGEN_TWIN_CPU_TENSOR_SHAPE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_types.h"

namespace aicpu {

class AICPU_VISIBILITY TensorShape {
 public:
  explicit TensorShape(std::vector<int64_t> dims, Format format = FORMAT_ND) : dims_(std::move(dims)), format_(format) {}
  void SetFormat(Format format) { format_ = format; }
  Format GetFormat() const { return format_; }
  bool GetUnknownRank() const { return false; }
  void SetUnknownRank(bool unknownRank) { (void)unknownRank; }
  void SetDimSizes(const std::vector<int64_t>& dims) { dims_ = dims; }
  std::vector<int64_t> GetDimSizes() const { return dims_; }
  // Size of dimension index, -1 when out of range.
  int64_t GetDimSize(int32_t index) const {
    return index >= 0 && static_cast<size_t>(index) < dims_.size() ? dims_[static_cast<size_t>(index)] : -1;
  }
  int32_t GetDims() const { return static_cast<int32_t>(dims_.size()); }
  int64_t NumElements() const {
    int64_t count = 1;
    for (int64_t d : dims_) count *= d;
    return count;
  }

 private:
  std::vector<int64_t> dims_;
  Format format_;
};

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_TENSOR_SHAPE_H_
