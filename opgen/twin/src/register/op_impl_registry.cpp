// Registry behind IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE.
#include "register/op_impl_registry.h"

#include <map>
#include <mutex>

namespace gert {
namespace {
struct ImplTable {
  std::mutex mutex;
  std::map<std::string, OpImplFunctions> functions;
  std::map<std::string, size_t> maxTilingDataSize;
};
ImplTable& Table() {
  static auto* table = new ImplTable();
  return *table;
}
template <typename Mutation>
void Update(const std::string& opType, Mutation update) {
  std::lock_guard<std::mutex> lock(Table().mutex);
  update(Table().functions[opType]);
}
}  // namespace

OpImplRegisterV2::OpImplRegisterV2(const char* opType) : opType_(opType == nullptr ? "" : opType) {}

OpImplRegisterV2& OpImplRegisterV2::Tiling(TilingKernelFunc tilingFunc, size_t maxTilingDataSize) {
  Update(opType_, [&](OpImplFunctions& f) { f.tiling = tilingFunc; });
  std::lock_guard<std::mutex> lock(Table().mutex);
  Table().maxTilingDataSize[opType_] = maxTilingDataSize;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::SetTilingParse(TilingParseKernelFunc parseFunc, CompileInfoCreator creator) {
  Update(opType_, [&](OpImplFunctions& f) {
    f.tilingParse = parseFunc;
    f.compileInfoCreator = std::move(creator);
  });
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::InferShape(InferShapeKernelFunc inferShapeFunc) {
  Update(opType_, [&](OpImplFunctions& f) { f.inferShape = inferShapeFunc; });
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::InferDataType(InferDataTypeKernelFunc inferDataTypeFunc) {
  Update(opType_, [&](OpImplFunctions& f) { f.inferDataType = inferDataTypeFunc; });
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::InputsDataDependency(std::initializer_list<int32_t> inputs) {
  (void)inputs;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::TilingInputsDataDependency(std::initializer_list<int32_t> inputs) {
  (void)inputs;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::InferShapeRange(void* func) {
  (void)func;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::PrivateAttr(const char* name, int64_t value) {
  (void)name, (void)value;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::PrivateAttr(const char* name, float value) {
  (void)name, (void)value;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::PrivateAttr(const char* name, bool value) {
  (void)name, (void)value;
  return *this;
}
OpImplRegisterV2& OpImplRegisterV2::PrivateAttr(const char* name, const char* value) {
  (void)name, (void)value;
  return *this;
}

const OpImplFunctions* FindOpImplFunctions(const std::string& opType) {
  std::lock_guard<std::mutex> lock(Table().mutex);
  auto it = Table().functions.find(opType);
  return it == Table().functions.end() ? nullptr : &it->second;
}

size_t MaxTilingDataSize(const std::string& opType) {
  std::lock_guard<std::mutex> lock(Table().mutex);
  auto it = Table().maxTilingDataSize.find(opType);
  return it == Table().maxTilingDataSize.end() ? 2048 : it->second;
}

}  // namespace gert
