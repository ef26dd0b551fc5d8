// gert::Shape: a small fixed-capacity dim list (CANN's runtime shape type, also op::Shape).
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_SHAPE_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_SHAPE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace gert {

class Shape {
 public:
  static constexpr size_t kMaxDimNum = 25;
  static constexpr int64_t kInvalidDimValue = INT64_MIN;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) AppendDim(d);
  }

  size_t GetDimNum() const { return dimNum_; }
  void SetDimNum(size_t dimNum) { dimNum_ = dimNum > kMaxDimNum ? kMaxDimNum : dimNum; }
  int64_t GetDim(size_t index) const { return index < dimNum_ ? dims_[index] : kInvalidDimValue; }
  void SetDim(size_t index, int64_t value) {
    if (index < kMaxDimNum) {
      dims_[index] = value;
      if (index >= dimNum_) dimNum_ = index + 1;
    }
  }
  Shape& AppendDim(int64_t value) {
    if (dimNum_ < kMaxDimNum) dims_[dimNum_++] = value;
    return *this;
  }
  // Number of elements; a 0-d shape holds one element. -1 for a shape with a negative (unknown) dim or
  // one whose element count does not fit int64_t (aclCreateTensor takes any dims, so both reach ops).
  int64_t GetShapeSize() const {
    bool zero = false;
    for (size_t i = 0; i < dimNum_; ++i) {
      if (dims_[i] < 0) return -1;
      zero = zero || dims_[i] == 0;
    }
    if (zero) return 0;
    int64_t size = 1;
    for (size_t i = 0; i < dimNum_; ++i) {
      if (__builtin_mul_overflow(size, dims_[i], &size)) return -1;
    }
    return size;
  }
  bool IsScalar() const { return dimNum_ == 0; }
  void SetScalar() { dimNum_ = 0; }
  const int64_t& operator[](size_t index) const { return dims_[index]; }
  int64_t& operator[](size_t index) { return dims_[index]; }

  bool operator==(const Shape& other) const {
    if (dimNum_ != other.dimNum_) return false;
    for (size_t i = 0; i < dimNum_; ++i) {
      if (dims_[i] != other.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  size_t dimNum_ = 0;
  std::array<int64_t, kMaxDimNum> dims_{};
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_SHAPE_H_
