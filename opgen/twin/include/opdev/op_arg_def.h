// Launch arguments of an L0 op: OP_INPUT(...), OP_OUTPUT(...), OP_ATTR(...), OP_WORKSPACE(...)
// each build one typed argument list; GetOpArgContext gathers them for INFER_SHAPE and the
// ADD_TO_LAUNCHER_LIST_* macros.
#ifndef OPGEN_TWIN_OPDEV_OP_ARG_DEF_H_
#define OPGEN_TWIN_OPDEV_OP_ARG_DEF_H_

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "opdev/common_types.h"

namespace op {

enum OpArgDef {
  OP_INPUT_ARG = 0,
  OP_OUTPUT_ARG = 1,
  OP_ATTR_ARG = 2,
  OP_WORKSPACE_ARG = 3,
  OP_OUTSHAPE_ARG = 4,
  OP_OPTION_ARG = 5,
  OP_EXEC_MODE_ARG = 6,
  OP_MEMSET_ARG = 7,
  OP_EMPTY_ARG = 8,
  OP_ARG_DEF_BUTT = 9,
};
constexpr size_t OP_ARG_TYPE_NUM = OP_EXEC_MODE_ARG + 1;

enum class OpArgType {
  OPARG_ACLTENSOR,
  OPARG_ACLTENSOR_LIST,
  OPARG_ACLSCALAR,
  OPARG_STRING,
  OPARG_BOOL,
  OPARG_INT,
  OPARG_UINT,
  OPARG_FLOAT,
  OPARG_DOUBLE,
  OPARG_DATATYPE,
  OPARG_INT_LIST,
  OPARG_UINT_LIST,
  OPARG_FLOAT_LIST,
  OPARG_BOOL_LIST,
  OPARG_IMPLMODE,
  OPARG_MEMSET_WORKSPACE
};

enum OpImplMode : uint32_t {
  IMPL_MODE_HIGH_PRECISION = 0x1,
  IMPL_MODE_HIGH_PERFORMANCE = 0x2,
  IMPL_MODE_SUPER_PERFORMANCE = 0x4,
  IMPL_MODE_SUPPORT_OUT_OF_BOUND_INDEX = 0x8,
  IMPL_MODE_ENABLE_FLOAT_32_EXECUTION = 0x10,
  IMPL_MODE_ENABLE_HI_FLOAT_32_EXECUTION = 0x20,
  IMPL_MODE_KEEP_FP16 = 0x40,
  IMPL_MODE_RESERVED = 0xFFFFFFFF
};

// One argument; pointer kinds keep the caller's object (it must outlive phase 2, as on CANN).
struct OpArg {
  OpArgType type = OpArgType::OPARG_ACLTENSOR;
  const void* pointer = nullptr;
  int64_t intValue = 0;
  uint64_t uintValue = 0;
  double doubleValue = 0.0;
  float floatValue = 0.0f;
  bool boolValue = false;
  DataType dataType = DataType::DT_UNDEFINED;
  std::string stringValue;
};

struct OpArgList {
  int argType = OP_EMPTY_ARG;
  std::vector<OpArg> args;
  size_t count = 0;
  OpArg& operator[](uint64_t i) { return args[i]; }
  const OpArg& operator[](uint64_t i) const { return args[i]; }
};

struct OpArgContext {
  std::array<OpArgList, OP_ARG_TYPE_NUM> argLists;
  OpArgList* GetOpArg(OpArgDef type) { return type < OP_ARG_TYPE_NUM ? &argLists[type] : nullptr; }
  bool ContainsOpArgType(OpArgDef type) const { return type < OP_ARG_TYPE_NUM && argLists[type].count > 0; }
};

inline void AppendOpArg(OpArgList& list, OpArg arg) {
  list.args.push_back(std::move(arg));
  list.count = list.args.size();
}
inline OpArg MakePointerArg(OpArgType type, const void* pointer) {
  OpArg arg;
  arg.type = type;
  arg.pointer = pointer;
  return arg;
}
inline void AppendOpArg(OpArgList& list, const aclTensor* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_ACLTENSOR, value));
}
inline void AppendOpArg(OpArgList& list, std::nullptr_t) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_ACLTENSOR, nullptr));
}
inline void AppendOpArg(OpArgList& list, const aclTensorList* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_ACLTENSOR_LIST, value));
}
inline void AppendOpArg(OpArgList& list, const aclScalar* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_ACLSCALAR, value));
}
inline void AppendOpArg(OpArgList& list, const aclIntArray* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_INT_LIST, value));
}
inline void AppendOpArg(OpArgList& list, const aclFloatArray* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_FLOAT_LIST, value));
}
inline void AppendOpArg(OpArgList& list, const aclBoolArray* value) {
  AppendOpArg(list, MakePointerArg(OpArgType::OPARG_BOOL_LIST, value));
}
inline void AppendOpArg(OpArgList& list, const std::string& value) {
  OpArg arg;
  arg.type = OpArgType::OPARG_STRING;
  arg.stringValue = value;
  AppendOpArg(list, std::move(arg));
}
inline void AppendOpArg(OpArgList& list, const char* value) { AppendOpArg(list, std::string(value ? value : "")); }
inline void AppendOpArg(OpArgList& list, const std::string* value) {
  AppendOpArg(list, value == nullptr ? std::string() : *value);
}
inline void AppendOpArg(OpArgList& list, DataType value) {
  OpArg arg;
  arg.type = OpArgType::OPARG_DATATYPE;
  arg.dataType = value;
  AppendOpArg(list, std::move(arg));
}
template <typename T>
void AppendOpArg(OpArgList& list, T value) {
  static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>, "unsupported op argument type");
  OpArg arg;
  if constexpr (std::is_same_v<T, bool>) {
    arg.type = OpArgType::OPARG_BOOL;
    arg.boolValue = value;
  } else if constexpr (std::is_same_v<T, float>) {
    arg.type = OpArgType::OPARG_FLOAT;
    arg.floatValue = value;
    arg.doubleValue = value;
  } else if constexpr (std::is_floating_point_v<T>) {
    arg.type = OpArgType::OPARG_DOUBLE;
    arg.doubleValue = static_cast<double>(value);
    arg.floatValue = static_cast<float>(value);
  } else if constexpr (std::is_same_v<T, OpImplMode>) {
    arg.type = OpArgType::OPARG_IMPLMODE;
    arg.uintValue = static_cast<uint64_t>(value);
  } else if constexpr (std::is_unsigned_v<T>) {
    arg.type = OpArgType::OPARG_UINT;
    arg.uintValue = static_cast<uint64_t>(value);
    arg.intValue = static_cast<int64_t>(value);
  } else {
    arg.type = OpArgType::OPARG_INT;
    arg.intValue = static_cast<int64_t>(value);
    arg.uintValue = static_cast<uint64_t>(value);
  }
  AppendOpArg(list, std::move(arg));
}
// Non-const pointers resolve to the const overloads.
inline void AppendOpArg(OpArgList& list, aclTensor* value) { AppendOpArg(list, static_cast<const aclTensor*>(value)); }
inline void AppendOpArg(OpArgList& list, aclTensorList* value) {
  AppendOpArg(list, static_cast<const aclTensorList*>(value));
}
inline void AppendOpArg(OpArgList& list, aclScalar* value) { AppendOpArg(list, static_cast<const aclScalar*>(value)); }
inline void AppendOpArg(OpArgList& list, aclIntArray* value) {
  AppendOpArg(list, static_cast<const aclIntArray*>(value));
}
inline void AppendOpArg(OpArgList& list, aclFloatArray* value) {
  AppendOpArg(list, static_cast<const aclFloatArray*>(value));
}
inline void AppendOpArg(OpArgList& list, aclBoolArray* value) {
  AppendOpArg(list, static_cast<const aclBoolArray*>(value));
}
inline void AppendOpArg(OpArgList& list, char* value) { AppendOpArg(list, static_cast<const char*>(value)); }
inline void AppendOpArg(OpArgList& list, std::string* value) {
  AppendOpArg(list, static_cast<const std::string*>(value));
}

