// gert::CompileTimeTensorDesc: what GetInputDesc()/GetOutputDesc() return.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H_

#include "exe_graph/runtime/storage_format.h"
#include "graph/types.h"

namespace gert {

class CompileTimeTensorDesc {
 public:
  CompileTimeTensorDesc() = default;
  CompileTimeTensorDesc(ge::DataType dataType, const StorageFormat& format) : dataType_(dataType), format_(format) {}
  ge::DataType GetDataType() const { return dataType_; }
  const StorageFormat& GetFormat() const { return format_; }
  ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
  ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
  void SetDataType(ge::DataType dataType) { dataType_ = dataType; }

 private:
  ge::DataType dataType_ = ge::DT_UNDEFINED;
  StorageFormat format_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H_
