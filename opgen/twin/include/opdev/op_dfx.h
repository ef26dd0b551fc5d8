// DFX macros of the aclnn layers: L2_DFX_PHASE_1 / L2_DFX_PHASE_2 (API entry, parameter check of
// workspaceSize/executor, log context), L0_DFX, and OP_TYPE_REGISTER (op type ids for launches).
// As on CANN the names are checked at compile time against the enclosing function.
#ifndef OPGEN_TWIN_OPDEV_OP_DFX_H_
#define OPGEN_TWIN_OPDEV_OP_DFX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "graph/ascend_string.h"
#include "opdev/format_utils.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_errno.h"

namespace op {

ge::AscendString ToString(const std::string& str);

constexpr bool ValidDfxName(char const* a, char const* b) { return std::string_view(a) == b; }

// Stable id for an op type name (OP_TYPE_REGISTER) and the name behind an id.
uint32_t GenOpTypeId(const char* opName);
const char* OpTypeName(uint32_t opTypeId);

aclnnStatus CheckPhase1Params(aclOpExecutor** executor, uint64_t* workspaceSize);
void DebugLogParams(const char* apiName, const char* inputs, const char* outputs);

}  // namespace op

void InitL2Phase1Context(const char* l2Name, aclOpExecutor** executor);
void InitL2Phase2Context(const char* l2Name, aclOpExecutor* executor);
void InitL0Context(const char* profilingName, aclOpExecutor* executor);

#define OP_TYPE_REGISTER(kernelName)                                            \
  [[maybe_unused]] uint32_t kernelName##_kernelName_Be_Defined_Multi_Times__;   \
  [[maybe_unused]] inline uint32_t kernelName##OpTypeId() {                     \
    kernelName##_kernelName_Be_Defined_Multi_Times__ = 0;                       \
    static uint32_t kernelName##OpTypeIdValue = ::op::GenOpTypeId(#kernelName); \
    return kernelName##OpTypeIdValue;                                           \
  }

#define DFX_IN(...) std::make_tuple(__VA_ARGS__)
#define DFX_OUT(...) std::make_tuple(__VA_ARGS__)

#define L2_DFX_PHASE_1(APIName, IN, OUT)                                                                          \
  static_assert(::op::ValidDfxName(#APIName "GetWorkspaceSize", __func__),                                       \
                "Invalid DFX:" #APIName "GetWorkspaceSize");                                                      \
  if (::op::CheckPhase1Params(executor, workspaceSize) != ACLNN_SUCCESS) {                                        \
    return ACLNN_ERR_PARAM_NULLPTR;                                                                               \
  }                                                                                                               \
  InitL2Phase1Context(#APIName, executor);                                                                        \
  [[maybe_unused]] auto opgenTwinDfxInputs = IN;                                                                    \
  [[maybe_unused]] auto opgenTwinDfxOutputs = OUT;                                                                  \
  ::op::DebugLogParams(#APIName, #IN, #OUT)

#define L2_DFX_PHASE_2(APIName)                                                              \
  static_assert(::op::ValidDfxName(#APIName, __func__), "Invalid L2 DFX name: " #APIName); \
  InitL2Phase2Context(#APIName, executor)

#define L0_DFX(profilingName, ...)                                                                       \
  static_assert(::op::ValidDfxName(#profilingName, __func__), "Invalid L0 DFX name: " #profilingName); \
  InitL0Context(#profilingName, executor);

#endif  // OPGEN_TWIN_OPDEV_OP_DFX_H_
