// ADD_TO_LAUNCHER_LIST_AICORE and INFER_SHAPE: phase 1 runs the op's registered tiling (and
// compile-info parse) on the launch operands, phase 2 calls the kernel through
// opgen_twin::LaunchKernel with {inputs..., outputs..., workspace, tiling}. Kernel check failures
// come back as ACLNN_ERR_INNER with the check's message logged.
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "context_factory.h"
#include "../acl/device_memory.h"
#include "opdev/make_op_executor.h"
#include "opgen_twin/check.h"
#include "opgen_twin/kernel_registry.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "../tiling/platform/twin_platform.h"

namespace opgen_twin {
namespace acl {
namespace {

constexpr uint32_t kMaxBlockDim = 65535;

void LogError(int code, const std::string& opType, const std::string& message) {
  log::LogWithCode(log::kError, "aicore_launcher.cpp", 0, opType.c_str(), code, "%s", message.c_str());
}

// Compile info per (op type, SoC), created and parsed once as CANN does at op load.
aclnnStatus CompileInfoFor(const std::string& opType, const gert::OpImplFunctions& impl, const void** compileInfo) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, std::shared_ptr<void>>();
  *compileInfo = nullptr;
  if (!impl.compileInfoCreator) return ACLNN_SUCCESS;
  std::string key = opType + "@" + CurrentPlatform().socName;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(key);
  if (it == cache->end()) {
    std::shared_ptr<void> info = impl.compileInfoCreator();
    if (impl.tilingParse != nullptr) {
      auto parse = ContextFactory::MakeTilingParse(opType, info.get());
      if (impl.tilingParse(parse.get()) != ge::GRAPH_SUCCESS) {
        LogError(ACLNN_ERR_INNER_TILING_ERROR, opType, "TilingParse (compile info preparation) failed.");
        return ACLNN_ERR_INNER_TILING_ERROR;
      }
    }
    it = cache->emplace(key, std::move(info)).first;
  }
  *compileInfo = it->second.get();
  return ACLNN_SUCCESS;
}

class AiCoreLaunchTask : public op::internal::LaunchTask {
 public:
  AiCoreLaunchTask(std::string opType, std::string kernelName, LaunchOperands operands, uint32_t blockDim,
                   uint64_t tilingKey, std::vector<uint8_t> tiling, uint64_t workspaceOffset, uint64_t workspaceBytes)
      : opType_(std::move(opType)),
        kernelName_(std::move(kernelName)),
        operands_(std::move(operands)),
        blockDim_(blockDim),
        tilingKey_(tilingKey),
        tiling_(std::move(tiling)),
        workspaceOffset_(workspaceOffset),
        workspaceBytes_(workspaceBytes) {}

  const char* Name() const override { return opType_.c_str(); }

  std::string Describe() const override {
    static const char* kHex = "0123456789abcdef";
    std::string tiling;
    for (uint8_t byte : tiling_) {
      tiling += kHex[byte >> 4];
      tiling += kHex[byte & 15];
    }
    return opType_ + " aicore kernel=" + kernelName_ + " blockDim=" + std::to_string(blockDim_) +
           " tilingKey=" + std::to_string(tilingKey_) + " workspace=" + std::to_string(workspaceBytes_) +
           " tiling=" + tiling;
  }

