// AICPU launches: ADD_TO_LAUNCHER_LIST_AICPU(OpType, OP_ATTR_NAMES({...}), OP_INPUT(...),
// OP_OUTPUT(...)[, OP_ATTR(...)]) records a run of the CPU kernel registered for OpType with
// REGISTER_CPU_KERNEL; attributes reach it by name. A local
// `static op::internal::AicpuTaskSpace space("OpType")` must be in scope, as on CANN.
#ifndef OPGEN_TWIN_OPDEV_AICPU_AICPU_TASK_H_
#define OPGEN_TWIN_OPDEV_AICPU_AICPU_TASK_H_

#include <string>

#include "aclnn/aclnn_base.h"
#include "graph/types.h"
#include "opdev/fast_vector.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_executor.h"

namespace op {
namespace internal {

class AicpuTaskSpace {
 public:
  AicpuTaskSpace(const std::string& opType, const ge::UnknowShapeOpType unknownType = ge::DEPEND_IN_SHAPE,
                 const bool isTf = false)
      : opType_(opType), unknownType_(unknownType), isTf_(isTf) {}
  const std::string& GetOpType() const { return opType_; }
  bool IsTf() const { return isTf_; }
  ge::UnknowShapeOpType GetUnknownType() const { return unknownType_; }
  void SetRef(const size_t index, const bool isInput = true) { (void)index, (void)isInput; }

 private:
  std::string opType_;
  ge::UnknowShapeOpType unknownType_;
  bool isTf_;
};

// Takes ownership of args.
aclnnStatus CreatAicpuKernelLauncher(uint32_t opType, AicpuTaskSpace& space, aclOpExecutor* executor,
                                     const FVector<std::string>& attrNames, OpArgContext* args);

}  // namespace internal
}  // namespace op

#define OP_ATTR_NAMES ::op::FVector<std::string>

#define ADD_TO_LAUNCHER_LIST_AICPU(KERNEL_NAME, attrNames, ...)                                      \
  ::op::internal::CreatAicpuKernelLauncher(KERNEL_NAME##OpTypeId(), space, executor, attrNames, \
                                           ::op::GetOpArgContext(__VA_ARGS__))

#endif  // OPGEN_TWIN_OPDEV_AICPU_AICPU_TASK_H_
