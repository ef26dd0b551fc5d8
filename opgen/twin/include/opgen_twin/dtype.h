// Element types the twin knows, so that per-SoC rules and messages can name them.
#pragma once

#include <cstdint>

#include "opgen_twin/float16.h"

namespace opgen_twin {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kBfloat16,
  kFloat,
  kDouble,
  kCount
};

// Bit set of DTypes.
using DTypeMask = uint32_t;
constexpr DTypeMask DTypeBit(DType type) { return DTypeMask{1} << static_cast<unsigned>(type); }

// Ascend C spelling of each type, for messages ("half", "bfloat16_t", "int32_t", ...).
const char* DTypeName(DType type);

template <typename T>
struct DTypeOf;  // no definition: an unsupported element type fails to compile

#define OPGEN_TWIN_DTYPE_OF(cpp_type, value) \
  template <>                                \
  struct DTypeOf<cpp_type> {                 \
    static constexpr DType kValue = value;   \
  };
OPGEN_TWIN_DTYPE_OF(bool, DType::kBool)
OPGEN_TWIN_DTYPE_OF(int8_t, DType::kInt8)
OPGEN_TWIN_DTYPE_OF(uint8_t, DType::kUint8)
OPGEN_TWIN_DTYPE_OF(int16_t, DType::kInt16)
OPGEN_TWIN_DTYPE_OF(uint16_t, DType::kUint16)
OPGEN_TWIN_DTYPE_OF(int32_t, DType::kInt32)
OPGEN_TWIN_DTYPE_OF(uint32_t, DType::kUint32)
OPGEN_TWIN_DTYPE_OF(int64_t, DType::kInt64)
OPGEN_TWIN_DTYPE_OF(uint64_t, DType::kUint64)
OPGEN_TWIN_DTYPE_OF(Half, DType::kHalf)
OPGEN_TWIN_DTYPE_OF(Bfloat16, DType::kBfloat16)
OPGEN_TWIN_DTYPE_OF(float, DType::kFloat)
OPGEN_TWIN_DTYPE_OF(double, DType::kDouble)
#undef OPGEN_TWIN_DTYPE_OF

template <typename T>
constexpr DType kDTypeOf = DTypeOf<T>::kValue;

}  // namespace opgen_twin
