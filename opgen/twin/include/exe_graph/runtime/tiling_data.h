// gert::TilingData: the raw tiling buffer a tiling function fills (capacity fixed by the runtime).
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_DATA_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_DATA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {

class TilingData {
 public:
  explicit TilingData(size_t capacity = 0) : buffer_(capacity, 0) {}
  void* GetData() { return buffer_.data(); }
  const void* GetData() const { return buffer_.data(); }
  size_t GetCapacity() const { return buffer_.size(); }
  size_t GetDataSize() const { return dataSize_; }
  void SetDataSize(size_t size) { dataSize_ = size; }
  // Appends a POD value at the current data size (CANN's TilingData::Append).
  template <typename T>
  ge::graphStatus Append(const T& value) {
    if (dataSize_ + sizeof(T) > buffer_.size()) return ge::GRAPH_FAILED;
    std::memcpy(buffer_.data() + dataSize_, &value, sizeof(T));
    dataSize_ += sizeof(T);
    return ge::GRAPH_SUCCESS;
  }

 private:
  std::vector<uint8_t> buffer_;
  size_t dataSize_ = 0;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_DATA_H_
