// Names, sizes and promotion rules of dtypes and formats.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "acl/acl_base.h"
#include "cpu_types.h"
#include "graph/utils/type_utils.h"
#include "log/log.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/op_dfx.h"

namespace op {
namespace {

struct DataTypeInfo {
  DataType type;
  const char* name;
  int size;  // bytes, 0 when not a fixed-size element
};

constexpr DataTypeInfo kDataTypes[] = {
    {DataType::DT_FLOAT, "DT_FLOAT", 4},          {DataType::DT_FLOAT16, "DT_FLOAT16", 2},
    {DataType::DT_INT8, "DT_INT8", 1},            {DataType::DT_INT32, "DT_INT32", 4},
    {DataType::DT_UINT8, "DT_UINT8", 1},          {DataType::DT_INT16, "DT_INT16", 2},
    {DataType::DT_UINT16, "DT_UINT16", 2},        {DataType::DT_UINT32, "DT_UINT32", 4},
    {DataType::DT_INT64, "DT_INT64", 8},          {DataType::DT_UINT64, "DT_UINT64", 8},
    {DataType::DT_DOUBLE, "DT_DOUBLE", 8},        {DataType::DT_BOOL, "DT_BOOL", 1},
    {DataType::DT_STRING, "DT_STRING", 0},        {DataType::DT_COMPLEX64, "DT_COMPLEX64", 8},
    {DataType::DT_COMPLEX128, "DT_COMPLEX128", 16}, {DataType::DT_QINT8, "DT_QINT8", 1},
    {DataType::DT_QINT16, "DT_QINT16", 2},        {DataType::DT_QINT32, "DT_QINT32", 4},
    {DataType::DT_QUINT8, "DT_QUINT8", 1},        {DataType::DT_QUINT16, "DT_QUINT16", 2},
    {DataType::DT_BF16, "DT_BF16", 2},            {DataType::DT_UNDEFINED, "DT_UNDEFINED", 0},
    {DataType::DT_COMPLEX32, "DT_COMPLEX32", 4},  {DataType::DT_HIFLOAT8, "DT_HIFLOAT8", 1},
    {DataType::DT_FLOAT8_E5M2, "DT_FLOAT8_E5M2", 1}, {DataType::DT_FLOAT8_E4M3FN, "DT_FLOAT8_E4M3FN", 1},
    {DataType::DT_FLOAT8_E8M0, "DT_FLOAT8_E8M0", 1},
};

const DataTypeInfo* FindDataType(DataType type) {
  for (const auto& info : kDataTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

struct FormatInfo {
  Format format;
  const char* name;
};

constexpr FormatInfo kFormats[] = {
    {Format::FORMAT_NCHW, "NCHW"},         {Format::FORMAT_NHWC, "NHWC"},
    {Format::FORMAT_ND, "ND"},             {Format::FORMAT_NC1HWC0, "NC1HWC0"},
    {Format::FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {Format::FORMAT_NC1HWC0_C04, "NC1HWC0_C04"},
    {Format::FORMAT_HWCN, "HWCN"},         {Format::FORMAT_NDHWC, "NDHWC"},
    {Format::FORMAT_FRACTAL_NZ, "FRACTAL_NZ"}, {Format::FORMAT_NCDHW, "NCDHW"},
    {Format::FORMAT_NDC1HWC0, "NDC1HWC0"}, {Format::FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D"},
    {Format::FORMAT_NC, "NC"},             {Format::FORMAT_NCL, "NCL"},
    {Format::FORMAT_MAX, "UNDEFINED"},
};

enum class Category { kBool, kInteger, kFloating, kComplex, kOther };

Category CategoryOf(DataType type) {
  switch (type) {
    case DataType::DT_BOOL:
      return Category::kBool;
    case DataType::DT_UINT8:
    case DataType::DT_INT8:
    case DataType::DT_INT16:
    case DataType::DT_INT32:
    case DataType::DT_INT64:
    case DataType::DT_UINT16:
    case DataType::DT_UINT32:
    case DataType::DT_UINT64:
      return Category::kInteger;
    case DataType::DT_FLOAT16:
    case DataType::DT_BF16:
    case DataType::DT_FLOAT:
    case DataType::DT_DOUBLE:
      return Category::kFloating;
    case DataType::DT_COMPLEX32:
    case DataType::DT_COMPLEX64:
    case DataType::DT_COMPLEX128:
      return Category::kComplex;
    default:
      return Category::kOther;
  }
}

DataType PromoteFloating(DataType a, DataType b) {
  if (a == b) return a;
  auto rank = [](DataType t) { return t == DataType::DT_DOUBLE ? 3 : (t == DataType::DT_FLOAT ? 2 : 1); };
  if (rank(a) == 1 && rank(b) == 1) return DataType::DT_FLOAT;  // float16 with bfloat16
  return rank(a) >= rank(b) ? a : b;
}

bool IsWideUnsigned(DataType t) {
  return t == DataType::DT_UINT16 || t == DataType::DT_UINT32 || t == DataType::DT_UINT64;
}

DataType PromoteInteger(DataType a, DataType b) {
  if (a == b) return a;
  if (a == DataType::DT_UINT8) std::swap(a, b);
  if (b == DataType::DT_UINT8) return a == DataType::DT_INT8 ? DataType::DT_INT16 : a;  // a is signed
  auto bits = [](DataType t) { return static_cast<int>(TypeSize(t)); };
  return bits(a) >= bits(b) ? a : b;
}

// Real component type of a complex dtype.
DataType ComponentOf(DataType complex) {
  switch (complex) {
    case DataType::DT_COMPLEX32:
      return DataType::DT_FLOAT16;
    case DataType::DT_COMPLEX64:
      return DataType::DT_FLOAT;
    default:
      return DataType::DT_DOUBLE;
  }
}

DataType ComplexOf(DataType component) {
  switch (component) {
    case DataType::DT_FLOAT16:
      return DataType::DT_COMPLEX32;
    case DataType::DT_DOUBLE:
      return DataType::DT_COMPLEX128;
    default:
      return DataType::DT_COMPLEX64;
  }
}

}  // namespace

ge::AscendString ToString(DataType dataType) {
  const DataTypeInfo* info = FindDataType(dataType);
  return ge::AscendString(info == nullptr ? "DT_UNKNOWN(" + std::to_string(static_cast<int>(dataType)) + ")"
                                          : std::string(info->name));
}

size_t TypeSize(DataType dataType) {
  const DataTypeInfo* info = FindDataType(dataType);
  return info == nullptr || info->size <= 0 ? 0 : static_cast<size_t>(info->size);
}

void ToContiguousStrides(const Shape& shape, Strides& strides) {
  strides.assign(shape.GetDimNum(), 1);
  int64_t stride = 1;
  for (size_t i = shape.GetDimNum(); i-- > 0;) {
    strides[i] = stride;
    // A shape beyond int64_t (aclCreateTensor takes any dims) saturates instead of overflowing.
    if (__builtin_mul_overflow(stride, std::max<int64_t>(shape.GetDim(i), 1), &stride)) {
      stride = std::numeric_limits<int64_t>::max();
    }
  }
}

DataType PromoteType(DataType typeA, DataType typeB) {
  if (typeA == typeB) return typeA;
  Category a = CategoryOf(typeA);
  Category b = CategoryOf(typeB);
  if (a == Category::kOther || b == Category::kOther) return DataType::DT_UNDEFINED;
  // PyTorch promotes uint16/32/64 only with real floating types (to the floating type).
  if (IsWideUnsigned(typeA) || IsWideUnsigned(typeB)) {
    if (a == Category::kFloating) return typeA;
    if (b == Category::kFloating) return typeB;
    return DataType::DT_UNDEFINED;
  }
  if (a == Category::kComplex || b == Category::kComplex) {
    // Component precision: complex parts and real floating types take part, integers do not.
    auto component = [](DataType t, Category c) {
      return c == Category::kComplex ? ComponentOf(t) : (c == Category::kFloating ? t : DataType::DT_UNDEFINED);
    };
    DataType ca = component(typeA, a);
    DataType cb = component(typeB, b);
    if (ca == DataType::DT_UNDEFINED) return ComplexOf(cb);
    if (cb == DataType::DT_UNDEFINED) return ComplexOf(ca);
    return ComplexOf(PromoteFloating(ca, cb));
  }
  if (a == Category::kFloating || b == Category::kFloating) {
    if (a != Category::kFloating) return typeB;
    if (b != Category::kFloating) return typeA;
    return PromoteFloating(typeA, typeB);
  }
  if (a == Category::kInteger || b == Category::kInteger) {
    if (a != Category::kInteger) return typeB;
    if (b != Category::kInteger) return typeA;
    return PromoteInteger(typeA, typeB);
  }
  return DataType::DT_BOOL;
}

aclDataType ToAclDataType(DataType type) {
  switch (type) {
    case DataType::DT_FLOAT:
    case DataType::DT_FLOAT16:
    case DataType::DT_INT8:
    case DataType::DT_INT32:
    case DataType::DT_UINT8:
    case DataType::DT_INT16:
    case DataType::DT_UINT16:
    case DataType::DT_UINT32:
    case DataType::DT_INT64:
    case DataType::DT_UINT64:
    case DataType::DT_DOUBLE:
    case DataType::DT_BOOL:
    case DataType::DT_STRING:
    case DataType::DT_COMPLEX64:
    case DataType::DT_COMPLEX128:
    case DataType::DT_BF16:
    case DataType::DT_INT4:
    case DataType::DT_UINT1:
    case DataType::DT_COMPLEX32:
      return static_cast<aclDataType>(type);
    default:
      return ACL_DT_UNDEFINED;
  }
}

DataType ToDataType(const std::string& dataTypeStr) {
  for (const auto& info : kDataTypes) {
    if (dataTypeStr == info.name || dataTypeStr == info.name + 3) return info.type;
  }
  return DataType::DT_UNDEFINED;
}

ge::AscendString ToString(const std::initializer_list<DataType>& dataTypes) {
  std::string text = "[";
  for (auto it = dataTypes.begin(); it != dataTypes.end(); ++it) {
    if (it != dataTypes.begin()) text += ", ";
    text += ToString(*it).GetString();
  }
  return ge::AscendString(text + "]");
}

int64_t CalcShapeBytes(int64_t size, DataType dataType, bool ceil) {
  (void)ceil;
  return size * static_cast<int64_t>(TypeSize(dataType));
}

bool IsPrivateFormat(Format format) {
  Format primary = GetPrimaryFormat(format);
  return primary == Format::FORMAT_NC1HWC0 || primary == Format::FORMAT_FRACTAL_Z ||
         primary == Format::FORMAT_FRACTAL_NZ || primary == Format::FORMAT_NDC1HWC0 ||
         primary == Format::FORMAT_FRACTAL_Z_3D || primary == Format::FORMAT_NC1HWC0_C04 ||
         primary == Format::FORMAT_FRACTAL_Z_C04;
}

Format ToFormat(const std::string& formatStr) {
  for (const auto& info : kFormats) {
    if (formatStr == info.name) return info.format;
  }
  return Format::FORMAT_MAX;
}

ge::AscendString ToString(Format format) {
  for (const auto& info : kFormats) {
    if (info.format == format) return ge::AscendString(info.name);
  }
  return ge::AscendString("FORMAT(" + std::to_string(static_cast<int>(format)) + ")");
}

aclFormat ToAclFormat(Format format) {
  for (const auto& info : kFormats) {
    if (info.format == format && format != Format::FORMAT_MAX) return static_cast<aclFormat>(format);
  }
  return ACL_FORMAT_UNDEFINED;
}

ge::AscendString ToString(const std::string& str) { return ge::AscendString(str); }

}  // namespace op

namespace ge {
std::string TypeUtils::DataTypeToSerialString(DataType dataType) { return op::ToString(dataType).GetString(); }
std::string TypeUtils::FormatToSerialString(Format format) { return op::ToString(format).GetString(); }
}  // namespace ge

namespace Ops {
namespace Base {
std::string ToString(ge::DataType type) { return op::ToString(type).GetString(); }
std::string ToString(ge::Format format) { return op::ToString(format).GetString(); }
std::string ToString(const gert::Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.GetDimNum(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape.GetDim(i));
  return text + "]";
}
}  // namespace Base
}  // namespace Ops

extern "C" size_t aclDataTypeSize(aclDataType dataType) {
  return dataType == ACL_DT_UNDEFINED ? 0 : op::TypeSize(static_cast<op::DataType>(dataType));
}

namespace aicpu {
int GetSizeByDataType(DataType dataType) {
  size_t size = op::TypeSize(static_cast<op::DataType>(dataType));
  return size == 0 ? -1 : static_cast<int>(size);
}
}  // namespace aicpu
