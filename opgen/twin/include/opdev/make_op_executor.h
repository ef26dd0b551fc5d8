// CREATE_EXECUTOR, INFER_SHAPE and ADD_TO_LAUNCHER_LIST_AICORE.
//
// ADD_TO_LAUNCHER_LIST_AICORE(OpType, OP_INPUT(...), OP_OUTPUT(...)[, OP_ATTR(...)]) runs the
// op's registered tiling now (phase 1, as CANN does, so the workspace size is known) and records
// a launch for phase 2 of the kernel its OpDef names ("opFile.value" of the SoC's AI Core config),
// else of the kernel named after OpType in snake_case.
#ifndef OPGEN_TWIN_OPDEV_MAKE_OP_EXECUTOR_H_
#define OPGEN_TWIN_OPDEV_MAKE_OP_EXECUTOR_H_

#include "opdev/op_arg_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/platform.h"

#ifndef CREATE_EXECUTOR
#define CREATE_EXECUTOR() UniqueExecutor(__func__)
#endif

// Takes ownership of args.
aclnnStatus CreatAiCoreKernelLauncher(const char* l0Name, uint32_t opType, aclOpExecutor* executor,
                                      op::OpArgContext* args);
// Runs the op's registered shape inference and writes the output tensors' shapes.
aclnnStatus InferShape(uint32_t opType, op::OpArgList& inputs, op::OpArgList& outputs, op::OpArgList& attrs);

namespace op {
namespace internal {
aclnnStatus InferShapeWithContext(uint32_t opType, OpArgContext* args);  // takes ownership of args
}  // namespace internal
}  // namespace op

#define INFER_SHAPE(KERNEL_NAME, ...) \
  ::op::internal::InferShapeWithContext(KERNEL_NAME##OpTypeId(), ::op::GetOpArgContext(__VA_ARGS__))

#define ADD_TO_LAUNCHER_LIST_AICORE(KERNEL_NAME, ...) \
  CreatAiCoreKernelLauncher(#KERNEL_NAME, KERNEL_NAME##OpTypeId(), executor, ::op::GetOpArgContext(__VA_ARGS__))

#endif  // OPGEN_TWIN_OPDEV_MAKE_OP_EXECUTOR_H_
