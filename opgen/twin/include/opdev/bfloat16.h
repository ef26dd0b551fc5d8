// op::bfloat16: brain float with round-to-nearest-even conversion from float/double.
#ifndef OPGEN_TWIN_OPDEV_BFLOAT16_H_
#define OPGEN_TWIN_OPDEV_BFLOAT16_H_

#include <cstdint>

#include "opdev/fp16_t.h"

namespace op {
struct bfloat16 {
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  uint16_t value = 0;
  bfloat16() = default;
  constexpr bfloat16(uint16_t bits, from_bits_t) : value(bits) {}
  bfloat16(float v) : value(numeric::DoubleToBFloat16Bits(v)) {}   // NOLINT: implicit like CANN
  bfloat16(double v) : value(numeric::DoubleToBFloat16Bits(v)) {}  // NOLINT
  operator float() const { return static_cast<float>(numeric::BFloat16BitsToDouble(value)); }  // NOLINT
};
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_BFLOAT16_H_
