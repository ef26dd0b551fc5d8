// OpDef emulation: op_host/<op>_def.cpp declares inputs, outputs, attributes and per-SoC AI Core
// configs exactly as for CANN; OP_ADD registers one instance per op type so the twin (and the
// tests, through the twin's query functions) can read the declaration back.
#ifndef OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H_
#define OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "register/op_impl_registry.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

enum class AttrValueKind { kUnset, kBool, kFloat, kInt, kString, kListBool, kListFloat, kListInt, kListListInt };

class OpParamDef {
 public:
  explicit OpParamDef(const char* name) : name_(name) {}
  OpParamDef& ParamType(Option paramType);
  OpParamDef& DataType(std::vector<ge::DataType> types);
  OpParamDef& DataTypeList(std::vector<ge::DataType> types);
  OpParamDef& Format(std::vector<ge::Format> formats);
  OpParamDef& FormatList(std::vector<ge::Format> formats);
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats);
  OpParamDef& ValueDepend(Option valueDepend);
  OpParamDef& IgnoreContiguous();
  OpParamDef& AutoContiguous();
  OpParamDef& Scalar();
  OpParamDef& ScalarList();
  OpParamDef& To(ge::DataType type);
  OpParamDef& To(const char* name);
  OpParamDef& Follow(const char* paramName);
  OpParamDef& OutputShapeDependOnCompute();
  OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType> types);
  OpParamDef& FormatForBinQuery(std::vector<ge::Format> formats);
  OpParamDef& InitValue(uint64_t value);
  OpParamDef& Comment(const char* comment);

  ge::AscendString& GetParamName() { return name_; }
  const std::string GetName() const { return name_.GetString(); }
  Option GetParamType() const { return paramType_; }
  const std::vector<ge::DataType>& GetDataTypes() const { return dataTypes_; }
  const std::vector<ge::Format>& GetFormats() const { return formats_; }
  const std::vector<ge::Format>& GetUnknownShapeFormats() const { return unknownShapeFormats_; }
  bool IsValueDepend() const { return valueDepend_ != IGNORE; }

 private:
  ge::AscendString name_;
  Option paramType_ = REQUIRED;
  Option valueDepend_ = IGNORE;
  std::vector<ge::DataType> dataTypes_;
  std::vector<ge::Format> formats_;
  std::vector<ge::Format> unknownShapeFormats_;
};

class OpAttrDef {
 public:
  explicit OpAttrDef(const char* name) : name_(name) {}
  OpAttrDef& AttrType(Option attrType);
  OpAttrDef& Bool();
  OpAttrDef& Bool(bool value);
  OpAttrDef& Float();
  OpAttrDef& Float(float value);
  OpAttrDef& Int();
  OpAttrDef& Int(int64_t value);
  OpAttrDef& String();
  OpAttrDef& String(const char* value);
  OpAttrDef& ListBool();
  OpAttrDef& ListBool(std::vector<bool> value);
  OpAttrDef& ListFloat();
  OpAttrDef& ListFloat(std::vector<float> value);
  OpAttrDef& ListInt();
  OpAttrDef& ListInt(std::vector<int64_t> value);
  OpAttrDef& ListListInt();
  OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> value);
  OpAttrDef& Version(uint32_t version);
  OpAttrDef& Comment(const char* comment);

  ge::AscendString& GetName() { return name_; }
  const std::string GetNameString() const { return name_.GetString(); }
  Option GetAttrType() const { return attrType_; }
  bool IsRequired() const { return attrType_ == REQUIRED; }
  AttrValueKind GetValueKind() const { return kind_; }
  bool HasDefault() const { return hasDefault_; }
  bool GetBoolDefault() const { return boolValue_; }
  float GetFloatDefault() const { return floatValue_; }
  int64_t GetIntDefault() const { return intValue_; }
  const std::string& GetStringDefault() const { return stringValue_; }
  const std::vector<bool>& GetListBoolDefault() const { return listBoolValue_; }
  const std::vector<float>& GetListFloatDefault() const { return listFloatValue_; }
  const std::vector<int64_t>& GetListIntDefault() const { return listIntValue_; }

 private:
  OpAttrDef& SetKind(AttrValueKind kind, bool hasDefault);
  ge::AscendString name_;
  Option attrType_ = REQUIRED;
  AttrValueKind kind_ = AttrValueKind::kUnset;
  bool hasDefault_ = false;
  bool boolValue_ = false;
  float floatValue_ = 0.0f;
  int64_t intValue_ = 0;
  std::string stringValue_;
  std::vector<bool> listBoolValue_;
  std::vector<float> listFloatValue_;
  std::vector<int64_t> listIntValue_;
  std::vector<std::vector<int64_t>> listListIntValue_;
};

