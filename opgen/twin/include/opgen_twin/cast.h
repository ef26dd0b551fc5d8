// Cast of Ascend C, count form. Which (dst, src, RoundMode) triples are legal depends on the SoC; an
// illegal one stops the kernel (hardware would issue nothing and leave dst unchanged).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "opgen_twin/float16.h"
#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"
#include "opgen_twin/vector_ops.h"

namespace AscendC {

enum class RoundMode : uint8_t {
  CAST_NONE = 0,  // no rounding where exact; round to nearest even where precision is lost
  CAST_RINT,      // nearest, ties to even
  CAST_FLOOR,     // toward -inf
  CAST_CEIL,      // toward +inf
  CAST_ROUND,     // nearest, ties away from zero
  CAST_TRUNC,     // toward zero
  CAST_ODD,       // von Neumann rounding to odd
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

const char* RoundModeName(int round_mode);

inline Rounding RoundingOf(AscendC::RoundMode mode) {
  switch (mode) {
    case AscendC::RoundMode::CAST_FLOOR: return Rounding::kFloor;
    case AscendC::RoundMode::CAST_CEIL: return Rounding::kCeil;
    case AscendC::RoundMode::CAST_ROUND: return Rounding::kNearestAway;
    case AscendC::RoundMode::CAST_TRUNC: return Rounding::kTrunc;
    case AscendC::RoundMode::CAST_ODD: return Rounding::kOdd;
    case AscendC::RoundMode::CAST_NONE:
    case AscendC::RoundMode::CAST_RINT: return Rounding::kNearestEven;
  }
  return Rounding::kNearestEven;
}

template <typename T>
constexpr bool kIsFloat16 = std::is_same<T, Half>::value || std::is_same<T, Bfloat16>::value;
template <typename T>
constexpr bool kIsFloatingElement = kIsFloat16<T> || std::is_floating_point<T>::value;

template <typename T>
inline double ToDouble(const T& value) {
  if constexpr (kIsFloat16<T>) {
    return static_cast<double>(value.ToFloat());
  } else {
    return static_cast<double>(value);
  }
}

// Converts one element. Floating -> integer saturates (NaN gives 0); integer -> integer wraps.
template <typename T, typename U>
inline T ConvertElement(const U& value, Rounding rounding) {
  if constexpr (std::is_same<T, float>::value && kIsFloat16<U>) {
    return value.ToFloat();  // exact widening
  } else if constexpr (std::is_same<T, Half>::value) {
    if (std::is_same<U, float>::value && rounding == Rounding::kNearestEven) return Half(ToDouble(value));
    return Half::FromBits(static_cast<uint16_t>(RoundToBinaryFormat(ToDouble(value), 5, 10, rounding)));
  } else if constexpr (std::is_same<T, Bfloat16>::value) {
    if (std::is_same<U, float>::value && rounding == Rounding::kNearestEven) return Bfloat16(ToDouble(value));
    return Bfloat16::FromBits(static_cast<uint16_t>(RoundToBinaryFormat(ToDouble(value), 8, 7, rounding)));
  } else if constexpr (std::is_same<T, float>::value) {
    const double wide = ToDouble(value);
    if (kIsFloatingElement<U> && sizeof(U) == sizeof(float)) {
      // float -> float: round to an integral value.
      return std::isfinite(wide) ? static_cast<float>(RoundToIntegral(wide, rounding)) : static_cast<float>(wide);
    }
    return BitsToFloat(RoundToBinaryFormat(wide, 8, 23, rounding));
  } else if constexpr (std::is_same<T, double>::value) {
    return ToDouble(value);
  } else if constexpr (kIsFloatingElement<U>) {
    const double wide = ToDouble(value);
    if (std::isnan(wide)) return T(0);
    const double rounded = RoundToIntegral(wide, rounding);
    if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(rounded);
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t calCount) {
  namespace d = opgen_twin::detail;
  d::RequireCast(opgen_twin::kDTypeOf<T>, opgen_twin::kDTypeOf<U>, static_cast<int>(round_mode));
  const uint64_t n = calCount;
  d::CheckCountOperand("Cast", "dst", dst, n, d::UbUse::kVectorWrite);
  d::CheckCountOperand("Cast", "src", src, n, d::UbUse::kVectorRead);
  const opgen_twin::Rounding rounding = d::RoundingOf(round_mode);
  uint8_t* out = dst.twin_bytes();
  const uint8_t* in = src.twin_bytes();
  if (sizeof(T) <= sizeof(U)) {
    for (uint64_t i = 0; i < n; ++i) {
      d::StoreElement<T>(out, i, d::ConvertElement<T>(d::LoadElement<U>(in, i), rounding));
    }
  } else {
    // Widening (possibly in place): go backwards so no source element is overwritten before it is read.
    for (uint64_t i = n; i-- > 0;) {
      d::StoreElement<T>(out, i, d::ConvertElement<T>(d::LoadElement<U>(in, i), rounding));
    }
  }
  d::CountVector(opgen_twin::Api::kCast, n);
}

}  // namespace AscendC
