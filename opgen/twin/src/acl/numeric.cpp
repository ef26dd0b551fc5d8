// IEEE binary16 / bfloat16 conversions (round to nearest even, straight from double so that
// double -> half is correctly rounded, not double-rounded through float).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "acl/acl_base.h"
#include "opdev/fp16_t.h"

namespace op {
namespace numeric {
namespace {

// Rounds |value| to a binary format with mantissaBits explicit bits and the given minimum normal
// exponent, returning sign, biased exponent and mantissa packed as bits. maxExponent is the
// largest unbiased exponent of a finite value.
uint32_t RoundToBits(double value, int mantissaBits, int minExponent, int maxExponent, int exponentBits) {
  const uint32_t signBit = std::signbit(value) ? 1U : 0U;
  const uint32_t signShift = static_cast<uint32_t>(mantissaBits + exponentBits);
  const uint32_t expAllOnes = (1U << exponentBits) - 1U;
  if (std::isnan(value)) {
    return (signBit << signShift) | (expAllOnes << mantissaBits) | (1U << (mantissaBits - 1));
  }
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return (signBit << signShift) | (expAllOnes << mantissaBits);
  if (magnitude == 0.0) return signBit << signShift;

  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  int unbiased = exponent - 1;       // magnitude = 1.f * 2^unbiased
  if (unbiased < minExponent) unbiased = minExponent;  // subnormal: fixed quantum
  double quantum = std::ldexp(1.0, unbiased - mantissaBits);
  double rounded = std::nearbyint(magnitude / quantum) * quantum;  // FE_TONEAREST = ties to even

  std::frexp(rounded, &exponent);
  int roundedExp = exponent - 1;
  if (roundedExp > maxExponent) return (signBit << signShift) | (expAllOnes << mantissaBits);
  uint32_t biasedExp = 0;
  double mantissaUnit = std::ldexp(1.0, minExponent - mantissaBits);  // subnormal quantum
  uint32_t mantissa = 0;
  if (rounded < std::ldexp(1.0, minExponent)) {
    mantissa = static_cast<uint32_t>(rounded / mantissaUnit);
  } else {
    const int bias = (1 << (exponentBits - 1)) - 1;
    biasedExp = static_cast<uint32_t>(roundedExp + bias);
    double fraction = rounded / std::ldexp(1.0, roundedExp) - 1.0;
    mantissa = static_cast<uint32_t>(std::ldexp(fraction, mantissaBits));
  }
  return (signBit << signShift) | (biasedExp << mantissaBits) | mantissa;
}

double BitsToDouble(uint32_t bits, int mantissaBits, int exponentBits) {
  const uint32_t expAllOnes = (1U << exponentBits) - 1U;
  const int bias = (1 << (exponentBits - 1)) - 1;
  bool negative = ((bits >> (mantissaBits + exponentBits)) & 1U) != 0;
  uint32_t biasedExp = (bits >> mantissaBits) & expAllOnes;
  uint32_t mantissa = bits & ((1U << mantissaBits) - 1U);
  double magnitude = 0.0;
  if (biasedExp == expAllOnes) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (biasedExp == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissaBits);
  } else {
    magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -mantissaBits),
                           static_cast<int>(biasedExp) - bias);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

uint16_t DoubleToHalfBits(double value) { return static_cast<uint16_t>(RoundToBits(value, 10, -14, 15, 5)); }
double HalfBitsToDouble(uint16_t bits) { return BitsToDouble(bits, 10, 5); }
uint16_t DoubleToBFloat16Bits(double value) { return static_cast<uint16_t>(RoundToBits(value, 7, -126, 127, 8)); }
double BFloat16BitsToDouble(uint16_t bits) { return BitsToDouble(bits, 7, 8); }

}  // namespace numeric
}  // namespace op

extern "C" float aclFloat16ToFloat(aclFloat16 value) {
  return static_cast<float>(op::numeric::HalfBitsToDouble(value));
}

extern "C" aclFloat16 aclFloatToFloat16(float value) { return op::numeric::DoubleToHalfBits(value); }
