// gert::Tensor: shape + format + dtype + address, as seen by tiling / infershape functions
// (GetInputTensor) and used by op::Tensor.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_TENSOR_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_TENSOR_H_

#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace gert {

enum TensorPlacement { kOnDeviceHbm, kOnHost, kFollowing, kOnDeviceP2p, kTensorPlacementEnd };

class Tensor {
 public:
  Tensor() = default;
  Tensor(const StorageShape& shape, const StorageFormat& format, ge::DataType dataType, const void* addr,
         TensorPlacement placement = kOnDeviceHbm)
      : shape_(shape), format_(format), dataType_(dataType), addr_(addr), placement_(placement) {}

  const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
  const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
  const StorageShape& GetShape() const { return shape_; }
  StorageShape& MutableShape() { return shape_; }
  int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
  ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
  ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
  const StorageFormat& GetFormat() const { return format_; }
  ge::DataType GetDataType() const { return dataType_; }
  void SetDataType(ge::DataType dataType) { dataType_ = dataType; }
  TensorPlacement GetPlacement() const { return placement_; }
  const void* GetAddr() const { return addr_; }
  template <typename T>
  const T* GetData() const {
    return static_cast<const T*>(addr_);
  }
  void SetAddr(const void* addr) { addr_ = addr; }

 private:
  StorageShape shape_;
  StorageFormat format_;
  ge::DataType dataType_ = ge::DT_UNDEFINED;
  const void* addr_ = nullptr;
  TensorPlacement placement_ = kOnDeviceHbm;
};

using TensorV2 = Tensor;

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_TENSOR_H_
