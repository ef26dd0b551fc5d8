// Compare / Compares (CompareScalar) and Select of Ascend C, count forms.
//
// Compare writes one bit per element, element i in bit (i % 8) of byte i / 8 (little-endian within each
// byte). Select takes src0 where the mask bit is 1, src1 (or the scalar) where it is 0.
#pragma once

#include <cstdint>
#include <type_traits>

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
  RequireCompareDtype(api, kDTypeOf<T>, mode == AscendC::CMPMODE::EQ);
  CheckCmpMode(name, mode);
  const uint64_t n = CheckCount(name, count);
  if (n * sizeof(T) % kRepeatBytes != 0) {
    Fail("COMPARE_COUNT", name,
         StringPrintf("count=%llu elements of %zu bytes = %llu bytes is not a whole number of 256-byte repeats (A2 "
                "silently skips the last %llu bytes)",
                static_cast<unsigned long long>(n), sizeof(T), static_cast<unsigned long long>(n * sizeof(T)),
                static_cast<unsigned long long>(n * sizeof(T) % kRepeatBytes)));
  }
  CheckCountOperand(name, "src0", src0, n, UbUse::kVectorRead);
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, n / 8, true, UbUse::kVectorWrite);
  return n;
}

// The comparisons as types, so that the element loop is instantiated once per mode (no switch inside it).
struct CmpLt {
  template <typename C>
  bool operator()(C a, C b) const { return a < b; }
  VecI Vec(VecF a, VecF b) const { return a < b; }
};
struct CmpGt {
  template <typename C>
  bool operator()(C a, C b) const { return a > b; }
  VecI Vec(VecF a, VecF b) const { return a > b; }
};
struct CmpEq {
  template <typename C>
  bool operator()(C a, C b) const { return a == b; }
  VecI Vec(VecF a, VecF b) const { return a == b; }
};
struct CmpLe {
  template <typename C>
  bool operator()(C a, C b) const { return a <= b; }
  VecI Vec(VecF a, VecF b) const { return a <= b; }
};
struct CmpGe {
  template <typename C>
  bool operator()(C a, C b) const { return a >= b; }
  VecI Vec(VecF a, VecF b) const { return a >= b; }
};
struct CmpNe {
  template <typename C>
  bool operator()(C a, C b) const { return a != b; }
  VecI Vec(VecF a, VecF b) const { return a != b; }
};

// The low kVecLanes bits: bit j set where lane j of the mask is set.
inline uint32_t LaneBits(VecI mask) {
  const VecI weights = {1, 2, 4, 8};
  const VecI bits = mask & weights;
  return static_cast<uint32_t>(bits[0] | bits[1] | bits[2] | bits[3]);
}

// One bit per element, n a multiple of 8. `rhs` is the src1 tensor's bytes, or null for the scalar.
template <typename T, typename Cmp>
void CompareBitsAs(uint8_t* out, const uint8_t* lhs, const uint8_t* rhs, ComputeType<T> scalar, uint64_t n,
                   Cmp cmp) {
  if constexpr (std::is_same<T, float>::value) {
    static_assert(8 % kVecLanes == 0, "a mask byte holds whole vectors");
    const VecF splat = SplatVec(scalar);
    for (uint64_t byte = 0; byte < n / 8; ++byte) {
      uint32_t bits = 0;
      for (uint64_t lane = 0; lane < 8; lane += kVecLanes) {
        const uint64_t i = byte * 8 + lane;
        const VecF b = rhs != nullptr ? LoadVec(rhs + i * sizeof(T)) : splat;
        bits |= LaneBits(cmp.Vec(LoadVec(lhs + i * sizeof(T)), b)) << lane;
      }
      out[byte] = static_cast<uint8_t>(bits);
    }
  } else {
    for (uint64_t byte = 0; byte < n / 8; ++byte) {
      uint32_t bits = 0;
      for (uint64_t bit = 0; bit < 8; ++bit) {
        const uint64_t i = byte * 8 + bit;
        const ComputeType<T> b = rhs != nullptr ? Widen(LoadElement<T>(rhs, i)) : scalar;
        bits |= static_cast<uint32_t>(cmp(Widen(LoadElement<T>(lhs, i)), b)) << bit;
      }
      out[byte] = static_cast<uint8_t>(bits);
    }
  }
}

template <typename T>
void WriteCompareBits(uint8_t* out, const uint8_t* lhs, const uint8_t* rhs, ComputeType<T> scalar, uint64_t n,
                      AscendC::CMPMODE mode) {
  switch (mode) {
    case AscendC::CMPMODE::LT: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpLt{}); return;
    case AscendC::CMPMODE::GT: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpGt{}); return;
    case AscendC::CMPMODE::EQ: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpEq{}); return;
    case AscendC::CMPMODE::LE: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpLe{}); return;
    case AscendC::CMPMODE::GE: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpGe{}); return;
    case AscendC::CMPMODE::NE: CompareBitsAs<T>(out, lhs, rhs, scalar, n, CmpNe{}); return;
  }
}

