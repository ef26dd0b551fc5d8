// gert::InferDataTypeContext: input dtypes in, output dtypes out.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H_

#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "graph/ge_error_codes.h"

namespace gert {

class InferDataTypeContext : public ExtendedKernelContext {
 public:
  ge::DataType GetInputDataType(size_t index) const {
    const CompileTimeTensorDesc* desc = GetInputDesc(index);
    return desc == nullptr ? ge::DT_UNDEFINED : desc->GetDataType();
  }
  ge::DataType GetOptionalInputDataType(size_t irIndex) const { return GetInputDataType(irIndex); }
  ge::DataType GetOutputDataType(size_t index) const {
    return index < outputDataTypes_.size() ? outputDataTypes_[index] : ge::DT_UNDEFINED;
  }
  ge::graphStatus SetOutputDataType(size_t index, ge::DataType dataType) {
    if (index >= outputDataTypes_.size()) return ge::GRAPH_FAILED;
    outputDataTypes_[index] = dataType;
    return ge::GRAPH_SUCCESS;
  }

 private:
  friend class opgen_twin::acl::ContextFactory;
  std::vector<ge::DataType> outputDataTypes_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H_
