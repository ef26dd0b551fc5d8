// 16-bit floating-point types of Ascend C (`half`, `bfloat16_t`) and the rounding routines the twin's
// arithmetic and Cast use.
//
// Both types store their IEEE-style bit pattern in a uint16_t. Every operation converts to float
// (exact), computes in float and rounds back to nearest-even. For + - * / and sqrt this gives the
// correctly rounded 16-bit result, because float has more than 2p+2 significand bits for both formats.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace opgen_twin {

inline uint32_t FloatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float BitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// float -> IEEE binary16 bits, round to nearest even; NaN stays NaN (quieted), overflow gives inf.
inline uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = FloatToBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {
    if (magnitude > 0x7f800000u) {
      return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (magnitude >= 0x477ff000u) {  // >= 65520: rounds to infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (magnitude >= 0x38800000u) {  // normal half range (>= 2^-14)
    const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal half: count units of 2^-24 with exact integer rounding.
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 102) {  // below 2^-25: rounds to zero
    return sign;
  }
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126 - exponent;  // 14..24
  uint32_t units = mantissa >> shift;
  const uint32_t remainder = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (units & 1u))) {
    ++units;  // may carry into the smallest normal, whose encoding is the same integer
  }
  return static_cast<uint16_t>(sign | units);
}