template <typename... Args>
OpArgList MakeOpArgList(OpArgDef kind, const Args&... args) {
  OpArgList list;
  list.argType = kind;
  (AppendOpArg(list, args), ...);
  return list;
}

// Gathers OP_INPUT/OP_OUTPUT/... lists; the caller owns the result (DestroyOpArgContext).
template <typename... Lists>
OpArgContext* GetOpArgContext(Lists&&... lists) {
  auto* context = new OpArgContext();
  auto place = [context](OpArgList&& list) {
    if (list.argType >= 0 && list.argType < static_cast<int>(OP_ARG_TYPE_NUM)) {
      context->argLists[list.argType] = std::move(list);
    }
  };
  (place(OpArgList(std::forward<Lists>(lists))), ...);
  return context;
}
inline void DestroyOpArgContext(OpArgContext* context) { delete context; }

}  // namespace op

#define OP_INPUT(...) ::op::MakeOpArgList(::op::OP_INPUT_ARG, ##__VA_ARGS__)
#define OP_OUTPUT(...) ::op::MakeOpArgList(::op::OP_OUTPUT_ARG, ##__VA_ARGS__)
#define OP_ATTR(...) ::op::MakeOpArgList(::op::OP_ATTR_ARG, ##__VA_ARGS__)
#define OP_WORKSPACE(...) ::op::MakeOpArgList(::op::OP_WORKSPACE_ARG, ##__VA_ARGS__)
#define OP_OUTSHAPE(...) ::op::MakeOpArgList(::op::OP_OUTSHAPE_ARG, ##__VA_ARGS__)
#define OP_OPTION(...) ::op::MakeOpArgList(::op::OP_OPTION_ARG, ##__VA_ARGS__)
#define OP_MODE(...) ::op::MakeOpArgList(::op::OP_EXEC_MODE_ARG, ##__VA_ARGS__)

#endif  // OPGEN_TWIN_OPDEV_OP_ARG_DEF_H_
