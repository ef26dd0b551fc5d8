// gert::StorageFormat: origin and storage format of a tensor.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H_

#include "graph/types.h"

namespace gert {

class StorageFormat {
 public:
  StorageFormat() = default;
  StorageFormat(ge::Format originFormat, ge::Format storageFormat)
      : originFormat_(originFormat), storageFormat_(storageFormat) {}
  ge::Format GetOriginFormat() const { return originFormat_; }
  ge::Format GetStorageFormat() const { return storageFormat_; }
  void SetOriginFormat(ge::Format format) { originFormat_ = format; }
  void SetStorageFormat(ge::Format format) { storageFormat_ = format; }

 private:
  ge::Format originFormat_ = ge::FORMAT_ND;
  ge::Format storageFormat_ = ge::FORMAT_ND;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H_