inline float HalfBitsToFloat(uint16_t half_bits) {
  const uint32_t sign = static_cast<uint32_t>(half_bits & 0x8000u) << 16;
  const uint32_t exponent = (half_bits >> 10) & 0x1fu;
  const uint32_t mantissa = half_bits & 0x3ffu;
  if (exponent == 0x1fu) {
    return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;  // 2^-24, exact
    return sign ? -magnitude : magnitude;
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// float -> bfloat16 bits, round to nearest even; NaN stays NaN (quieted).
inline uint16_t FloatToBf16Bits(float value) {
  const uint32_t bits = FloatToBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

inline float Bf16BitsToFloat(uint16_t bf16_bits) { return BitsToFloat(static_cast<uint32_t>(bf16_bits) << 16); }

// Rounding directions of Cast (RoundMode maps onto these).
enum class Rounding { kNearestEven, kNearestAway, kFloor, kCeil, kTrunc, kOdd };

// The rounded integral value; RoundToIntegral then fixes the sign of a zero result.
inline double RoundToIntegralMagnitude(double value, Rounding rounding) {
  switch (rounding) {
    case Rounding::kNearestEven: {
      const double lower = std::floor(value);
      const double fraction = value - lower;
      if (fraction > 0.5) return lower + 1.0;
      if (fraction < 0.5) return lower;
      return std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;
    }
    case Rounding::kNearestAway:
      return value < 0 ? -std::floor(-value + 0.5) : std::floor(value + 0.5);
    case Rounding::kFloor:
      return std::floor(value);
    case Rounding::kCeil:
      return std::ceil(value);
    case Rounding::kTrunc:
      return std::trunc(value);
    case Rounding::kOdd: {
      const double truncated = std::trunc(value);
      if (truncated != value && std::fmod(truncated, 2.0) == 0.0) {
        return truncated + (value < 0 ? -1.0 : 1.0);
      }
      return truncated;
    }
  }
  return value;
}

// Rounds `value` to an integral double in the given direction; a zero result keeps the sign of `value`.
inline double RoundToIntegral(double value, Rounding rounding) {
  const double rounded = RoundToIntegralMagnitude(value, rounding);
  return rounded == 0.0 ? std::copysign(0.0, value) : rounded;
}

// Rounds a finite or special double to a binary format with `exponent_bits`/`mantissa_bits` (half: 5/10,
// bfloat16: 8/7, float: 8/23) in the given direction, IEEE overflow rules included. Returns the bits.
inline uint32_t RoundToBinaryFormat(double value, int exponent_bits, int mantissa_bits, Rounding rounding) {
  const uint32_t sign_bit = 1u << (exponent_bits + mantissa_bits);
  const uint32_t exponent_all_ones = (1u << exponent_bits) - 1u;
  const uint32_t infinity = exponent_all_ones << mantissa_bits;
  const uint32_t max_finite = infinity - 1u;
  const bool negative = std::signbit(value);
  const uint32_t sign = negative ? sign_bit : 0u;
  if (std::isnan(value)) {
    return sign | infinity | (1u << (mantissa_bits - 1));
  }
  if (std::isinf(value)) {
    return sign | infinity;
  }
  if (value == 0.0) {
    return sign;
  }
  const int bias = static_cast<int>(exponent_all_ones >> 1);
  const int min_exponent = 1 - bias;  // exponent of the smallest normal
  int exponent = 0;
  std::frexp(value, &exponent);  // |value| in [2^(exponent-1), 2^exponent)
  int quantum_exponent = exponent - 1 - mantissa_bits;
  if (exponent - 1 < min_exponent) {
    quantum_exponent = min_exponent - mantissa_bits;
  }
  const double scaled = std::ldexp(value, -quantum_exponent);  // exact: only the exponent changes
  const double rounded = RoundToIntegral(scaled, rounding);
  uint64_t units = static_cast<uint64_t>(std::fabs(rounded));
  if (units == 0) {
    return sign;
  }
  if (units >= (uint64_t{1} << (mantissa_bits + 1))) {  // rounding carried into the next binade
    units >>= 1;
    ++quantum_exponent;
  }
  if (units < (uint64_t{1} << mantissa_bits)) {  // subnormal
    return sign | static_cast<uint32_t>(units);
  }
  const int biased = quantum_exponent + mantissa_bits + bias;
  if (biased >= static_cast<int>(exponent_all_ones)) {
    switch (rounding) {
      case Rounding::kNearestEven:
      case Rounding::kNearestAway:
        return sign | infinity;
      case Rounding::kTrunc:
      case Rounding::kOdd:
        return sign | max_finite;
      case Rounding::kFloor:
        return sign | (negative ? infinity : max_finite);
      case Rounding::kCeil:
        return sign | (negative ? max_finite : infinity);
    }
  }
  const uint32_t mantissa = static_cast<uint32_t>(units - (uint64_t{1} << mantissa_bits));
  return sign | (static_cast<uint32_t>(biased) << mantissa_bits) | mantissa;
}

// The two 16-bit formats, as policies of BinaryFloat16.
struct HalfFormat {
  static constexpr int kExponentBits = 5;
  static constexpr int kMantissaBits = 10;
  static uint16_t FromFloat(float value) { return FloatToHalfBits(value); }
  static float ToFloat(uint16_t bits) { return HalfBitsToFloat(bits); }
};

struct Bf16Format {
  static constexpr int kExponentBits = 8;
  static constexpr int kMantissaBits = 7;
  static uint16_t FromFloat(float value) { return FloatToBf16Bits(value); }
  static float ToFloat(uint16_t bits) { return Bf16BitsToFloat(bits); }
};

template <typename Format>
class BinaryFloat16 {
  template <typename U>
  using EnableIfArithmetic = std::enable_if_t<std::is_arithmetic<U>::value, int>;
  template <typename U>
  using EnableIfIntegral = std::enable_if_t<std::is_integral<U>::value, int>;
  template <typename U>
  using EnableIfFloating = std::enable_if_t<std::is_floating_point<U>::value, int>;

 public:
  BinaryFloat16() = default;
  template <typename U, EnableIfArithmetic<U> = 0>
  BinaryFloat16(U value) : bits_(Format::FromFloat(static_cast<float>(value))) {}  // NOLINT: implicit like a builtin
  // Between the two 16-bit formats only explicitly, through float.
  template <typename OtherFormat, std::enable_if_t<!std::is_same<OtherFormat, Format>::value, int> = 0>
  explicit BinaryFloat16(BinaryFloat16<OtherFormat> other) : bits_(Format::FromFloat(static_cast<float>(other))) {}

  static BinaryFloat16 FromBits(uint16_t bits) {
    BinaryFloat16 result;
    result.bits_ = bits;
    return result;
  }
  uint16_t bits() const { return bits_; }
  float ToFloat() const { return Format::ToFloat(bits_); }
  operator float() const { return Format::ToFloat(bits_); }  // NOLINT: implicit like a builtin

  BinaryFloat16 operator-() const { return FromBits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
  BinaryFloat16 operator+() const { return *this; }

  friend BinaryFloat16 operator+(BinaryFloat16 a, BinaryFloat16 b) { return BinaryFloat16(a.ToFloat() + b.ToFloat()); }
  friend BinaryFloat16 operator-(BinaryFloat16 a, BinaryFloat16 b) { return BinaryFloat16(a.ToFloat() - b.ToFloat()); }
  friend BinaryFloat16 operator*(BinaryFloat16 a, BinaryFloat16 b) { return BinaryFloat16(a.ToFloat() * b.ToFloat()); }
  friend BinaryFloat16 operator/(BinaryFloat16 a, BinaryFloat16 b) { return BinaryFloat16(a.ToFloat() / b.ToFloat()); }

  // With an integer the result stays 16-bit; with float/double it widens, as for a builtin narrower type.
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator+(BinaryFloat16 a, U b) { return a + BinaryFloat16(b); }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator+(U a, BinaryFloat16 b) { return BinaryFloat16(a) + b; }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator-(BinaryFloat16 a, U b) { return a - BinaryFloat16(b); }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator-(U a, BinaryFloat16 b) { return BinaryFloat16(a) - b; }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator*(BinaryFloat16 a, U b) { return a * BinaryFloat16(b); }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator*(U a, BinaryFloat16 b) { return BinaryFloat16(a) * b; }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator/(BinaryFloat16 a, U b) { return a / BinaryFloat16(b); }
  template <typename U, EnableIfIntegral<U> = 0>
  friend BinaryFloat16 operator/(U a, BinaryFloat16 b) { return BinaryFloat16(a) / b; }

  template <typename U, EnableIfFloating<U> = 0>
  friend U operator+(BinaryFloat16 a, U b) { return static_cast<U>(a.ToFloat()) + b; }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator+(U a, BinaryFloat16 b) { return a + static_cast<U>(b.ToFloat()); }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator-(BinaryFloat16 a, U b) { return static_cast<U>(a.ToFloat()) - b; }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator-(U a, BinaryFloat16 b) { return a - static_cast<U>(b.ToFloat()); }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator*(BinaryFloat16 a, U b) { return static_cast<U>(a.ToFloat()) * b; }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator*(U a, BinaryFloat16 b) { return a * static_cast<U>(b.ToFloat()); }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator/(BinaryFloat16 a, U b) { return static_cast<U>(a.ToFloat()) / b; }
  template <typename U, EnableIfFloating<U> = 0>
  friend U operator/(U a, BinaryFloat16 b) { return a / static_cast<U>(b.ToFloat()); }

  BinaryFloat16& operator+=(BinaryFloat16 other) { return *this = *this + other; }
  BinaryFloat16& operator-=(BinaryFloat16 other) { return *this = *this - other; }
  BinaryFloat16& operator*=(BinaryFloat16 other) { return *this = *this * other; }
  BinaryFloat16& operator/=(BinaryFloat16 other) { return *this = *this / other; }
  template <typename U, EnableIfArithmetic<U> = 0>
  BinaryFloat16& operator+=(U other) { return *this = BinaryFloat16(ToFloat() + static_cast<float>(other)); }
  template <typename U, EnableIfArithmetic<U> = 0>
  BinaryFloat16& operator-=(U other) { return *this = BinaryFloat16(ToFloat() - static_cast<float>(other)); }
  template <typename U, EnableIfArithmetic<U> = 0>
  BinaryFloat16& operator*=(U other) { return *this = BinaryFloat16(ToFloat() * static_cast<float>(other)); }
  template <typename U, EnableIfArithmetic<U> = 0>
  BinaryFloat16& operator/=(U other) { return *this = BinaryFloat16(ToFloat() / static_cast<float>(other)); }

#define OPGEN_TWIN_FLOAT16_COMPARISON(op)                                                              \
  friend bool operator op(BinaryFloat16 a, BinaryFloat16 b) { return a.ToFloat() op b.ToFloat(); }     \
  template <typename U, EnableIfArithmetic<U> = 0>                                                      \
  friend bool operator op(BinaryFloat16 a, U b) { return static_cast<double>(a.ToFloat()) op static_cast<double>(b); } \
  template <typename U, EnableIfArithmetic<U> = 0>                                                      \
  friend bool operator op(U a, BinaryFloat16 b) { return static_cast<double>(a) op static_cast<double>(b.ToFloat()); }
  OPGEN_TWIN_FLOAT16_COMPARISON(==)
  OPGEN_TWIN_FLOAT16_COMPARISON(!=)
  OPGEN_TWIN_FLOAT16_COMPARISON(<)
  OPGEN_TWIN_FLOAT16_COMPARISON(<=)
  OPGEN_TWIN_FLOAT16_COMPARISON(>)
  OPGEN_TWIN_FLOAT16_COMPARISON(>=)
#undef OPGEN_TWIN_FLOAT16_COMPARISON

 private:
  uint16_t bits_ = 0;
};

using Half = BinaryFloat16<HalfFormat>;
using Bfloat16 = BinaryFloat16<Bf16Format>;

static_assert(sizeof(Half) == 2 && std::is_trivially_copyable<Half>::value, "half must be 2 trivially copyable bytes");
static_assert(sizeof(Bfloat16) == 2 && std::is_trivially_copyable<Bfloat16>::value, "bf16 must be 2 trivially copyable bytes");

}  // namespace opgen_twin

// Ascend C spells these in the global namespace.
using half = opgen_twin::Half;
using bfloat16_t = opgen_twin::Bfloat16;
