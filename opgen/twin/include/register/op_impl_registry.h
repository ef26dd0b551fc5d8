// IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE: op_host code registers its tiling, compile-info
// parse and shape/dtype inference functions per op type; the twin launcher looks them up.
#ifndef OPGEN_TWIN_REGISTER_OP_IMPL_REGISTRY_H_
#define OPGEN_TWIN_REGISTER_OP_IMPL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/ge_error_codes.h"

namespace gert {

using TilingKernelFunc = ge::graphStatus (*)(TilingContext*);
using TilingParseKernelFunc = ge::graphStatus (*)(TilingParseContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext*);
using CompileInfoCreator = std::function<std::shared_ptr<void>()>;

// Everything registered for one op type; unset members are null.
struct OpImplFunctions {
  TilingKernelFunc tiling = nullptr;
  TilingParseKernelFunc tilingParse = nullptr;
  CompileInfoCreator compileInfoCreator;
  InferShapeKernelFunc inferShape = nullptr;
  InferDataTypeKernelFunc inferDataType = nullptr;
};

// Builder returned by IMPL_OP_*; every setter records into the global registry.
class OpImplRegisterV2 {
 public:
  explicit OpImplRegisterV2(const char* opType);
  OpImplRegisterV2& Tiling(TilingKernelFunc tilingFunc, size_t maxTilingDataSize = 2048);
  template <typename CompileInfoT>
  OpImplRegisterV2& TilingParse(TilingParseKernelFunc parseFunc) {
    return SetTilingParse(parseFunc, [] { return std::shared_ptr<void>(std::make_shared<CompileInfoT>()); });
  }
  OpImplRegisterV2& InferShape(InferShapeKernelFunc inferShapeFunc);
  OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc inferDataTypeFunc);
  // Accepted for source compatibility; the twin has no graph-mode data dependency handling.
  OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> inputs);
  OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs);
  OpImplRegisterV2& InferShapeRange(void* func);
  OpImplRegisterV2& PrivateAttr(const char* name, int64_t value);
  OpImplRegisterV2& PrivateAttr(const char* name, float value);
  OpImplRegisterV2& PrivateAttr(const char* name, bool value);
  OpImplRegisterV2& PrivateAttr(const char* name, const char* value);

 private:
  OpImplRegisterV2& SetTilingParse(TilingParseKernelFunc parseFunc, CompileInfoCreator creator);
  std::string opType_;
};

// Twin lookup: the functions registered for opType, or nullptr.
const OpImplFunctions* FindOpImplFunctions(const std::string& opType);
// Tiling buffer capacity registered with Tiling(func, maxTilingDataSize) (default 2048).
size_t MaxTilingDataSize(const std::string& opType);

}  // namespace gert

#define OPGEN_TWIN_IMPL_OP_CONCAT_(a, b) a##b
#define OPGEN_TWIN_IMPL_OP_NAME_(op, counter) OPGEN_TWIN_IMPL_OP_CONCAT_(g_##op##_impl_register_, counter)
#define IMPL_OP(op_type)                                                                                 \
  static ::gert::OpImplRegisterV2 __attribute__((unused)) OPGEN_TWIN_IMPL_OP_NAME_(op_type, __COUNTER__) = \
      ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)

#endif  // OPGEN_TWIN_REGISTER_OP_IMPL_REGISTRY_H_