// dst[i] = mask bit ? src0[i] : src1 (tensor `in1`, or `scalar` when in1 is null). With `reuse` the bits of
// the first `period` elements repeat (period a multiple of 8).
template <typename T>
void SelectLoop(uint8_t* out, const uint8_t* mask, const uint8_t* in0, const uint8_t* in1, const T& scalar,
                uint64_t n, bool reuse, uint64_t period) {
  const uint64_t vector_end = std::is_same<T, float>::value ? n - n % kVecLanes : 0;
  if constexpr (std::is_same<T, float>::value) {
    static_assert(8 % kVecLanes == 0, "a mask byte holds whole vectors");
    const VecF splat = SplatVec(scalar);
    const VecI weights = {1, 2, 4, 8};
    for (uint64_t i = 0; i < vector_end; i += kVecLanes) {
      const uint64_t bit = reuse ? i % period : i;
      const int32_t lanes = static_cast<int32_t>((mask[bit / 8] >> (bit % 8)) & 0xfu);
      const VecI take0 = (VecI{lanes, lanes, lanes, lanes} & weights) != 0;
      const VecF b = in1 != nullptr ? LoadVec(in1 + i * sizeof(T)) : splat;
      StoreVec(out + i * sizeof(T), SelectVec(take0, LoadVec(in0 + i * sizeof(T)), b));
    }
  }
  for (uint64_t i = vector_end; i < n; ++i) {
    const uint64_t bit = reuse ? i % period : i;
    const bool take_src0 = ((mask[bit / 8] >> (bit % 8)) & 1u) != 0;
    StoreElement<T>(out, i, take_src0 ? LoadElement<T>(in0, i) : (in1 != nullptr ? LoadElement<T>(in1, i) : scalar));
  }
}

template <typename T, typename U>
void SelectImpl(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& sel_mask,
                const AscendC::LocalTensor<T>& src0, AscendC::SELMODE mode, int64_t count, const uint8_t* in1,
                const T& scalar) {
  const char* name = "Select";
  const uint64_t n = CheckCount(name, count);
  CheckCountOperand(name, "dst", dst, n, UbUse::kVectorWrite);
  CheckCountOperand(name, "src0", src0, n, UbUse::kVectorRead);
  // Mode 0 reuses the first repeat's worth of mask bits for every repeat; modes 1 and 2 consume them in order.
  const uint64_t per_repeat = kRepeatBytes / sizeof(T);
  const bool reuse = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  const uint64_t mask_bits = reuse ? (n < per_repeat ? n : per_repeat) : n;
  CheckUbOperand(name, "selMask", sel_mask.twin_ref(), 0, (mask_bits + 7) / 8, true, UbUse::kVectorRead);
  SelectLoop<T>(dst.twin_bytes(), sel_mask.twin_bytes(), src0.twin_bytes(), in1, scalar, n, reuse, per_repeat);
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
  d::CheckCountOperand("Compare", "src1", src1, n, d::UbUse::kVectorRead);
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), src1.twin_bytes(), d::ComputeType<T>{}, n, cmpMode);
  opgen_twin::detail::CountVector(opgen_twin::Api::kCompare, n);
}

// dst bit i = src0[i] <cmpMode> src1Scalar; count * sizeof(T) must be a multiple of 256 bytes.
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count) {
  namespace d = opgen_twin::detail;
  const uint64_t n = d::CompareProlog(opgen_twin::Api::kCompares, dst, src0, count, cmpMode);
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), nullptr, d::Widen(src1Scalar), n, cmpMode);
  opgen_twin::detail::CountVector(opgen_twin::Api::kCompares, n);
}

// The older name of Compares.
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count) {
  namespace d = opgen_twin::detail;
  const uint64_t n = d::CompareProlog(opgen_twin::Api::kCompareScalar, dst, src0, count, cmpMode);
  d::WriteCompareBits<T>(dst.twin_bytes(), src0.twin_bytes(), nullptr, d::Widen(src1Scalar), n, cmpMode);
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
  d::CheckCountOperand("Select", "src1", src1, d::CheckCount("Select", count), d::UbUse::kVectorRead);
  d::SelectImpl(dst, selMask, src0, selMode, count, src1.twin_bytes(), T{});
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
  d::SelectImpl(dst, selMask, src0, selMode, count, nullptr, src1);
}

}  // namespace AscendC
