// aicpu::Tensor: one input or output of an AICPU kernel (data pointer, dtype, shape).
#ifndef OPGEN_TWIN_CPU_TENSOR_H_
#define OPGEN_TWIN_CPU_TENSOR_H_

#include <cstdint>
#include <memory>

#include "cpu_tensor_shape.h"

namespace aicpu {

class AICPU_VISIBILITY Tensor {
 public:
  Tensor(void* data, uint64_t dataSize, DataType dataType, std::shared_ptr<TensorShape> shape)
      : data_(data), dataSize_(dataSize), dataType_(dataType), shape_(std::move(shape)) {}
  bool SetTensorShape(const TensorShape* shape) {
    if (shape == nullptr) return false;
    shape_ = std::make_shared<TensorShape>(*shape);
    return true;
  }
  std::shared_ptr<TensorShape> GetTensorShape() const { return shape_; }
  void SetDataType(DataType type) { dataType_ = type; }
  DataType GetDataType() const { return dataType_; }
  void SetData(void* addr) { data_ = addr; }
  void* GetData() const { return data_; }
  void SetDataSize(uint64_t size) { dataSize_ = size; }
  uint64_t GetDataSize() const { return dataSize_; }
  int64_t CalcDataSizeByShape() const {
    int size = GetSizeByDataType(dataType_);
    return size < 0 ? -1 : NumElements() * size;
  }
  int64_t NumElements() const { return shape_ == nullptr ? 0 : shape_->NumElements(); }

 private:
  void* data_;
  uint64_t dataSize_;
  DataType dataType_;
  std::shared_ptr<TensorShape> shape_;
};

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_TENSOR_H_
