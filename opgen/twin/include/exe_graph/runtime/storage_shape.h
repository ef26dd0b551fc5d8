// gert::StorageShape: the origin (logical) shape and the storage (physical) shape of a tensor.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H_

#include "exe_graph/runtime/shape.h"

namespace gert {

class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(std::initializer_list<int64_t> originShape, std::initializer_list<int64_t> storageShape)
      : originShape_(originShape), storageShape_(storageShape) {}
  StorageShape(const Shape& originShape, const Shape& storageShape)
      : originShape_(originShape), storageShape_(storageShape) {}

  const Shape& GetOriginShape() const { return originShape_; }
  const Shape& GetStorageShape() const { return storageShape_; }
  Shape& MutableOriginShape() { return originShape_; }
  Shape& MutableStorageShape() { return storageShape_; }
  bool operator==(const StorageShape& other) const {
    return originShape_ == other.originShape_ && storageShape_ == other.storageShape_;
  }
  bool operator!=(const StorageShape& other) const { return !(*this == other); }

 private:
  Shape originShape_;
  Shape storageShape_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H_
