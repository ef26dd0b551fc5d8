// Compare / Compares (CompareScalar) and Select of Ascend C, count forms.
//
// Compare writes one bit per element, element i in bit (i % 8) of byte i / 8 (little-endian within each
// byte). Select takes src0 where the mask bit is 1, src1 (or the scalar) where it is 0.
#pragma once

#include <cstdint>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"
#include "opgen_twin/vector_ops.h"

namespace AscendC {

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

const char* CmpModeName(AscendC::CMPMODE mode);
const char* SelModeName(AscendC::SELMODE mode);

template <typename C>
inline bool CompareValues(C a, C b, AscendC::CMPMODE mode) {
  switch (mode) {
    case AscendC::CMPMODE::LT: return a < b;
    case AscendC::CMPMODE::GT: return a > b;
    case AscendC::CMPMODE::EQ: return a == b;
    case AscendC::CMPMODE::LE: return a <= b;
    case AscendC::CMPMODE::GE: return a >= b;
    case AscendC::CMPMODE::NE: return a != b;
  }
  return false;
}

inline void CheckCmpMode(const char* api, AscendC::CMPMODE mode) {
  if (static_cast<uint8_t>(mode) > static_cast<uint8_t>(AscendC::CMPMODE::NE)) {
    Fail("INVALID_ARGUMENT", api, StringPrintf("cmpMode=%d is not a CMPMODE", static_cast<int>(mode)));
  }
}

// Shared front of Compare and Compares: dtype, the 256-byte rule, operands. Returns the element count.
template <typename T, typename U>
uint64_t CompareProlog(Api api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& src0, int64_t count,
                       AscendC::CMPMODE mode) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  CheckCmpMode(name, mode);
  const uint64_t n = CheckCount(name, count);
  if (n * sizeof(T) % kRepeatBytes != 0) {
    Fail("COMPARE_COUNT", name,
         StringPrintf("count=%llu elements of %zu bytes = %llu bytes is not a whole number of 256-byte repeats (A2 "
                "silently skips the last %llu bytes)",
                static_cast<unsigned long long>(n), sizeof(T), static_cast<unsigned long long>(n * sizeof(T)),
                static_cast<unsigned long long>(n * sizeof(T) % kRepeatBytes)));
  }
  CheckCountOperand(name, "src0", src0, n);
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, n / 8, true);
  return n;
}

template <typename T, typename Rhs>
void WriteCompareBits(uint8_t* out, const uint8_t* lhs, uint64_t n, AscendC::CMPMODE mode, Rhs rhs) {
  for (uint64_t byte = 0; byte < n / 8; ++byte) {
    uint8_t bits = 0;
    for (uint64_t bit = 0; bit < 8; ++bit) {
      const uint64_t i = byte * 8 + bit;
      if (CompareValues(Widen(LoadElement<T>(lhs, i)), rhs(i), mode)) bits = static_cast<uint8_t>(bits | (1u << bit));
    }
    out[byte] = bits;
  }
}

template <typename T, typename U, typename Source1>
void SelectImpl(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& sel_mask,
                const AscendC::LocalTensor<T>& src0, AscendC::SELMODE mode, int64_t count, Source1 source1) {
  const char* name = "Select";
  const uint64_t n = CheckCount(name, count);
  CheckCountOperand(name, "dst", dst, n);
  CheckCountOperand(name, "src0", src0, n);
  // Mode 0 reuses the first repeat's worth of mask bits for every repeat; modes 1 and 2 consume them in order.
  const uint64_t per_repeat = kRepeatBytes / sizeof(T);
  const bool reuse = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  const uint64_t mask_bits = reuse ? (n < per_repeat ? n : per_repeat) : n;
  CheckUbOperand(name, "selMask", sel_mask.twin_ref(), 0, (mask_bits + 7) / 8, true);
  const uint8_t* mask = sel_mask.twin_bytes();
  uint8_t* out = dst.twin_bytes();
  const uint8_t* in0 = src0.twin_bytes();
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t bit = reuse ? i % per_repeat : i;
    const bool take_src0 = ((mask[bit / 8] >> (bit % 8)) & 1u) != 0;
    StoreElement<T>(out, i, take_src0 ? LoadElement<T>(in0, i) : source1(i));
  }
  CountVector(Api::kSelect, n);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// dst bit i = src0[i] <cmpMode> src1[i]; count * sizeof(T) must be a multiple of 256 bytes.
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count) {
  namespace d = opgen_twin::detail;
  const uint64_t n = d::CompareProlog(opgen_twin::Api::kCompare, dst, src0, count, cmpMode);
  d::CheckCountOperand("Compare", "src1", src1, n);
  const uint8_t* rhs = src1.twin_bytes();
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), n, cmpMode,
                         [rhs](uint64_t i) { return d::Widen(d::LoadElement<T>(rhs, i)); });
  opgen_twin::detail::CountVector(opgen_twin::Api::kCompare, n);
}

// dst bit i = src0[i] <cmpMode> src1Scalar; count * sizeof(T) must be a multiple of 256 bytes.
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count) {
  namespace d = opgen_twin::detail;
  const uint64_t n = d::CompareProlog(opgen_twin::Api::kCompares, dst, src0, count, cmpMode);
  const auto rhs = d::Widen(src1Scalar);
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), n, cmpMode, [rhs](uint64_t) { return rhs; });
  opgen_twin::detail::CountVector(opgen_twin::Api::kCompares, n);
}

// The older name of Compares.
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count) {
  namespace d = opgen_twin::detail;
  const uint64_t n = d::CompareProlog(opgen_twin::Api::kCompareScalar, dst, src0, count, cmpMode);
  const auto rhs = d::Widen(src1Scalar);
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), n, cmpMode, [rhs](uint64_t) { return rhs; });
  opgen_twin::detail::CountVector(opgen_twin::Api::kCompareScalar, n);
}

// Modes VSEL_CMPMASK_SPR (0) and VSEL_TENSOR_TENSOR_MODE (2).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kSelect, opgen_twin::kDTypeOf<T>);
  if (selMode != SELMODE::VSEL_CMPMASK_SPR && selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE) {
    opgen_twin::Fail("SELECT_MODE", "Select",
                     opgen_twin::StringPrintf("selMode=%s needs a scalar src1; with two tensors use VSEL_CMPMASK_SPR or "
                                        "VSEL_TENSOR_TENSOR_MODE",
                                        d::SelModeName(selMode)));
  }
  d::CheckCountOperand("Select", "src1", src1, d::CheckCount("Select", count));
  const uint8_t* in1 = src1.twin_bytes();
  d::SelectImpl(dst, selMask, src0, selMode, count, [in1](uint64_t i) { return d::LoadElement<T>(in1, i); });
}

// Mode VSEL_TENSOR_SCALAR_MODE (1).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kSelect, opgen_twin::kDTypeOf<T>);
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
    opgen_twin::Fail("SELECT_MODE", "Select",
                     opgen_twin::StringPrintf("selMode=%s with a scalar src1; use VSEL_TENSOR_SCALAR_MODE",
                                        d::SelModeName(selMode)));
  }
  d::SelectImpl(dst, selMask, src0, selMode, count, [src1](uint64_t) { return src1; });
}

}  // namespace AscendC