  aclnnStatus Run(const op::internal::LaunchEnv& env) override {
    // A kernel may touch every element of its operands: memory their storage lacks (aclCreateTensor takes
    // any storage size, as CANN's does) is a fault of this launch. Inside the kernel, each GM access is
    // checked against its buffer as well.
    const std::string overrun = OperandOverrun(operands_);
    if (!overrun.empty()) {
      LogError(ACLNN_ERR_INNER, opType_, "GM_OUT_OF_BOUNDS: kernel " + kernelName_ + " " + overrun + ".");
      return ACLNN_ERR_INNER;
    }
    std::vector<uint8_t*> args;
    for (const aclTensor* input : operands_.inputs) args.push_back(AddressOf(input));
    for (const aclTensor* output : operands_.outputs) args.push_back(AddressOf(output));
    args.push_back(workspaceBytes_ > 0 ? env.workspace + workspaceOffset_ : nullptr);
    // The tiling blob lives in device memory, as the runtime copies it to GM before a launch.
    void* tiling = AllocateDeviceBuffer(tiling_.empty() ? 1 : tiling_.size());
    if (tiling == nullptr) return ACLNN_ERR_INNER;
    if (!tiling_.empty()) std::memcpy(tiling, tiling_.data(), tiling_.size());
    args.push_back(static_cast<uint8_t*>(tiling));

    aclnnStatus status = ACLNN_SUCCESS;
    FailureMode previous = GetFailureMode();
    SetFailureMode(FailureMode::kThrow);
    try {
      LaunchKernel(kernelName_.c_str(), blockDim_, tilingKey_, args);
    } catch (const CheckError& error) {
      LogError(ACLNN_ERR_INNER, opType_,
               std::string("kernel ") + kernelName_ + " failed a twin check: " + error.what());
      status = ACLNN_ERR_INNER;
    } catch (const std::exception& error) {
      LogError(ACLNN_ERR_INNER, opType_, std::string("kernel ") + kernelName_ + " raised: " + error.what());
      status = ACLNN_ERR_INNER;
    }
    SetFailureMode(previous);
    FreeDeviceBuffer(tiling);
    return status;
  }

 private:
  static uint8_t* AddressOf(const aclTensor* tensor) {
    return tensor == nullptr ? nullptr : static_cast<uint8_t*>(tensor->GetViewAddr());
  }

  std::string opType_;
  std::string kernelName_;
  LaunchOperands operands_;
  uint32_t blockDim_;
  uint64_t tilingKey_;
  std::vector<uint8_t> tiling_;
  uint64_t workspaceOffset_;
  uint64_t workspaceBytes_;
};

}  // namespace
}  // namespace acl
}  // namespace opgen_twin

using opgen_twin::acl::CollectOperands;
using opgen_twin::acl::ContextFactory;
using opgen_twin::acl::LaunchOperands;
using opgen_twin::acl::LogError;

