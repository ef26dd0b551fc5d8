// dtype helpers used by aclnn L2 checks: CheckType, CanCast (PyTorch canCast), PromoteType
// (PyTorch promoteTypes, with bf16 + fp16 -> float), type sizes and conversions.
#ifndef OPGEN_TWIN_OPDEV_DATA_TYPE_UTILS_H_
#define OPGEN_TWIN_OPDEV_DATA_TYPE_UTILS_H_

#include <algorithm>
#include <initializer_list>
#include <string>

#include "acl/acl_base.h"
#include "opdev/common_types.h"

namespace op {

inline bool CheckType(const DataType dtype, const std::initializer_list<DataType>& validTypes) {
  return std::find(validTypes.begin(), validTypes.end(), dtype) != validTypes.end();
}

inline bool IsComplexType(const DataType type) {
  return type == DataType::DT_COMPLEX32 || type == DataType::DT_COMPLEX64 || type == DataType::DT_COMPLEX128;
}

inline bool IsFloatingType(const DataType type) {
  return type == DataType::DT_DOUBLE || type == DataType::DT_FLOAT || type == DataType::DT_BF16 ||
         type == DataType::DT_FLOAT16;
}

inline bool IsIntegralType(const DataType type) {
  return type == DataType::DT_INT8 || type == DataType::DT_INT16 || type == DataType::DT_INT32 ||
         type == DataType::DT_INT64 || type == DataType::DT_UINT8 || type == DataType::DT_UINT16 ||
         type == DataType::DT_UINT32 || type == DataType::DT_UINT64;
}

inline bool IsIntegralType(const DataType type, const bool includeBool) {
  return IsIntegralType(type) || (includeBool && type == DataType::DT_BOOL);
}

// PyTorch canCast: complex -> non-complex, floating -> integral and non-bool -> bool are refused.
inline bool CanCast(const DataType from, const DataType to) {
  if (from == DataType::DT_UNDEFINED || to == DataType::DT_UNDEFINED) return false;  // nothing casts to or from it
  if (IsComplexType(from) && !IsComplexType(to)) return false;
  if (IsFloatingType(from) && IsIntegralType(to, false)) return false;
  if (from != DataType::DT_BOOL && to == DataType::DT_BOOL) return false;
  return true;
}

// PyTorch promoteTypes over bool, integers, f16, bf16, f32, f64 and complex types: DT_UNDEFINED
// where PyTorch refuses (uint16/32/64 with anything but itself or a real floating type) and
// for other dtypes.
DataType PromoteType(DataType typeA, DataType typeB);

inline bool IsBasicType(const DataType dtype) {
  return CheckType(dtype, {DataType::DT_COMPLEX128, DataType::DT_COMPLEX64, DataType::DT_DOUBLE, DataType::DT_FLOAT,
                           DataType::DT_FLOAT16, DataType::DT_INT16, DataType::DT_INT32, DataType::DT_INT64,
                           DataType::DT_INT8, DataType::DT_QINT16, DataType::DT_QINT32, DataType::DT_QINT8,
                           DataType::DT_QUINT16, DataType::DT_QUINT8, DataType::DT_UINT16, DataType::DT_UINT32,
                           DataType::DT_UINT64, DataType::DT_UINT8, DataType::DT_BF16});
}

inline bool IsNumberType(const DataType dtype) {
  return IsBasicType(dtype) && dtype != DataType::DT_QINT16 && dtype != DataType::DT_QUINT16;
}

inline bool IsRealNumberType(const DataType dtype) {
  return IsFloatingType(dtype) || IsIntegralType(dtype);
}

constexpr inline DataType ToOpDataType(aclDataType type) {
  return type == ACL_DT_UNDEFINED ? DataType::DT_UNDEFINED : static_cast<DataType>(type);
}

// aclDataType of a DataType aclnn can express, else ACL_DT_UNDEFINED.
aclDataType ToAclDataType(DataType type);
DataType ToDataType(const std::string& dataTypeStr);
ge::AscendString ToString(const std::initializer_list<DataType>& dataTypes);
int64_t CalcShapeBytes(int64_t size, DataType dataType, bool ceil = false);

}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_DATA_TYPE_UTILS_H_
