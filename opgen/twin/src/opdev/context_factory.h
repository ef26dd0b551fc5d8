// Builds the gert contexts (tiling, tiling-parse, infershape) an op_host function receives from
// the operands of an L0 launch; attributes are typed by the op's OpDef when one is registered.
#ifndef OPGEN_TWIN_SRC_ACL_CONTEXT_FACTORY_H_
#define OPGEN_TWIN_SRC_ACL_CONTEXT_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_executor.h"

namespace opgen_twin {
namespace acl {

// Launch operands with tensor lists flattened and host scalars/arrays turned into tensors.
struct LaunchOperands {
  std::vector<const aclTensor*> inputs;  // nullptr: absent optional input
  std::vector<const aclTensor*> outputs;
  op::OpArgList attrs;
};

// False (with error set) if an argument cannot be a tensor operand.
bool CollectOperands(op::OpArgContext& args, aclOpExecutor* executor, LaunchOperands& operands, std::string& error);

// "reads <overrun>" / "writes <overrun>" for the first operand whose elements reach past its device buffer
// (see ViewOverrun), else "": a launch checks what its kernel may touch when it runs, not at creation.
std::string OperandOverrun(const LaunchOperands& operands);

class ContextFactory {
 public:
  static std::unique_ptr<gert::TilingContext> MakeTiling(const std::string& opType, const LaunchOperands& operands,
                                                         size_t tilingCapacity, const void* compileInfo);
  static std::unique_ptr<gert::TilingParseContext> MakeTilingParse(const std::string& opType, void* compileInfo);
  static std::unique_ptr<gert::InferShapeContext> MakeInferShape(const std::string& opType,
                                                                 const LaunchOperands& operands);
  // Output shapes inferred into ctx, written to the output tensors (view, origin and storage).
  static void ApplyInferredShapes(gert::InferShapeContext& ctx, const LaunchOperands& operands);

 private:
  static void FillNode(gert::ExtendedKernelContext& ctx, const std::string& opType, const LaunchOperands& operands);
};

// Kernel entry name of an op type, CANN's default: LeakyReluGrad -> leaky_relu_grad.
std::string KernelNameOf(const std::string& opType);
// The kernel entry an op launches on the current SoC: the "opFile.value" its OpDef's AI Core config
// for that SoC names (ops-nn sets it where the directory is not the snake_case OpType, e.g. SoftShrink in
// softshrink/), else KernelNameOf(opType).
std::string KernelEntryOf(const std::string& opType);

}  // namespace acl
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_SRC_ACL_CONTEXT_FACTORY_H_
