// op::fp16_t: IEEE binary16 value with round-to-nearest-even conversion from float/double.
#ifndef OPGEN_TWIN_OPDEV_FP16_T_H_
#define OPGEN_TWIN_OPDEV_FP16_T_H_

#include <cstdint>

namespace op {
namespace numeric {
uint16_t DoubleToHalfBits(double value);     // RNE, overflow to inf, NaN kept
double HalfBitsToDouble(uint16_t bits);
uint16_t DoubleToBFloat16Bits(double value);  // RNE, overflow to inf, NaN kept
double BFloat16BitsToDouble(uint16_t bits);
}  // namespace numeric

struct fp16_t {
  uint16_t val = 0;
  fp16_t() = default;
  fp16_t(float value) : val(numeric::DoubleToHalfBits(value)) {}    // NOLINT: implicit like CANN
  fp16_t(double value) : val(numeric::DoubleToHalfBits(value)) {}   // NOLINT
  fp16_t(int32_t value) : val(numeric::DoubleToHalfBits(value)) {}  // NOLINT
  static fp16_t FromBits(uint16_t bits) {
    fp16_t h;
    h.val = bits;
    return h;
  }
  float toFloat() const { return static_cast<float>(numeric::HalfBitsToDouble(val)); }
  double toDouble() const { return numeric::HalfBitsToDouble(val); }
  operator float() const { return toFloat(); }  // NOLINT
};
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_FP16_T_H_
