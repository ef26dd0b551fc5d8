// aclnn meta objects (aclTensor, aclScalar, aclIntArray, ...) and the op:: type aliases
// (op::Shape = gert::Shape, op::DataType = ge::DataType, op::Format = ge::Format, op::Strides).
#ifndef OPGEN_TWIN_OPDEV_COMMON_TYPES_H_
#define OPGEN_TWIN_OPDEV_COMMON_TYPES_H_

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "graph/ascend_string.h"
#include "graph/types.h"
#include "opdev/bfloat16.h"
#include "opdev/fast_vector.h"
#include "opdev/fp16_t.h"
#include "opdev/object.h"
#include "opdev/op_errno.h"

namespace op {
constexpr uint64_t MAX_DIM_NUM = 25;

using Strides = FVector<int64_t, MAX_DIM_NUM>;
using ShapeVector = FVector<int64_t, MAX_DIM_NUM>;
using Shape = gert::Shape;
using Format = ge::Format;
using DataType = ge::DataType;
using Tensor = gert::Tensor;
using StorageShape = gert::StorageShape;
using StorageFormat = gert::StorageFormat;
using TensorPlacement = gert::TensorPlacement;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

ge::AscendString ToString(op::DataType dataType);
size_t TypeSize(DataType dataType);
void ToContiguousStrides(const op::Shape& shape, op::Strides& strides);
}  // namespace op

class aclTensor : public op::Object {
 public:
  // Device tensor described like aclCreateTensor (strides/offset in elements).
  aclTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride, int64_t offset,
            aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum, void* tensorDataAddr);
  // Contiguous tensor of the given shape on storage (nullptr: storage assigned later).
  aclTensor(const op::Shape& shape, op::DataType dataType, op::Format format, void* tensorDataAddr);
  // Host tensor holding a copy of values (ConvertToTensor / AllocHostTensor).
  aclTensor(const void* values, uint64_t count, op::DataType dataType);
  // View of another tensor's storage.
  aclTensor(const aclTensor& base, const op::Shape& viewShape, const op::Strides& viewStrides, int64_t offset);
  ~aclTensor() override;
  aclTensor& operator=(const aclTensor&) = delete;

  const op::Shape& GetStorageShape() const { return storageShape_; }
  void SetStorageShape(const op::Shape& shape) const { storageShape_ = shape; }
  const op::Shape& GetOriginalShape() const { return originShape_; }
  void SetOriginalShape(const op::Shape& shape) const { originShape_ = shape; }
  const op::Shape& GetViewShape() const { return viewShape_; }
  void SetViewShape(const op::Shape& shape);
  op::Format GetStorageFormat() const { return storageFormat_; }
  void SetStorageFormat(op::Format format) { storageFormat_ = format; }
  op::Format GetOriginalFormat() const { return originFormat_; }
  void SetOriginalFormat(op::Format format) { originFormat_ = format; }
  op::Format GetViewFormat() const { return viewFormat_; }
  void SetViewFormat(op::Format format) { viewFormat_ = format; }
  const op::Strides& GetViewStrides() const { return viewStrides_; }
  void SetViewStrides(const op::Strides& strides) { viewStrides_ = strides; }

  // Start of the storage buffer (the address given to aclCreateTensor). A view made by the
  // executor follows its base tensor, whose storage may only be assigned in phase 2.
  void* GetData() const { return GetStorageAddr(); }
  void* GetStorageAddr() const { return storageOwner_ != nullptr ? storageOwner_->GetStorageAddr() : storageAddr_; }
  void SetStorageAddr(void* addr) const {
    storageOwner_ = nullptr;
    storageAddr_ = addr;
  }
  // Address of the first element of the view: storage + offset * element size.
  void* GetViewAddr() const;
  int64_t Size() const { return Numel(); }
  int64_t Numel() const { return viewShape_.GetShapeSize(); }
  op::DataType GetDataType() const { return dataType_; }
  void SetDataType(op::DataType dataType) { dataType_ = dataType; }
  int64_t GetViewOffset() const { return viewOffset_; }
  void SetViewOffset(int64_t offset) const { viewOffset_ = offset; }
  int64_t GetStorageOffset() const { return 0; }
  op::TensorPlacement GetPlacement() const { return placement_; }
  void SetPlacement(op::TensorPlacement placement) { placement_ = placement; }
  bool IsEmpty() const { return Numel() == 0; }
  // gert view of the tensor (view shape as origin and storage shape).
  op::Tensor* GetTensor() const;
  ge::AscendString ToString() const;
  // Storage elements the view may touch: 1 + sum((dim - 1) * stride) past the offset, 0 if empty.
  int64_t ViewSpanElements() const;

 private:
  mutable void* storageAddr_ = nullptr;
  mutable const aclTensor* storageOwner_ = nullptr;
  mutable op::Shape storageShape_;
  mutable op::Shape originShape_;
  op::Shape viewShape_;
  op::Strides viewStrides_;
  mutable int64_t viewOffset_ = 0;
  op::DataType dataType_ = ge::DT_UNDEFINED;
  op::Format storageFormat_ = ge::FORMAT_ND;
  op::Format originFormat_ = ge::FORMAT_ND;
  op::Format viewFormat_ = ge::FORMAT_ND;
  op::TensorPlacement placement_ = gert::kOnDeviceHbm;
  std::vector<uint8_t> hostData_;  // owned values of a host tensor
  mutable op::Tensor gertView_;
};

