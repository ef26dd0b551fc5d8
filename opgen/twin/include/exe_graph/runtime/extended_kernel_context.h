// gert::ExtendedKernelContext: node name/type, tensor descriptions and attributes shared by the
// tiling and infershape contexts. The twin runtime fills it through a friend factory.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_EXTENDED_KERNEL_CONTEXT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_EXTENDED_KERNEL_CONTEXT_H_

#include <string>
#include <vector>

#include "exe_graph/runtime/compute_node_info.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"

namespace opgen_twin {
namespace acl {
class ContextFactory;
}  // namespace acl
}  // namespace opgen_twin

namespace gert {

class ExtendedKernelContext {
 public:
  const char* GetNodeName() const { return nodeName_.c_str(); }
  const char* GetNodeType() const { return nodeType_.c_str(); }
  const CompileTimeTensorDesc* GetInputDesc(size_t index) const { return Present(inputDescs_, inputPresent_, index); }
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t irIndex) const { return GetInputDesc(irIndex); }
  const CompileTimeTensorDesc* GetDynamicInputDesc(size_t irIndex, size_t relativeIndex) const {
    return relativeIndex == 0 ? GetInputDesc(irIndex) : nullptr;
  }
  const CompileTimeTensorDesc* GetOutputDesc(size_t index) const {
    return index < outputDescs_.size() ? &outputDescs_[index] : nullptr;
  }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  size_t GetComputeNodeInputNum() const { return inputDescs_.size(); }
  size_t GetComputeNodeOutputNum() const { return outputDescs_.size(); }

 protected:
  friend class opgen_twin::acl::ContextFactory;
  // An absent optional input keeps its index with present == false.
  template <typename T>
  static const T* Present(const std::vector<T>& items, const std::vector<bool>& present, size_t index) {
    return index < items.size() && present[index] ? &items[index] : nullptr;
  }

  std::string nodeName_;
  std::string nodeType_;
  std::vector<CompileTimeTensorDesc> inputDescs_;
  std::vector<bool> inputPresent_;
  std::vector<CompileTimeTensorDesc> outputDescs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_EXTENDED_KERNEL_CONTEXT_H_