// Per-SoC AI Core settings; Input/Output here override the OpDef's dtype/format lists.
class OpAICoreConfig {
 public:
  OpAICoreConfig() = default;
  explicit OpAICoreConfig(const char* socName) : socName_(socName == nullptr ? "" : socName) {}
  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAICoreConfig& DynamicCompileStaticFlag(bool flag);
  OpAICoreConfig& DynamicFormatFlag(bool flag);
  OpAICoreConfig& DynamicRankSupportFlag(bool flag);
  OpAICoreConfig& DynamicShapeSupportFlag(bool flag);
  OpAICoreConfig& NeedCheckSupportFlag(bool flag);
  OpAICoreConfig& PrecisionReduceFlag(bool flag);
  OpAICoreConfig& RangeLimitValue(const char* value);
  OpAICoreConfig& ExtendCfgInfo(const char* key, const char* value);

  const std::vector<OpParamDef>& GetInputs() const { return inputs_; }
  const std::vector<OpParamDef>& GetOutputs() const { return outputs_; }
  // Flag names ("dynamicCompileStatic", ...) and ExtendCfgInfo keys mapped to their values.
  const std::map<std::string, std::string>& GetCfgInfo() const { return cfgInfo_; }

 private:
  OpParamDef& FindOrAdd(std::vector<OpParamDef>& params, const char* name);
  std::string socName_;
  std::vector<OpParamDef> inputs_;
  std::vector<OpParamDef> outputs_;
  std::map<std::string, std::string> cfgInfo_;
};

class OpAICoreDef {
 public:
  OpAICoreDef& SetTiling(gert::TilingKernelFunc tilingFunc);
  OpAICoreDef& SetCheckSupport(void* func);
  OpAICoreDef& SetOpSelectFormat(void* func);
  OpAICoreDef& AddConfig(const char* soc);
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& config);
  const std::map<std::string, OpAICoreConfig>& GetAICoreConfigs() const { return configs_; }
  gert::TilingKernelFunc GetTiling() const { return tiling_; }

 private:
  gert::TilingKernelFunc tiling_ = nullptr;
  std::map<std::string, OpAICoreConfig> configs_;
};

class OpDef {
 public:
  explicit OpDef(const char* type) : opType_(type) {}
  virtual ~OpDef() = default;
  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAttrDef& Attr(const char* name);
  OpAICoreDef& AICore() { return aicore_; }
  OpDef& SetInferShape(gert::InferShapeKernelFunc func);
  OpDef& SetInferShapeRange(void* func);
  OpDef& SetInferDataType(gert::InferDataTypeKernelFunc func);
  OpDef& Comment(const char* comment);
  OpDef& EnableFallBack();

  ge::AscendString& GetOpType() { return opType_; }
  const std::string GetOpTypeString() const { return opType_.GetString(); }
  const std::vector<OpParamDef>& GetInputs() const { return inputs_; }
  const std::vector<OpParamDef>& GetOutputs() const { return outputs_; }
  const std::vector<OpAttrDef>& GetAttrs() const { return attrs_; }
  const OpAICoreDef& GetAICore() const { return aicore_; }

 private:
  ge::AscendString opType_;
  std::vector<OpParamDef> inputs_;
  std::vector<OpParamDef> outputs_;
  std::vector<OpAttrDef> attrs_;
  OpAICoreDef aicore_;
};

// Registration record made by OP_ADD.
struct OpDefRegister {
  OpDefRegister(const char* opType, std::unique_ptr<OpDef> (*creator)(const char*));
};

// Twin queries over everything OP_ADD registered.
const OpDef* FindOpDef(const std::string& opType);
std::vector<std::string> ListOpDefTypes();
// JSON description of every registered OpDef (inputs, outputs, attrs, dtype lists, SoC configs).
std::string OpDefRegistryToJson();

}  // namespace ops

#define OP_ADD(opType, ...)                                                                 \
  static std::unique_ptr<::ops::OpDef> Create##opType##OpDef(const char* name) {            \
    return std::unique_ptr<::ops::OpDef>(new opType(name));                                 \
  }                                                                                         \
  static ::ops::OpDefRegister g_##opType##_op_def_register(#opType, Create##opType##OpDef)

#endif  // OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H_
