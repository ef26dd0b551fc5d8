// ADD_TO_LAUNCHER_LIST_AICPU: records a run of the CPU kernel registered with
// REGISTER_CPU_KERNEL; phase 2 builds its CpuKernelContext (tensors + named attributes) and
// calls Compute. A non-zero kernel status becomes ACLNN_ERR_INNER.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../context_factory.h"
#include "cpu_kernel.h"
#include "opdev/aicpu/aicpu_task.h"

namespace aicpu {
namespace {
struct KernelTable {
  std::mutex mutex;
  std::map<std::string, KERNEL_CREATOR_FUN> creators;
};
KernelTable& Kernels() {
  static auto* table = new KernelTable();
  return *table;
}
}  // namespace

bool RegistCpuKernel(const std::string& type, const KERNEL_CREATOR_FUN& fun) {
  std::lock_guard<std::mutex> lock(Kernels().mutex);
  return Kernels().creators.emplace(type, fun).second;
}

std::shared_ptr<CpuKernel> CreateCpuKernel(const std::string& type) {
  KERNEL_CREATOR_FUN creator;
  {
    std::lock_guard<std::mutex> lock(Kernels().mutex);
    auto it = Kernels().creators.find(type);
    if (it == Kernels().creators.end()) return nullptr;
    creator = it->second;
  }
  return creator();
}
}  // namespace aicpu

namespace opgen_twin {
namespace acl {
namespace {

void LogError(int code, const std::string& opType, const std::string& message) {
  log::LogWithCode(log::kError, "aicpu_launcher.cpp", 0, opType.c_str(), code, "%s", message.c_str());
}

std::shared_ptr<aicpu::Tensor> KernelTensor(const aclTensor* tensor) {
  if (tensor == nullptr) return nullptr;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < tensor->GetViewShape().GetDimNum(); ++i) dims.push_back(tensor->GetViewShape().GetDim(i));
  auto shape = std::make_shared<aicpu::TensorShape>(dims);
  uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(tensor->Numel(), 0)) * op::TypeSize(tensor->GetDataType());
  return std::make_shared<aicpu::Tensor>(tensor->GetViewAddr(), bytes,
                                         static_cast<aicpu::DataType>(tensor->GetDataType()), shape);
}

std::shared_ptr<aicpu::AttrValue> KernelAttr(const op::OpArg& arg) {
  auto value = std::make_shared<aicpu::AttrValue>();
  switch (arg.type) {
    case op::OpArgType::OPARG_BOOL:
      value->SetBool(arg.boolValue);
      value->SetInt(arg.boolValue ? 1 : 0);
      break;
    case op::OpArgType::OPARG_FLOAT:
    case op::OpArgType::OPARG_DOUBLE:
      value->SetFloat(arg.type == op::OpArgType::OPARG_FLOAT ? arg.floatValue : static_cast<float>(arg.doubleValue));
      break;
    case op::OpArgType::OPARG_ACLSCALAR:
      if (arg.pointer != nullptr) value->SetFloat(static_cast<const aclScalar*>(arg.pointer)->ToFloat());
      break;
    case op::OpArgType::OPARG_STRING:
      value->SetString(arg.stringValue);
      break;
    case op::OpArgType::OPARG_DATATYPE:
      value->SetDataType(static_cast<aicpu::DataType>(arg.dataType));
      value->SetInt(static_cast<int64_t>(arg.dataType));
      break;
    case op::OpArgType::OPARG_INT_LIST:
      if (arg.pointer != nullptr) {
        auto* array = static_cast<const aclIntArray*>(arg.pointer);
        value->SetListInt(std::vector<int64_t>(array->GetData(), array->GetData() + array->Size()));
      }
      break;
    case op::OpArgType::OPARG_FLOAT_LIST:
      if (arg.pointer != nullptr) {
        auto* array = static_cast<const aclFloatArray*>(arg.pointer);
        value->SetListFloat(std::vector<float>(array->GetData(), array->GetData() + array->Size()));
      }
      break;
    case op::OpArgType::OPARG_BOOL_LIST:
      if (arg.pointer != nullptr) {
        auto* array = static_cast<const aclBoolArray*>(arg.pointer);
        value->SetListBool(std::vector<bool>(array->GetData(), array->GetData() + array->Size()));
      }
      break;
    case op::OpArgType::OPARG_UINT:
      value->SetInt(static_cast<int64_t>(arg.uintValue));
      break;
    default:
      value->SetInt(arg.intValue);
      break;
  }
  return value;
}

class AicpuLaunchTask : public op::internal::LaunchTask {
 public:
  AicpuLaunchTask(std::string kernelType, LaunchOperands operands, std::vector<std::string> attrNames)
      : kernelType_(std::move(kernelType)), operands_(std::move(operands)), attrNames_(std::move(attrNames)) {}
  const char* Name() const override { return kernelType_.c_str(); }
  std::string Describe() const override {
    std::string names;
    for (const auto& name : attrNames_) names += (names.empty() ? "" : ",") + name;
    return kernelType_ + " aicpu attrs=" + names;
  }

