// aicpu::CpuKernelContext: inputs, outputs and named attributes handed to CpuKernel::Compute.
#ifndef OPGEN_TWIN_CPU_CONTEXT_H_
#define OPGEN_TWIN_CPU_CONTEXT_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu_attr_value.h"
#include "cpu_tensor.h"
#include "cpu_types.h"

namespace aicpu {

class AICPU_VISIBILITY CpuKernelContext {
 public:
  explicit CpuKernelContext(DeviceType type) : deviceType_(type) {}
  CpuKernelContext() = delete;
  CpuKernelContext(const CpuKernelContext&) = delete;
  CpuKernelContext& operator=(const CpuKernelContext&) = delete;

  std::string GetOpType() const { return op_; }
  // nullptr when index is out of range (as on CANN).
  Tensor* Input(uint32_t index) const { return index < inputs_.size() ? inputs_[index].get() : nullptr; }
  Tensor* Output(uint32_t index) const { return index < outputs_.size() ? outputs_[index].get() : nullptr; }
  AttrValue* GetAttr(std::string name) const {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : it->second.get();
  }
  uint32_t GetInputsSize() const { return static_cast<uint32_t>(inputs_.size()); }
  uint32_t GetOutputsSize() const { return static_cast<uint32_t>(outputs_.size()); }

  // Twin-side construction.
  void SetOpType(const std::string& op) { op_ = op; }
  void AddInput(std::shared_ptr<Tensor> tensor) { inputs_.push_back(std::move(tensor)); }
  void AddOutput(std::shared_ptr<Tensor> tensor) { outputs_.push_back(std::move(tensor)); }
  void SetAttr(const std::string& name, std::shared_ptr<AttrValue> value) { attrs_[name] = std::move(value); }

 private:
  DeviceType deviceType_;
  std::string op_;
  std::vector<std::shared_ptr<Tensor>> inputs_;
  std::vector<std::shared_ptr<Tensor>> outputs_;
  std::unordered_map<std::string, std::shared_ptr<AttrValue>> attrs_;
};

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_CONTEXT_H_
