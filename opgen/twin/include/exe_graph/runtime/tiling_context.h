// gert::TilingContext: what an op_host tiling function reads (shapes, dtypes, attrs, platform,
// compile info) and writes (block dim, tiling key, tiling data, workspace sizes).
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/ge_error_codes.h"

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace gert {

class TilingContext : public ExtendedKernelContext {
 public:
  const StorageShape* GetInputShape(size_t index) const { return Present(inputShapes_, inputPresent_, index); }
  const StorageShape* GetOptionalInputShape(size_t irIndex) const { return GetInputShape(irIndex); }
  const StorageShape* GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const {
    return relativeIndex == 0 ? GetInputShape(irIndex) : nullptr;
  }
  const Tensor* GetInputTensor(size_t index) const { return Present(inputTensors_, inputPresent_, index); }
  const Tensor* GetOptionalInputTensor(size_t irIndex) const { return GetInputTensor(irIndex); }
  const StorageShape* GetOutputShape(size_t index) const {
    return index < outputShapes_.size() ? &outputShapes_[index] : nullptr;
  }

  fe::PlatFormInfos* GetPlatformInfo() const { return platformInfo_; }
  const void* GetCompileInfo() const { return compileInfo_; }
  template <typename T>
  const T* GetCompileInfo() const {
    return static_cast<const T*>(compileInfo_);
  }

  ge::graphStatus SetBlockDim(uint32_t blockDim) {
    blockDim_ = blockDim;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetBlockDim() const { return blockDim_; }
  ge::graphStatus SetTilingKey(uint64_t tilingKey) {
    tilingKey_ = tilingKey;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return tilingKey_; }
  ge::graphStatus SetNeedAtomic(bool needAtomic) {
    needAtomic_ = needAtomic;
    return ge::GRAPH_SUCCESS;
  }
  bool NeedAtomic() const { return needAtomic_; }
  ge::graphStatus SetScheduleMode(uint32_t scheduleMode) {
    scheduleMode_ = scheduleMode;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetScheduleMode() const { return scheduleMode_; }
  ge::graphStatus SetTilingCond(int32_t tilingCond) {
    tilingCond_ = tilingCond;
    return ge::GRAPH_SUCCESS;
  }
  int32_t GetTilingCond() const { return tilingCond_; }
  int32_t GetDeterministic() const { return 0; }

  TilingData* GetRawTilingData() { return &tilingData_; }
  // Views the raw buffer as T and marks sizeof(T) bytes as used (nullptr if it does not fit).
  template <typename T>
  T* GetTilingData() {
    if (tilingData_.GetCapacity() < sizeof(T)) return nullptr;
    tilingData_.SetDataSize(sizeof(T));
    return static_cast<T*>(tilingData_.GetData());
  }
  // Resizes the workspace list to num entries (zeroed when grown) and returns it.
  size_t* GetWorkspaceSizes(size_t num) {
    if (workspaceSizes_.size() < num) workspaceSizes_.resize(num, 0);
    return workspaceSizes_.data();
  }
  size_t GetWorkspaceNum() const { return workspaceSizes_.size(); }

 private:
  friend class opgen_twin::acl::ContextFactory;
  std::vector<StorageShape> inputShapes_;
  std::vector<Tensor> inputTensors_;
  std::vector<StorageShape> outputShapes_;
  fe::PlatFormInfos* platformInfo_ = nullptr;
  const void* compileInfo_ = nullptr;
  uint32_t blockDim_ = 0;
  uint64_t tilingKey_ = 0;
  bool needAtomic_ = false;
  uint32_t scheduleMode_ = 0;
  int32_t tilingCond_ = 0;
  TilingData tilingData_;
  std::vector<size_t> workspaceSizes_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H_
