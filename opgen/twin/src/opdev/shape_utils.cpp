// Shape printing/conversion, broadcast rules and view predicates.
#include <algorithm>
#include <string>

#include "opdev/shape_utils.h"
#include "opdev/format_utils.h"
#include "opdev/tensor_view_utils.h"

namespace op {

ge::AscendString ToString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.GetDimNum(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape.GetDim(i));
  return ge::AscendString(text + "]");
}

ge::AscendString ToString(const Strides& strides) {
  std::string text = "[";
  for (size_t i = 0; i < strides.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(strides[i]);
  return ge::AscendString(text + "]");
}

void ToShape(const int64_t* dims, uint64_t dimNum, Shape& shape) {
  shape.SetDimNum(0);
  for (uint64_t i = 0; i < dimNum; ++i) shape.AppendDim(dims[i]);
}

void ToShape(const ShapeVector& shapeVector, Shape& shape) { ToShape(shapeVector.data(), shapeVector.size(), shape); }

ShapeVector ToShapeVector(const Shape& shape) {
  ShapeVector dims;
  for (size_t i = 0; i < shape.GetDimNum(); ++i) dims.push_back(shape.GetDim(i));
  return dims;
}

bool BroadcastInferShape(const Shape& self, const Shape& other, Shape& broadcastShape) {
  const size_t rank = std::max(self.GetDimNum(), other.GetDimNum());
  Shape result;
  for (size_t i = 0; i < rank; ++i) {
    // Align from the trailing dimension; missing leading dims act as 1.
    size_t fromEnd = rank - 1 - i;
    int64_t a = fromEnd < self.GetDimNum() ? self.GetDim(self.GetDimNum() - 1 - fromEnd) : 1;
    int64_t b = fromEnd < other.GetDimNum() ? other.GetDim(other.GetDimNum() - 1 - fromEnd) : 1;
    if (a != b && a != 1 && b != 1) return false;
    result.AppendDim(a == 1 ? b : a);
  }
  broadcastShape = result;
  return true;
}

bool CheckBroadcastShape(const Shape& self, const Shape& other) {
  Shape ignored;
  return BroadcastInferShape(self, other, ignored);
}

bool IsContiguous(const aclTensor* tensor) {
  if (tensor == nullptr || tensor->IsEmpty() || IsPrivateFormat(tensor->GetStorageFormat())) return true;
  const Shape& shape = tensor->GetViewShape();
  const Strides& strides = tensor->GetViewStrides();
  if (strides.size() != shape.GetDimNum()) return false;
  int64_t expected = 1;
  bool beyond = false;  // the dims so far hold more elements than int64_t: no stride can match
  for (size_t i = shape.GetDimNum(); i-- > 0;) {
    if (shape.GetDim(i) != 1 && (beyond || strides[i] != expected)) return false;
    beyond = beyond || __builtin_mul_overflow(expected, shape.GetDim(i), &expected);
  }
  return true;
}

bool CanPickViewAsContiguous(const aclTensor* tensor) { return IsContiguous(tensor); }

bool CanPickViewAsContiguous(std::initializer_list<const aclTensor*> tensorList) {
  return std::all_of(tensorList.begin(), tensorList.end(), [](const aclTensor* t) { return IsContiguous(t); });
}

bool Validate(const aclTensor* tensor) {
  if (tensor == nullptr || TypeSize(tensor->GetDataType()) == 0) return false;
  const Shape& shape = tensor->GetViewShape();
  if (tensor->GetViewStrides().size() != shape.GetDimNum()) return false;
  for (size_t i = 0; i < shape.GetDimNum(); ++i) {
    if (shape.GetDim(i) < 0 || tensor->GetViewStrides()[i] < 0) return false;
  }
  return tensor->GetViewOffset() >= 0;
}

}  // namespace op
