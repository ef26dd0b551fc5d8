// OpDef builders, the OP_ADD registry and its JSON dump.
#include "register/op_def_registry.h"

#include <map>
#include <mutex>
#include <sstream>

#include "graph/utils/type_utils.h"

namespace ops {

OpParamDef& OpParamDef::ParamType(Option paramType) {
  paramType_ = paramType;
  return *this;
}
OpParamDef& OpParamDef::DataType(std::vector<ge::DataType> types) {
  dataTypes_ = std::move(types);
  return *this;
}
OpParamDef& OpParamDef::DataTypeList(std::vector<ge::DataType> types) { return DataType(std::move(types)); }
OpParamDef& OpParamDef::Format(std::vector<ge::Format> formats) {
  formats_ = std::move(formats);
  return *this;
}
OpParamDef& OpParamDef::FormatList(std::vector<ge::Format> formats) { return Format(std::move(formats)); }
OpParamDef& OpParamDef::UnknownShapeFormat(std::vector<ge::Format> formats) {
  unknownShapeFormats_ = std::move(formats);
  return *this;
}
OpParamDef& OpParamDef::ValueDepend(Option valueDepend) {
  valueDepend_ = valueDepend;
  return *this;
}
OpParamDef& OpParamDef::IgnoreContiguous() { return *this; }
OpParamDef& OpParamDef::AutoContiguous() { return *this; }
OpParamDef& OpParamDef::Scalar() { return *this; }
OpParamDef& OpParamDef::ScalarList() { return *this; }
OpParamDef& OpParamDef::To(ge::DataType type) {
  (void)type;
  return *this;
}
OpParamDef& OpParamDef::To(const char* name) {
  (void)name;
  return *this;
}
OpParamDef& OpParamDef::Follow(const char* paramName) {
  (void)paramName;
  return *this;
}
OpParamDef& OpParamDef::OutputShapeDependOnCompute() { return *this; }
OpParamDef& OpParamDef::DataTypeForBinQuery(std::vector<ge::DataType> types) {
  (void)types;
  return *this;
}
OpParamDef& OpParamDef::FormatForBinQuery(std::vector<ge::Format> formats) {
  (void)formats;
  return *this;
}
OpParamDef& OpParamDef::InitValue(uint64_t value) {
  (void)value;
  return *this;
}
OpParamDef& OpParamDef::Comment(const char* comment) {
  (void)comment;
  return *this;
}

OpAttrDef& OpAttrDef::AttrType(Option attrType) {
  attrType_ = attrType;
  return *this;
}
OpAttrDef& OpAttrDef::SetKind(AttrValueKind kind, bool hasDefault) {
  kind_ = kind;
  hasDefault_ = hasDefault;
  return *this;
}
OpAttrDef& OpAttrDef::Bool() { return SetKind(AttrValueKind::kBool, false); }
OpAttrDef& OpAttrDef::Bool(bool value) {
  boolValue_ = value;
  return SetKind(AttrValueKind::kBool, true);
}
OpAttrDef& OpAttrDef::Float() { return SetKind(AttrValueKind::kFloat, false); }
OpAttrDef& OpAttrDef::Float(float value) {
  floatValue_ = value;
  return SetKind(AttrValueKind::kFloat, true);
}
OpAttrDef& OpAttrDef::Int() { return SetKind(AttrValueKind::kInt, false); }
OpAttrDef& OpAttrDef::Int(int64_t value) {
  intValue_ = value;
  return SetKind(AttrValueKind::kInt, true);
}
OpAttrDef& OpAttrDef::String() { return SetKind(AttrValueKind::kString, false); }
OpAttrDef& OpAttrDef::String(const char* value) {
  stringValue_ = value == nullptr ? "" : value;
  return SetKind(AttrValueKind::kString, true);
}
OpAttrDef& OpAttrDef::ListBool() { return SetKind(AttrValueKind::kListBool, false); }
OpAttrDef& OpAttrDef::ListBool(std::vector<bool> value) {
  listBoolValue_ = std::move(value);
  return SetKind(AttrValueKind::kListBool, true);
}
OpAttrDef& OpAttrDef::ListFloat() { return SetKind(AttrValueKind::kListFloat, false); }
OpAttrDef& OpAttrDef::ListFloat(std::vector<float> value) {
  listFloatValue_ = std::move(value);
  return SetKind(AttrValueKind::kListFloat, true);
}
OpAttrDef& OpAttrDef::ListInt() { return SetKind(AttrValueKind::kListInt, false); }
OpAttrDef& OpAttrDef::ListInt(std::vector<int64_t> value) {
  listIntValue_ = std::move(value);
  return SetKind(AttrValueKind::kListInt, true);
}
OpAttrDef& OpAttrDef::ListListInt() { return SetKind(AttrValueKind::kListListInt, false); }
OpAttrDef& OpAttrDef::ListListInt(std::vector<std::vector<int64_t>> value) {
  listListIntValue_ = std::move(value);
  return SetKind(AttrValueKind::kListListInt, true);
}
OpAttrDef& OpAttrDef::Version(uint32_t version) {
  (void)version;
  return *this;
}
OpAttrDef& OpAttrDef::Comment(const char* comment) {
  (void)comment;
  return *this;
}

OpParamDef& OpAICoreConfig::FindOrAdd(std::vector<OpParamDef>& params, const char* name) {
  for (auto& param : params) {
    if (param.GetName() == name) return param;
  }
  params.emplace_back(name);
  return params.back();
}
OpParamDef& OpAICoreConfig::Input(const char* name) { return FindOrAdd(inputs_, name); }
OpParamDef& OpAICoreConfig::Output(const char* name) { return FindOrAdd(outputs_, name); }
OpAICoreConfig& OpAICoreConfig::DynamicCompileStaticFlag(bool flag) {
  cfgInfo_["dynamicCompileStatic.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::DynamicFormatFlag(bool flag) {
  cfgInfo_["dynamicFormat.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::DynamicRankSupportFlag(bool flag) {
  cfgInfo_["dynamicRankSupport.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::DynamicShapeSupportFlag(bool flag) {
  cfgInfo_["dynamicShapeSupport.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::NeedCheckSupportFlag(bool flag) {
  cfgInfo_["needCheckSupport.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::PrecisionReduceFlag(bool flag) {
  cfgInfo_["precision_reduce.flag"] = flag ? "true" : "false";
  return *this;
}
OpAICoreConfig& OpAICoreConfig::RangeLimitValue(const char* value) {
  cfgInfo_["rangeLimit.value"] = value == nullptr ? "" : value;
  return *this;
}
OpAICoreConfig& OpAICoreConfig::ExtendCfgInfo(const char* key, const char* value) {
  cfgInfo_[key == nullptr ? "" : key] = value == nullptr ? "" : value;
  return *this;
}

OpAICoreDef& OpAICoreDef::SetTiling(gert::TilingKernelFunc tilingFunc) {
  tiling_ = tilingFunc;
  return *this;
}
OpAICoreDef& OpAICoreDef::SetCheckSupport(void* func) {
  (void)func;
  return *this;
}
OpAICoreDef& OpAICoreDef::SetOpSelectFormat(void* func) {
  (void)func;
  return *this;
}
OpAICoreDef& OpAICoreDef::AddConfig(const char* soc) {
  OpAICoreConfig config(soc);
  return AddConfig(soc, config);
}
OpAICoreDef& OpAICoreDef::AddConfig(const char* soc, OpAICoreConfig& config) {
  configs_[soc == nullptr ? "" : soc] = config;
  return *this;
}

namespace {
OpParamDef& FindOrAddParam(std::vector<OpParamDef>& params, const char* name) {
  for (auto& param : params) {
    if (param.GetName() == name) return param;
  }
  params.emplace_back(name);
  return params.back();
}
}  // namespace

OpParamDef& OpDef::Input(const char* name) { return FindOrAddParam(inputs_, name); }
OpParamDef& OpDef::Output(const char* name) { return FindOrAddParam(outputs_, name); }
OpAttrDef& OpDef::Attr(const char* name) {
  for (auto& attr : attrs_) {
    if (attr.GetNameString() == name) return attr;
  }
  attrs_.emplace_back(name);
  return attrs_.back();
}
OpDef& OpDef::SetInferShape(gert::InferShapeKernelFunc func) {
  gert::OpImplRegisterV2(opType_.GetString()).InferShape(func);
  return *this;
}
OpDef& OpDef::SetInferShapeRange(void* func) {
  (void)func;
  return *this;
}
OpDef& OpDef::SetInferDataType(gert::InferDataTypeKernelFunc func) {
  gert::OpImplRegisterV2(opType_.GetString()).InferDataType(func);
  return *this;
}
OpDef& OpDef::Comment(const char* comment) {
  (void)comment;
  return *this;
}
OpDef& OpDef::EnableFallBack() { return *this; }

namespace {
struct OpDefTable {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<OpDef>> defs;
};
OpDefTable& Table() {
  static auto* table = new OpDefTable();
  return *table;
}

std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const char* OptionName(Option option) {
  switch (option) {
    case IGNORE:
      return "IGNORE";
    case OPTIONAL:
      return "OPTIONAL";
    case REQUIRED:
      return "REQUIRED";
    case DYNAMIC:
      return "DYNAMIC";
    default:
      return "VIRTUAL";
  }
}

const char* KindName(AttrValueKind kind) {
  switch (kind) {
    case AttrValueKind::kBool:
      return "Bool";
    case AttrValueKind::kFloat:
      return "Float";
    case AttrValueKind::kInt:
      return "Int";
    case AttrValueKind::kString:
      return "String";
    case AttrValueKind::kListBool:
      return "ListBool";
    case AttrValueKind::kListFloat:
      return "ListFloat";
    case AttrValueKind::kListInt:
      return "ListInt";
    case AttrValueKind::kListListInt:
      return "ListListInt";
    default:
      return "Unset";
  }
}

void ParamsToJson(std::ostringstream& out, const std::vector<OpParamDef>& params) {
  out << "[";
  for (size_t i = 0; i < params.size(); ++i) {
    const OpParamDef& p = params[i];
    out << (i == 0 ? "" : ",") << "{\"name\":" << Quote(p.GetName()) << ",\"param_type\":\""
        << OptionName(p.GetParamType()) << "\",\"dtypes\":[";
    for (size_t j = 0; j < p.GetDataTypes().size(); ++j) {
      out << (j == 0 ? "" : ",") << Quote(ge::TypeUtils::DataTypeToSerialString(p.GetDataTypes()[j]));
    }
    out << "],\"formats\":[";
    for (size_t j = 0; j < p.GetFormats().size(); ++j) {
      out << (j == 0 ? "" : ",") << Quote(ge::TypeUtils::FormatToSerialString(p.GetFormats()[j]));
    }
    out << "],\"unknown_shape_formats\":[";
    for (size_t j = 0; j < p.GetUnknownShapeFormats().size(); ++j) {
      out << (j == 0 ? "" : ",") << Quote(ge::TypeUtils::FormatToSerialString(p.GetUnknownShapeFormats()[j]));
    }
    out << "],\"value_depend\":" << (p.IsValueDepend() ? "true" : "false") << "}";
  }
  out << "]";
}

void AttrDefaultToJson(std::ostringstream& out, const OpAttrDef& a) {
  if (!a.HasDefault()) {
    out << "null";
    return;
  }
  switch (a.GetValueKind()) {
    case AttrValueKind::kBool:
      out << (a.GetBoolDefault() ? "true" : "false");
      break;
    case AttrValueKind::kFloat: {
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(a.GetFloatDefault()));
      out << buffer;
      break;
    }
    case AttrValueKind::kInt:
      out << a.GetIntDefault();
      break;
    case AttrValueKind::kString:
      out << Quote(a.GetStringDefault());
      break;
    case AttrValueKind::kListInt: {
      out << "[";
      for (size_t i = 0; i < a.GetListIntDefault().size(); ++i) out << (i == 0 ? "" : ",") << a.GetListIntDefault()[i];
      out << "]";
      break;
    }
    case AttrValueKind::kListFloat: {
      out << "[";
      for (size_t i = 0; i < a.GetListFloatDefault().size(); ++i) {
        out << (i == 0 ? "" : ",") << a.GetListFloatDefault()[i];
      }
      out << "]";
      break;
    }
    case AttrValueKind::kListBool: {
      out << "[";
      for (size_t i = 0; i < a.GetListBoolDefault().size(); ++i) {
        out << (i == 0 ? "" : ",") << (a.GetListBoolDefault()[i] ? "true" : "false");
      }
      out << "]";
      break;
    }
    default:
      out << "null";
      break;
  }
}
}  // namespace

OpDefRegister::OpDefRegister(const char* opType, std::unique_ptr<OpDef> (*creator)(const char*)) {
  std::unique_ptr<OpDef> def = creator(opType);
  std::lock_guard<std::mutex> lock(Table().mutex);
  Table().defs[opType] = std::move(def);
}

const OpDef* FindOpDef(const std::string& opType) {
  std::lock_guard<std::mutex> lock(Table().mutex);
  auto it = Table().defs.find(opType);
  return it == Table().defs.end() ? nullptr : it->second.get();
}

std::vector<std::string> ListOpDefTypes() {
  std::lock_guard<std::mutex> lock(Table().mutex);
  std::vector<std::string> types;
  for (const auto& entry : Table().defs) types.push_back(entry.first);
  return types;
}

std::string OpDefRegistryToJson() {
  std::lock_guard<std::mutex> lock(Table().mutex);
  std::ostringstream out;
  out << "{";
  bool firstOp = true;
  for (const auto& entry : Table().defs) {
    const OpDef& def = *entry.second;
    out << (firstOp ? "" : ",") << Quote(entry.first) << ":{\"inputs\":";
    firstOp = false;
    ParamsToJson(out, def.GetInputs());
    out << ",\"outputs\":";
    ParamsToJson(out, def.GetOutputs());
    out << ",\"attrs\":[";
    for (size_t i = 0; i < def.GetAttrs().size(); ++i) {
      const OpAttrDef& a = def.GetAttrs()[i];
      out << (i == 0 ? "" : ",") << "{\"name\":" << Quote(a.GetNameString()) << ",\"attr_type\":\""
          << OptionName(a.GetAttrType()) << "\",\"kind\":\"" << KindName(a.GetValueKind()) << "\",\"default\":";
      AttrDefaultToJson(out, a);
      out << "}";
    }
    out << "],\"aicore_configs\":{";
    bool firstSoc = true;
    for (const auto& config : def.GetAICore().GetAICoreConfigs()) {
      out << (firstSoc ? "" : ",") << Quote(config.first) << ":{\"cfg\":{";
      firstSoc = false;
      bool firstCfg = true;
      for (const auto& item : config.second.GetCfgInfo()) {
        out << (firstCfg ? "" : ",") << Quote(item.first) << ":" << Quote(item.second);
        firstCfg = false;
      }
      out << "},\"inputs\":";
      ParamsToJson(out, config.second.GetInputs());
      out << ",\"outputs\":";
      ParamsToJson(out, config.second.GetOutputs());
      out << "}";
    }
    out << "}}";
  }
  out << "}";
  return out.str();
}

}  // namespace ops