template <typename T>
class aclArray : public op::Object {
 public:
  aclArray(const T* value, uint64_t size) : values_(value, value + size) {}
  T& operator[](uint64_t i) { return values_[i]; }
  const T& operator[](uint64_t i) const { return values_[i]; }
  uint64_t Size() const { return values_.size(); }
  const T* GetData() const { return values_.data(); }
  ge::AscendString ToString() const;

 private:
  std::vector<T> values_;
};

// std::vector<bool> has no data(); keep bools as bytes.
template <>
class aclArray<bool> : public op::Object {
 public:
  aclArray(const bool* value, uint64_t size) : values_(value, value + size) {}
  bool& operator[](uint64_t i) { return reinterpret_cast<bool&>(values_[i]); }
  const bool& operator[](uint64_t i) const { return reinterpret_cast<const bool&>(values_[i]); }
  uint64_t Size() const { return values_.size(); }
  const bool* GetData() const { return reinterpret_cast<const bool*>(values_.data()); }
  ge::AscendString ToString() const;

 private:
  std::vector<uint8_t> values_;
};

class aclIntArray : public aclArray<int64_t> {
 public:
  using aclArray<int64_t>::aclArray;
};
class aclFloatArray : public aclArray<float> {
 public:
  using aclArray<float>::aclArray;
};
class aclBoolArray : public aclArray<bool> {
 public:
  using aclArray<bool>::aclArray;
};
class aclFp16Array : public aclArray<op::fp16_t> {
 public:
  using aclArray<op::fp16_t>::aclArray;
};
class aclBf16Array : public aclArray<op::bfloat16> {
 public:
  using aclArray<op::bfloat16>::aclArray;
};

class aclTensorList : public op::Object {
 public:
  aclTensorList(const aclTensor* const* tensors, uint64_t size);
  aclTensor*& operator[](uint64_t i) { return tensors_[i]; }
  const aclTensor* operator[](uint64_t i) const { return tensors_[i]; }
  uint64_t Size() const { return tensors_.size(); }
  const aclTensor* const* GetData() const { return tensors_.data(); }
  ge::AscendString ToString() const;

 private:
  std::vector<aclTensor*> tensors_;
};

class aclScalar : public op::Object {
 public:
  // Copies TypeSize(dataType) bytes from data.
  aclScalar(const void* data, op::DataType dataType);
  explicit aclScalar(double value);
  explicit aclScalar(float value);
  explicit aclScalar(int64_t value);
  explicit aclScalar(int32_t value);
  explicit aclScalar(bool value);
  const void* GetData() const { return &v_; }
  uint64_t Size() const;
  op::DataType GetDataType() const { return dataType_; }
  float ToFloat() const;
  double ToDouble() const;
  bool ToBool() const;
  int8_t ToInt8() const;
  int16_t ToInt16() const;
  int32_t ToInt32() const;
  int64_t ToInt64() const;
  uint8_t ToUint8() const;
  uint16_t ToUint16() const;
  uint32_t ToUint32() const;
  uint64_t ToUint64() const;
  op::fp16_t ToFp16() const;
  op::bfloat16 ToBf16() const;
  std::complex<float> ToComplex64() const;
  std::complex<double> ToComplex128() const;
  ge::AscendString ToString() const;
  // True if the value does not fit the target type (as PyTorch's checked scalar conversion).
  template <typename To>
  bool CheckOverflows() const;

 private:
  op::DataType dataType_;
  union Value {
    uint8_t bytes[16];
    double d;
    int64_t i64;
  } v_{};
};

class aclScalarList : public op::Object {
 public:
  aclScalarList(const aclScalar* const* scalars, uint64_t size);
  aclScalar*& operator[](uint64_t i) { return scalars_[i]; }
  const aclScalar* operator[](uint64_t i) const { return scalars_[i]; }
  uint64_t Size() const { return scalars_.size(); }
  const aclScalar* const* GetData() const { return scalars_.data(); }
  ge::AscendString ToString() const;

 private:
  std::vector<aclScalar*> scalars_;
};

ge::AscendString ToString(const aclTensor* t);
ge::AscendString ToString(const aclTensorList* t);
ge::AscendString ToString(const aclIntArray* t);
ge::AscendString ToString(const aclBoolArray* t);
ge::AscendString ToString(const aclFloatArray* t);
ge::AscendString ToString(const aclScalar* t);
ge::AscendString ToString(const aclScalarList* t);
ge::AscendString ToString(aclDataType dataType);

template <typename To>
bool aclScalar::CheckOverflows() const {
  double value = ToDouble();
  if constexpr (std::is_same_v<To, bool>) {
    return false;
  } else if constexpr (std::is_integral_v<To>) {
    return !(value >= static_cast<double>(std::numeric_limits<To>::lowest()) &&
             value <= static_cast<double>(std::numeric_limits<To>::max()));
  } else {
    // Floating targets: only finite values beyond the largest finite one overflow.
    double limit = 0;
    if constexpr (std::is_same_v<To, op::fp16_t>) {
      limit = 65504.0;
    } else if constexpr (std::is_same_v<To, op::bfloat16>) {
      limit = 3.3895313892515355e38;
    } else {
      limit = static_cast<double>(std::numeric_limits<To>::max());
    }
    return std::isfinite(value) && (value > limit || value < -limit);
  }
}

#endif  // OPGEN_TWIN_OPDEV_COMMON_TYPES_H_