  aclnnStatus Run(const op::internal::LaunchEnv& env) override {
    (void)env;
    std::shared_ptr<aicpu::CpuKernel> kernel = aicpu::CreateCpuKernel(kernelType_);
    if (kernel == nullptr) {
      LogError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, kernelType_, "AICPU kernel vanished from the registry.");
      return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
    }
    // The memory behind a tensor is checked where it is touched (aclCreateTensor takes any storage size).
    const std::string overrun = OperandOverrun(operands_);
    if (!overrun.empty()) {
      LogError(ACLNN_ERR_INNER, kernelType_, "GM_OUT_OF_BOUNDS: AICPU kernel " + overrun + ".");
      return ACLNN_ERR_INNER;
    }
    aicpu::CpuKernelContext ctx(aicpu::DEVICE);
    ctx.SetOpType(kernelType_);
    for (const aclTensor* input : operands_.inputs) ctx.AddInput(KernelTensor(input));
    for (const aclTensor* output : operands_.outputs) ctx.AddOutput(KernelTensor(output));
    for (size_t i = 0; i < attrNames_.size(); ++i) ctx.SetAttr(attrNames_[i], KernelAttr(operands_.attrs.args[i]));
    uint32_t status = aicpu::KERNEL_STATUS_OK;
    try {
      status = kernel->Compute(ctx);
    } catch (const std::exception& error) {
      LogError(ACLNN_ERR_INNER, kernelType_, std::string("AICPU kernel raised: ") + error.what());
      return ACLNN_ERR_INNER;
    }
    if (status != aicpu::KERNEL_STATUS_OK) {
      LogError(ACLNN_ERR_INNER, kernelType_, "AICPU kernel returned status " + std::to_string(status) + ".");
      return ACLNN_ERR_INNER;
    }
    return ACLNN_SUCCESS;
  }

 private:
  std::string kernelType_;
  LaunchOperands operands_;
  std::vector<std::string> attrNames_;
};

}  // namespace
}  // namespace acl
}  // namespace opgen_twin

namespace op {
namespace internal {

aclnnStatus CreatAicpuKernelLauncher(uint32_t opType, AicpuTaskSpace& space, aclOpExecutor* executor,
                                     const FVector<std::string>& attrNames, OpArgContext* args) {
  std::unique_ptr<OpArgContext> owned(args);
  const std::string type = space.GetOpType().empty() ? OpTypeName(opType) : space.GetOpType();
  if (executor == nullptr || args == nullptr) {
    opgen_twin::acl::LogError(ACLNN_ERR_INNER_NULLPTR, type, "executor or launch arguments are null.");
    return ACLNN_ERR_INNER_NULLPTR;
  }
  if (aicpu::CreateCpuKernel(type) == nullptr) {
    opgen_twin::acl::LogError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, type,
                              "no AICPU kernel is registered for this type (REGISTER_CPU_KERNEL).");
    return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
  }
  opgen_twin::acl::LaunchOperands operands;
  std::string error;
  if (!opgen_twin::acl::CollectOperands(*args, executor, operands, error)) {
    opgen_twin::acl::LogError(ACLNN_ERR_PARAM_INVALID, type, error);
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (attrNames.size() != operands.attrs.args.size()) {
    opgen_twin::acl::LogError(ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE, type,
                              std::to_string(attrNames.size()) + " attribute names for " +
                                  std::to_string(operands.attrs.args.size()) + " attribute values.");
    return ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE;
  }
  executor->AddLaunchTask(std::make_unique<opgen_twin::acl::AicpuLaunchTask>(
      type, std::move(operands), std::vector<std::string>(attrNames.begin(), attrNames.end())));
  return ACLNN_SUCCESS;
}

}  // namespace internal
}  // namespace op
