// gert::InferShapeContext: input shapes in, output shapes out (plus attrs / input tensors).
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H_

#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"

namespace gert {

class InferShapeContext : public ExtendedKernelContext {
 public:
  const Shape* GetInputShape(size_t index) const { return Present(inputShapes_, inputPresent_, index); }
  const Shape* GetOptionalInputShape(size_t irIndex) const { return GetInputShape(irIndex); }
  const Shape* GetDynamicInputShape(size_t irIndex, size_t relativeIndex) const {
    return relativeIndex == 0 ? GetInputShape(irIndex) : nullptr;
  }
  const Tensor* GetInputTensor(size_t index) const { return Present(inputTensors_, inputPresent_, index); }
  const Tensor* GetOptionalInputTensor(size_t irIndex) const { return GetInputTensor(irIndex); }
  Shape* GetOutputShape(size_t index) { return index < outputShapes_.size() ? &outputShapes_[index] : nullptr; }

 private:
  friend class opgen_twin::acl::ContextFactory;
  std::vector<Shape> inputShapes_;
  std::vector<Tensor> inputTensors_;
  std::vector<Shape> outputShapes_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H_