aclnnStatus CreatAiCoreKernelLauncher(const char* l0Name, uint32_t opType, aclOpExecutor* executor,
                                      op::OpArgContext* args) {
  std::unique_ptr<op::OpArgContext> owned(args);
  const std::string type = op::OpTypeName(opType);
  if (executor == nullptr || args == nullptr) {
    LogError(ACLNN_ERR_INNER_NULLPTR, type, "executor or launch arguments are null.");
    return ACLNN_ERR_INNER_NULLPTR;
  }
  (void)l0Name;
  LaunchOperands operands;
  std::string error;
  if (!CollectOperands(*args, executor, operands, error)) {
    LogError(ACLNN_ERR_PARAM_INVALID, type, error);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const std::string kernelName = opgen_twin::acl::KernelEntryOf(type);
  if (!opgen_twin::HasKernel(kernelName.c_str())) {
    LogError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, type, "no AI Core kernel named " + kernelName + " is registered.");
    return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
  }
  const gert::OpImplFunctions* registered = gert::FindOpImplFunctions(type);
  gert::OpImplFunctions impl = registered != nullptr ? *registered : gert::OpImplFunctions();
  // Older op_host code registers tiling through OpDef: this->AICore().SetTiling(fn).
  const ops::OpDef* def = ops::FindOpDef(type);
  if (impl.tiling == nullptr && def != nullptr) impl.tiling = def->GetAICore().GetTiling();
  if (impl.tiling == nullptr) {
    LogError(ACLNN_ERR_INNER_TILING_ERROR, type,
             "no tiling function is registered (IMPL_OP_OPTILING or AICore().SetTiling).");
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  const void* compileInfo = nullptr;
  aclnnStatus status = opgen_twin::acl::CompileInfoFor(type, impl, &compileInfo);
  if (status != ACLNN_SUCCESS) return status;

  auto context = ContextFactory::MakeTiling(type, operands, gert::MaxTilingDataSize(type), compileInfo);
  if (impl.tiling(context.get()) != ge::GRAPH_SUCCESS) {
    LogError(ACLNN_ERR_INNER_TILING_ERROR, type, "tiling function returned failure.");
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  const uint32_t blockDim = context->GetBlockDim();
  if (blockDim == 0 || blockDim > opgen_twin::acl::kMaxBlockDim) {
    LogError(ACLNN_ERR_INNER_TILING_ERROR, type, "tiling set block dim " + std::to_string(blockDim) +
                                                     " (must be 1.." + std::to_string(opgen_twin::acl::kMaxBlockDim) +
                                                     ").");
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  gert::TilingData* raw = context->GetRawTilingData();
  if (raw->GetDataSize() > raw->GetCapacity()) {
    LogError(ACLNN_ERR_INNER_TILING_ERROR, type, "tiling data size exceeds the buffer capacity.");
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  const auto* bytes = static_cast<const uint8_t*>(raw->GetData());
  std::vector<uint8_t> tiling(bytes, bytes + raw->GetDataSize());
  uint64_t workspaceBytes = 0;
  for (size_t i = 0; i < context->GetWorkspaceNum(); ++i) workspaceBytes += context->GetWorkspaceSizes(0)[i];
  uint64_t workspaceOffset = executor->ReserveKernelWorkspace(workspaceBytes);
  executor->AddLaunchTask(std::make_unique<opgen_twin::acl::AiCoreLaunchTask>(
      type, kernelName, std::move(operands), blockDim, context->GetTilingKey(), std::move(tiling), workspaceOffset,
      workspaceBytes));
  return ACLNN_SUCCESS;
}

namespace op {
namespace internal {

aclnnStatus InferShapeWithContext(uint32_t opType, OpArgContext* args) {
  std::unique_ptr<OpArgContext> owned(args);
  const std::string type = OpTypeName(opType);
  const gert::OpImplFunctions* impl = gert::FindOpImplFunctions(type);
  if (impl == nullptr || impl->inferShape == nullptr) {
    LogError(ACLNN_ERR_INNER_INFERSHAPE_ERROR, type, "no InferShape function is registered (IMPL_OP_INFERSHAPE).");
    return ACLNN_ERR_INNER_INFERSHAPE_ERROR;
  }
  LaunchOperands operands;
  std::string error;
  // Host tensors for scalar/array inputs would need an executor; shape inference takes tensors.
  if (!CollectOperands(*args, nullptr, operands, error)) {
    LogError(ACLNN_ERR_INNER_INFERSHAPE_ERROR, type, error);
    return ACLNN_ERR_INNER_INFERSHAPE_ERROR;
  }
  auto context = ContextFactory::MakeInferShape(type, operands);
  if (impl->inferShape(context.get()) != ge::GRAPH_SUCCESS) {
    LogError(ACLNN_ERR_INNER_INFERSHAPE_ERROR, type, "InferShape function returned failure.");
    return ACLNN_ERR_INNER_INFERSHAPE_ERROR;
  }
  ContextFactory::ApplyInferredShapes(*context, operands);
  return ACLNN_SUCCESS;
}

}  // namespace internal
}  // namespace op

aclnnStatus InferShape(uint32_t opType, op::OpArgList& inputs, op::OpArgList& outputs, op::OpArgList& attrs) {
  auto* args = new op::OpArgContext();
  args->argLists[op::OP_INPUT_ARG] = inputs;
  args->argLists[op::OP_OUTPUT_ARG] = outputs;
  args->argLists[op::OP_ATTR_ARG] = attrs;
  return op::internal::InferShapeWithContext(opType, args);
}
