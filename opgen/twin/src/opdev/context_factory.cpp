#include "context_factory.h"

#include <cctype>

#include "../acl/device_memory.h"
#include "register/op_def_registry.h"
#include "../tiling/platform/twin_platform.h"

namespace opgen_twin {
namespace acl {
namespace {

gert::CompileTimeTensorDesc DescOf(const aclTensor* tensor) {
  if (tensor == nullptr) return gert::CompileTimeTensorDesc();
  return gert::CompileTimeTensorDesc(tensor->GetDataType(),
                                     gert::StorageFormat(tensor->GetOriginalFormat(), tensor->GetStorageFormat()));
}

gert::StorageShape ShapeOf(const aclTensor* tensor) {
  if (tensor == nullptr) return gert::StorageShape();
  // Launch operands are contiguous ND tensors: the view shape is both origin and storage shape.
  return gert::StorageShape(tensor->GetViewShape(), tensor->GetViewShape());
}

double NumberOf(const op::OpArg& arg) {
  switch (arg.type) {
    case op::OpArgType::OPARG_BOOL:
      return arg.boolValue ? 1.0 : 0.0;
    case op::OpArgType::OPARG_INT:
      return static_cast<double>(arg.intValue);
    case op::OpArgType::OPARG_UINT:
    case op::OpArgType::OPARG_IMPLMODE:
      return static_cast<double>(arg.uintValue);
    case op::OpArgType::OPARG_FLOAT:
      return arg.floatValue;
    case op::OpArgType::OPARG_DOUBLE:
      return arg.doubleValue;
    case op::OpArgType::OPARG_DATATYPE:
      return static_cast<double>(arg.dataType);
    case op::OpArgType::OPARG_ACLSCALAR:
      return arg.pointer == nullptr ? 0.0 : static_cast<const aclScalar*>(arg.pointer)->ToDouble();
    default:
      return 0.0;
  }
}

int64_t IntegerOf(const op::OpArg& arg) {
  switch (arg.type) {
    case op::OpArgType::OPARG_INT:
      return arg.intValue;
    case op::OpArgType::OPARG_UINT:
    case op::OpArgType::OPARG_IMPLMODE:
      return static_cast<int64_t>(arg.uintValue);
    default:
      return static_cast<int64_t>(NumberOf(arg));
  }
}

std::vector<int64_t> IntListOf(const op::OpArg& arg) {
  if (arg.type != op::OpArgType::OPARG_INT_LIST || arg.pointer == nullptr) return {};
  auto* array = static_cast<const aclIntArray*>(arg.pointer);
  return std::vector<int64_t>(array->GetData(), array->GetData() + array->Size());
}

std::vector<float> FloatListOf(const op::OpArg& arg) {
  if (arg.type != op::OpArgType::OPARG_FLOAT_LIST || arg.pointer == nullptr) return {};
  auto* array = static_cast<const aclFloatArray*>(arg.pointer);
  return std::vector<float>(array->GetData(), array->GetData() + array->Size());
}

// Appends arg as the OpDef declares the attribute (its default when arg is missing).
void AppendTyped(gert::RuntimeAttrs& attrs, const ops::OpAttrDef& def, const op::OpArg* arg) {
  switch (def.GetValueKind()) {
    case ops::AttrValueKind::kBool:
      attrs.AppendBool(arg != nullptr ? NumberOf(*arg) != 0.0 : def.GetBoolDefault());
      break;
    case ops::AttrValueKind::kInt:
      attrs.AppendInt(arg != nullptr ? IntegerOf(*arg) : def.GetIntDefault());
      break;
    case ops::AttrValueKind::kString:
      attrs.AppendStr(arg != nullptr ? arg->stringValue : def.GetStringDefault());
      break;
    case ops::AttrValueKind::kListInt:
      attrs.AppendListInt(arg != nullptr ? IntListOf(*arg) : def.GetListIntDefault());
      break;
    case ops::AttrValueKind::kListFloat:
      attrs.AppendListFloat(arg != nullptr ? FloatListOf(*arg) : def.GetListFloatDefault());
      break;
    default:  // Float and anything unset
      attrs.AppendFloat(arg != nullptr ? static_cast<float>(NumberOf(*arg)) : def.GetFloatDefault());
      break;
  }
}

// Without an OpDef the argument's own type decides.
void AppendUntyped(gert::RuntimeAttrs& attrs, const op::OpArg& arg) {
  switch (arg.type) {
    case op::OpArgType::OPARG_BOOL:
      attrs.AppendBool(arg.boolValue);
      break;
    case op::OpArgType::OPARG_FLOAT:
    case op::OpArgType::OPARG_DOUBLE:
    case op::OpArgType::OPARG_ACLSCALAR:
      attrs.AppendFloat(static_cast<float>(NumberOf(arg)));
      break;
    case op::OpArgType::OPARG_STRING:
      attrs.AppendStr(arg.stringValue);
      break;
    case op::OpArgType::OPARG_INT_LIST:
      attrs.AppendListInt(IntListOf(arg));
      break;
    case op::OpArgType::OPARG_FLOAT_LIST:
      attrs.AppendListFloat(FloatListOf(arg));
      break;
    default:
      attrs.AppendInt(IntegerOf(arg));
      break;
  }
}

}  // namespace

bool CollectOperands(op::OpArgContext& args, aclOpExecutor* executor, LaunchOperands& operands, std::string& error) {
  // Unknown (negative) dims or an element count beyond int64_t pass aclCreateTensor and any error table
  // that does not name them; no shape inference, tiling or launch can be planned for them.
  auto plannable = [&](const aclTensor* tensor) {
    if (tensor == nullptr || tensor->Numel() >= 0) return true;
    error = std::string("operand ") + tensor->ToString().GetString() +
            " has negative dims or more elements than int64_t holds";
    return false;
  };
  auto collect = [&](const op::OpArgList& list, std::vector<const aclTensor*>& out) {
    for (const op::OpArg& arg : list.args) {
      bool hostValue = arg.type == op::OpArgType::OPARG_ACLSCALAR || arg.type == op::OpArgType::OPARG_INT_LIST ||
                       arg.type == op::OpArgType::OPARG_FLOAT_LIST || arg.type == op::OpArgType::OPARG_BOOL_LIST;
      if (hostValue && executor == nullptr) {
        error = "scalar and array operands are only accepted in launches";
        return false;
      }
      switch (arg.type) {
        case op::OpArgType::OPARG_ACLTENSOR:
          if (!plannable(static_cast<const aclTensor*>(arg.pointer))) return false;
          out.push_back(static_cast<const aclTensor*>(arg.pointer));
          break;
        case op::OpArgType::OPARG_ACLTENSOR_LIST: {
          auto* tensors = static_cast<const aclTensorList*>(arg.pointer);
          for (uint64_t i = 0; tensors != nullptr && i < tensors->Size(); ++i) {
            if (!plannable((*tensors)[i])) return false;
            out.push_back((*tensors)[i]);
          }
          break;
        }
        case op::OpArgType::OPARG_ACLSCALAR: {
          auto* scalar = static_cast<const aclScalar*>(arg.pointer);
          out.push_back(scalar == nullptr ? nullptr : executor->ConvertToTensor(scalar, scalar->GetDataType()));
          break;
        }
        case op::OpArgType::OPARG_INT_LIST:
          out.push_back(executor->ConvertToTensor(static_cast<const aclIntArray*>(arg.pointer), ge::DT_INT64));
          break;
        case op::OpArgType::OPARG_FLOAT_LIST:
          out.push_back(executor->ConvertToTensor(static_cast<const aclFloatArray*>(arg.pointer), ge::DT_FLOAT));
          break;
        case op::OpArgType::OPARG_BOOL_LIST:
          out.push_back(executor->ConvertToTensor(static_cast<const aclBoolArray*>(arg.pointer), ge::DT_BOOL));
          break;
        default:
          error = "a launch operand must be a tensor, tensor list, scalar or array";
          return false;
      }
    }
    return true;
  };
  operands.attrs = *args.GetOpArg(op::OP_ATTR_ARG);
  return collect(*args.GetOpArg(op::OP_INPUT_ARG), operands.inputs) &&
         collect(*args.GetOpArg(op::OP_OUTPUT_ARG), operands.outputs);
}

std::string OperandOverrun(const LaunchOperands& operands) {
  for (const aclTensor* input : operands.inputs) {
    const std::string overrun = ViewOverrun(input);
    if (!overrun.empty()) return "reads " + overrun;
  }
  for (const aclTensor* output : operands.outputs) {
    const std::string overrun = ViewOverrun(output);
    if (!overrun.empty()) return "writes " + overrun;
  }
  return "";
}

void ContextFactory::FillNode(gert::ExtendedKernelContext& ctx, const std::string& opType,
                              const LaunchOperands& operands) {
  ctx.nodeName_ = opType;
  ctx.nodeType_ = opType;
  for (const aclTensor* input : operands.inputs) {
    ctx.inputDescs_.push_back(DescOf(input));
    ctx.inputPresent_.push_back(input != nullptr);
  }
  for (const aclTensor* output : operands.outputs) ctx.outputDescs_.push_back(DescOf(output));
  const ops::OpDef* def = ops::FindOpDef(opType);
  const std::vector<op::OpArg>& args = operands.attrs.args;
  if (def == nullptr) {
    for (const op::OpArg& arg : args) AppendUntyped(ctx.attrs_, arg);
    return;
  }
  const auto& attrDefs = def->GetAttrs();
  for (size_t i = 0; i < attrDefs.size(); ++i) {
    AppendTyped(ctx.attrs_, attrDefs[i], i < args.size() ? &args[i] : nullptr);
  }
}

std::unique_ptr<gert::TilingContext> ContextFactory::MakeTiling(const std::string& opType,
                                                                const LaunchOperands& operands, size_t tilingCapacity,
                                                                const void* compileInfo) {
  auto ctx = std::make_unique<gert::TilingContext>();
  FillNode(*ctx, opType, operands);
  for (const aclTensor* input : operands.inputs) {
    ctx->inputShapes_.push_back(ShapeOf(input));
    ctx->inputTensors_.push_back(input == nullptr ? gert::Tensor() : *input->GetTensor());
  }
  for (const aclTensor* output : operands.outputs) ctx->outputShapes_.push_back(ShapeOf(output));
  ctx->platformInfo_ = CurrentPlatFormInfos();
  ctx->compileInfo_ = compileInfo;
  ctx->tilingData_ = gert::TilingData(tilingCapacity);
  return ctx;
}

std::unique_ptr<gert::TilingParseContext> ContextFactory::MakeTilingParse(const std::string& opType,
                                                                          void* compileInfo) {
  auto ctx = std::make_unique<gert::TilingParseContext>();
  ctx->nodeName_ = opType;
  ctx->nodeType_ = opType;
  ctx->platformInfo_ = CurrentPlatFormInfos();
  ctx->compiledInfo_ = compileInfo;
  return ctx;
}

std::unique_ptr<gert::InferShapeContext> ContextFactory::MakeInferShape(const std::string& opType,
                                                                        const LaunchOperands& operands) {
  auto ctx = std::make_unique<gert::InferShapeContext>();
  FillNode(*ctx, opType, operands);
  for (const aclTensor* input : operands.inputs) {
    ctx->inputShapes_.push_back(input == nullptr ? gert::Shape() : input->GetViewShape());
    ctx->inputTensors_.push_back(input == nullptr ? gert::Tensor() : *input->GetTensor());
  }
  for (const aclTensor* output : operands.outputs) {
    ctx->outputShapes_.push_back(output == nullptr ? gert::Shape() : output->GetViewShape());
  }
  return ctx;
}

void ContextFactory::ApplyInferredShapes(gert::InferShapeContext& ctx, const LaunchOperands& operands) {
  for (size_t i = 0; i < operands.outputs.size(); ++i) {
    auto* output = const_cast<aclTensor*>(operands.outputs[i]);
    if (output == nullptr) continue;
    output->SetViewShape(ctx.outputShapes_[i]);
    output->SetOriginalShape(ctx.outputShapes_[i]);
    output->SetStorageShape(ctx.outputShapes_[i]);
  }
}

std::string KernelNameOf(const std::string& opType) {
  std::string name;
  for (size_t i = 0; i < opType.size(); ++i) {
    char c = opType[i];
    bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    if (upper && i > 0) {
      char prev = opType[i - 1];
      bool nextLower = i + 1 < opType.size() && std::islower(static_cast<unsigned char>(opType[i + 1])) != 0;
      // Word boundary: after a lowercase letter or digit, or at the last capital of an acronym.
      if (std::islower(static_cast<unsigned char>(prev)) || std::isdigit(static_cast<unsigned char>(prev)) ||
          (std::isupper(static_cast<unsigned char>(prev)) && nextLower)) {
        name += '_';
      }
    }
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::string KernelEntryOf(const std::string& opType) {
  const ops::OpDef* def = ops::FindOpDef(opType);
  if (def != nullptr) {
    const auto& configs = def->GetAICore().GetAICoreConfigs();
    auto config = configs.find(CurrentPlatform().socName);
    if (config != configs.end()) {
      auto file = config->second.GetCfgInfo().find("opFile.value");
      if (file != config->second.GetCfgInfo().end() && !file->second.empty()) return file->second;
    }
  }
  return KernelNameOf(opType);
}

}  // namespace acl
}  // namespace opgen_twin
