// Element-wise vector APIs of Ascend C: count forms ("first n elements") and the masked repeat forms.
//
// Numerics: float computes in float; half and bfloat16_t compute in float and round to nearest even per
// operation; integers compute in int64 and wrap to the element width.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"

namespace AscendC {

struct UnaryRepeatParams {
  UnaryRepeatParams() = default;
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                    const uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
};

struct BinaryRepeatParams {
  BinaryRepeatParams() = default;
  BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                     const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn),
        src1RepStride(src1RepStrideIn) {}
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <typename T>
struct ComputeTypeOf {
  using type = int64_t;  // integers: widened, wrapped back on store
};
template <>
struct ComputeTypeOf<float> {
  using type = float;
};
template <>
struct ComputeTypeOf<double> {
  using type = double;
};
template <>
struct ComputeTypeOf<Half> {
  using type = float;
};
template <>
struct ComputeTypeOf<Bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

template <typename T>
inline ComputeType<T> Widen(const T& value) {
  return static_cast<ComputeType<T>>(value);
}
template <typename T>
inline T Narrow(ComputeType<T> value) {
  return static_cast<T>(value);  // half/bf16: round to nearest even; integers: wrap
}

template <typename C>
inline bool IsNan(C value) {
  return value != value;
}

// --- SIMD lanes for float elements ---
//
// The element loops below run float tensors four lanes at a time through GCC vector extensions, so they
// compile to SSE/AVX at any optimisation level without relying on the auto-vectoriser. Each lane does the
// IEEE single-precision operation the scalar form does (no contraction, no reassociation), so the results
// are bit-identical to the scalar loop, NaN payloads, infinities and signed zeros included.
typedef float VecF __attribute__((vector_size(16)));
typedef int32_t VecI __attribute__((vector_size(16)));
constexpr uint64_t kVecLanes = sizeof(VecF) / sizeof(float);

inline VecF LoadVec(const uint8_t* address) {
  VecF value;
  std::memcpy(&value, address, sizeof(value));
  return value;
}
inline void StoreVec(uint8_t* address, VecF value) { std::memcpy(address, &value, sizeof(value)); }
inline VecF SplatVec(float value) { return VecF{value, value, value, value}; }
inline VecI AsInt(VecF value) { return (VecI)value; }  // NOLINT: a vector cast reinterprets the bits
inline VecF AsFloat(VecI value) { return (VecF)value; }  // NOLINT
// Per lane: mask ? a : b (mask lanes are 0 or -1).
inline VecF SelectVec(VecI mask, VecF a, VecF b) { return AsFloat((mask & AsInt(a)) | (~mask & AsInt(b))); }

// An element op with a vector form (`Vec`, same results lane by lane) sets kVector.
template <typename T, typename Op>
constexpr bool kUseVector = std::is_same<T, float>::value && Op::kVector;

// Element operations on compute-type values.
struct AddOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const { return a + b; }
  VecF Vec(VecF a, VecF b) const { return a + b; }
};
struct SubOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const { return a - b; }
  VecF Vec(VecF a, VecF b) const { return a - b; }
};
struct MulOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const { return a * b; }
  VecF Vec(VecF a, VecF b) const { return a * b; }
};
struct DivOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const { return a / b; }
  VecF Vec(VecF a, VecF b) const { return a / b; }
};
// NaN propagates through Max/Min.
struct MaxOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a > b ? a : b;
  }
  VecF Vec(VecF a, VecF b) const {
    const VecF larger = SelectVec(a > b, a, b);
    return SelectVec(a != a, a, SelectVec(b != b, b, larger));
  }
};
struct MinOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a < b ? a : b;
  }
  VecF Vec(VecF a, VecF b) const {
    const VecF smaller = SelectVec(a < b, a, b);
    return SelectVec(a != a, a, SelectVec(b != b, b, smaller));
  }
};
// dst = src >= 0 ? src : src * slope, with -0.0 taking the negative branch (sign bit decides).
struct LeakyReluOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a, C slope) const {
    if constexpr (std::is_floating_point<C>::value) {
      return std::signbit(a) ? a * slope : a;
    } else {
      return a < 0 ? a * slope : a;
    }
  }
  VecF Vec(VecF a, VecF slope) const { return SelectVec(AsInt(a) < 0, a * slope, a); }
};
// Transcendentals are evaluated in double and rounded once: deterministic across libm versions and
// within the hardware's 1 ulp (the numpy model of a kernel computes them the same way).
struct ExpOp {
  static constexpr bool kVector = false;
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::exp(static_cast<double>(a))); }
  VecF Vec(VecF a) const { return a; }
};
struct LnOp {
  static constexpr bool kVector = false;
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::log(static_cast<double>(a))); }
  VecF Vec(VecF a) const { return a; }
};
struct AbsOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a) const {
    if constexpr (std::is_floating_point<C>::value) {
      return std::fabs(a);
    } else {
      return a < 0 ? -a : a;
    }
  }
  VecF Vec(VecF a) const { return AsFloat(AsInt(a) & 0x7fffffff); }
};
struct SqrtOp {
  static constexpr bool kVector = false;
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::sqrt(a)); }
  VecF Vec(VecF a) const { return a; }
};
struct RsqrtOp {
  static constexpr bool kVector = false;
  template <typename C>
  C operator()(C a) const { return static_cast<C>(1.0 / std::sqrt(static_cast<double>(a))); }
  VecF Vec(VecF a) const { return a; }
};
struct ReciprocalOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a) const { return static_cast<C>(C(1) / a); }
  VecF Vec(VecF a) const { return SplatVec(1.0f) / a; }
};
struct ReluOp {
  static constexpr bool kVector = true;
  template <typename C>
  C operator()(C a) const {
    if (IsNan(a)) return a;
    return a > C(0) ? a : C(0);
  }
  VecF Vec(VecF a) const { return SelectVec(a != a, a, SelectVec(a > SplatVec(0.0f), a, SplatVec(0.0f))); }
};

// --- element loops: dst[i] = op(...) for i < n, on raw UB bytes (checked by the caller) ---
//
// A chunk of lanes is loaded before it is stored, so dst may be the same tensor as a source.

template <typename T, typename Op>
inline void UnaryLoop(uint8_t* out, const uint8_t* in, uint64_t n, Op op) {
  const uint64_t vector_end = kUseVector<T, Op> ? n - n % kVecLanes : 0;
  if constexpr (kUseVector<T, Op>) {
    for (uint64_t i = 0; i < vector_end; i += kVecLanes) {
      StoreVec(out + i * sizeof(T), op.Vec(LoadVec(in + i * sizeof(T))));
    }
  }
  for (uint64_t i = vector_end; i < n; ++i) StoreElement<T>(out, i, Narrow<T>(op(Widen(LoadElement<T>(in, i)))));
}

template <typename T, typename Op>
inline void BinaryLoop(uint8_t* out, const uint8_t* in0, const uint8_t* in1, uint64_t n, Op op) {
  const uint64_t vector_end = kUseVector<T, Op> ? n - n % kVecLanes : 0;
  if constexpr (kUseVector<T, Op>) {
    for (uint64_t i = 0; i < vector_end; i += kVecLanes) {
      StoreVec(out + i * sizeof(T), op.Vec(LoadVec(in0 + i * sizeof(T)), LoadVec(in1 + i * sizeof(T))));
    }
  }
  for (uint64_t i = vector_end; i < n; ++i) {
    StoreElement<T>(out, i, Narrow<T>(op(Widen(LoadElement<T>(in0, i)), Widen(LoadElement<T>(in1, i)))));
  }
}

template <typename T, typename Op>
inline void ScalarLoop(uint8_t* out, const uint8_t* in, const T& scalar, uint64_t n, Op op) {
  const ComputeType<T> s = Widen(scalar);
  const uint64_t vector_end = kUseVector<T, Op> ? n - n % kVecLanes : 0;
  if constexpr (kUseVector<T, Op>) {
    const VecF splat = SplatVec(s);
    for (uint64_t i = 0; i < vector_end; i += kVecLanes) {
      StoreVec(out + i * sizeof(T), op.Vec(LoadVec(in + i * sizeof(T)), splat));
    }
  }
  for (uint64_t i = vector_end; i < n; ++i) StoreElement<T>(out, i, Narrow<T>(op(Widen(LoadElement<T>(in, i)), s)));
}

template <typename T>
inline void FillLoop(uint8_t* out, const T& value, uint64_t n) {
  const uint64_t vector_end = std::is_same<T, float>::value ? n - n % kVecLanes : 0;
  if constexpr (std::is_same<T, float>::value) {
    const VecF splat = SplatVec(value);
    for (uint64_t i = 0; i < vector_end; i += kVecLanes) StoreVec(out + i * sizeof(T), splat);
  }
  for (uint64_t i = vector_end; i < n; ++i) StoreElement<T>(out, i, value);
}

inline uint64_t CheckCount(const char* api, int64_t count) {
  if (count < 0) {
    Fail("INVALID_ARGUMENT", api, StringPrintf("count=%lld is negative", static_cast<long long>(count)));
  }
  return static_cast<uint64_t>(count);
}

template <typename T>
inline void CheckCountOperand(const char* api, const char* role, const AscendC::LocalTensor<T>& tensor, uint64_t n,
                              UbUse use) {
  CheckUbOperand(api, role, tensor.twin_ref(), 0, n * sizeof(T), true, use);
}

template <typename T, typename Op>
void UnaryCount(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t count,
                Op op) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  const uint64_t n = CheckCount(name, count);
  CheckCountOperand(name, "dst", dst, n, UbUse::kVectorWrite);
  CheckCountOperand(name, "src", src, n, UbUse::kVectorRead);
  UnaryLoop<T>(dst.twin_bytes(), src.twin_bytes(), n, op);
  CountVector(api, n);
}

template <typename T, typename Op>
void BinaryCount(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                 const AscendC::LocalTensor<T>& src1, int64_t count, Op op) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  const uint64_t n = CheckCount(name, count);
  CheckCountOperand(name, "dst", dst, n, UbUse::kVectorWrite);
  CheckCountOperand(name, "src0", src0, n, UbUse::kVectorRead);
  CheckCountOperand(name, "src1", src1, n, UbUse::kVectorRead);
  BinaryLoop<T>(dst.twin_bytes(), src0.twin_bytes(), src1.twin_bytes(), n, op);
  CountVector(api, n);
}

template <typename T, typename Op>
void ScalarCount(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const T& scalar,
                 int64_t count, Op op) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  const uint64_t n = CheckCount(name, count);
  CheckCountOperand(name, "dst", dst, n, UbUse::kVectorWrite);
  CheckCountOperand(name, "src", src, n, UbUse::kVectorRead);
  ScalarLoop<T>(dst.twin_bytes(), src.twin_bytes(), scalar, n, op);
  CountVector(api, n);
}

// --- masked repeat forms ---

// Which elements of each 256-byte repeat take part: the first `count`, or the set bits of bits[0..1].
struct RepeatMask {
  bool bitwise = false;
  uint64_t count = 0;
  uint64_t bits[2] = {0, 0};
};

inline RepeatMask ContinuousMask(uint64_t count) {
  RepeatMask mask;
  mask.count = count;
  return mask;
}

inline RepeatMask BitwiseMask(const uint64_t* bits) {
  RepeatMask mask;
  mask.bitwise = true;
  mask.bits[0] = bits[0];
  mask.bits[1] = bits[1];
  return mask;
}

// One operand of a repeat-form instruction: block stride and repeat stride in 32-byte blocks.
struct StridedOperand {
  const char* role;
  UbRef ref;
  uint8_t* bytes;
  uint64_t block_stride;
  uint64_t repeat_stride;
};

template <typename T>
inline uint64_t ElementByteOffset(const StridedOperand& operand, uint64_t repeat, uint64_t element) {
  constexpr uint64_t kPerBlock = kUbBlockBytes / sizeof(T);
  return (repeat * operand.repeat_stride + element / kPerBlock * operand.block_stride) * kUbBlockBytes +
         element % kPerBlock * sizeof(T);
}

// Calls visit(element_offsets...) for every active element of every repeat, after checking that every
// operand stays inside its tensor. Returns the number of elements processed.
template <typename T, size_t N, typename Visit>
uint64_t ForEachMaskedElement(Api api, const RepeatMask& mask, uint64_t repeats, StridedOperand (&operands)[N],
                              Visit visit) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  constexpr uint64_t kPerRepeat = kRepeatBytes / sizeof(T);
  uint64_t active[kPerRepeat];
  uint64_t active_count = 0;
  for (uint64_t j = 0; j < kPerRepeat; ++j) {
    const bool on = mask.bitwise ? (j < 128 && ((mask.bits[j / 64] >> (j % 64)) & 1u) != 0) : j < mask.count;
    if (on) active[active_count++] = j;
  }
  if (repeats == 0 || active_count == 0) return 0;
  for (size_t k = 0; k < N; ++k) {
    uint64_t end = 0;
    for (uint64_t a = 0; a < active_count; ++a) {
      const uint64_t last = ElementByteOffset<T>(operands[k], repeats - 1, active[a]) + sizeof(T);
      const uint64_t first = ElementByteOffset<T>(operands[k], 0, active[a]) + sizeof(T);
      end = last > end ? last : end;
      end = first > end ? first : end;
    }
    // operands[0] is the destination.
    CheckUbOperand(name, operands[k].role, operands[k].ref, 0, end, true,
                   k == 0 ? UbUse::kVectorWrite : UbUse::kVectorRead);
  }
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t a = 0; a < active_count; ++a) {
      uint64_t offsets[N];
      for (size_t k = 0; k < N; ++k) offsets[k] = ElementByteOffset<T>(operands[k], r, active[a]);
      visit(offsets);
    }
  }
  const uint64_t processed = repeats * active_count;
  CountVector(api, processed);
  return processed;
}

template <typename T>
inline StridedOperand Strided(const char* role, const AscendC::LocalTensor<T>& tensor, uint64_t block_stride,
                              uint64_t repeat_stride) {
  return StridedOperand{role, tensor.twin_ref(), tensor.twin_bytes(), block_stride, repeat_stride};
}

template <typename T, typename Op>
void UnaryMasked(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                 const RepeatMask& mask, uint64_t repeats, const AscendC::UnaryRepeatParams& p, Op op) {
  StridedOperand operands[2] = {Strided("dst", dst, p.dstBlkStride, p.dstRepStride),
                                Strided("src", src, p.srcBlkStride, p.srcRepStride)};
  ForEachMaskedElement<T>(api, mask, repeats, operands, [&](const uint64_t (&o)[2]) {
    StoreElement<T>(operands[0].bytes + o[0], 0, Narrow<T>(op(Widen(LoadElement<T>(operands[1].bytes + o[1], 0)))));
  });
}

template <typename T, typename Op>
void ScalarMasked(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const T& scalar,
                  const RepeatMask& mask, uint64_t repeats, const AscendC::UnaryRepeatParams& p, Op op) {
  StridedOperand operands[2] = {Strided("dst", dst, p.dstBlkStride, p.dstRepStride),
                                Strided("src", src, p.srcBlkStride, p.srcRepStride)};
  const ComputeType<T> s = Widen(scalar);
  ForEachMaskedElement<T>(api, mask, repeats, operands, [&](const uint64_t (&o)[2]) {
    StoreElement<T>(operands[0].bytes + o[0], 0,
                    Narrow<T>(op(Widen(LoadElement<T>(operands[1].bytes + o[1], 0)), s)));
  });
}

template <typename T, typename Op>
void BinaryMasked(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                  const AscendC::LocalTensor<T>& src1, const RepeatMask& mask, uint64_t repeats,
                  const AscendC::BinaryRepeatParams& p, Op op) {
  StridedOperand operands[3] = {Strided("dst", dst, p.dstBlkStride, p.dstRepStride),
                                Strided("src0", src0, p.src0BlkStride, p.src0RepStride),
                                Strided("src1", src1, p.src1BlkStride, p.src1RepStride)};
  ForEachMaskedElement<T>(api, mask, repeats, operands, [&](const uint64_t (&o)[3]) {
    StoreElement<T>(operands[0].bytes + o[0], 0,
                    Narrow<T>(op(Widen(LoadElement<T>(operands[1].bytes + o[1], 0)),
                                 Widen(LoadElement<T>(operands[2].bytes + o[2], 0)))));
  });
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

#define OPGEN_TWIN_BINARY_API(Name, Op)                                                                             \
  template <typename T>                                                                                            \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                   const int32_t& count) {                                                                         \
    opgen_twin::detail::BinaryCount(opgen_twin::Api::k##Name, dst, src0, src1, count, opgen_twin::detail::Op{});    \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                   uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {             \
    opgen_twin::detail::BinaryMasked(opgen_twin::Api::k##Name, dst, src0, src1,                                    \
                                     opgen_twin::detail::ContinuousMask(mask), repeatTimes, repeatParams,          \
                                     opgen_twin::detail::Op{});                                                    \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                   uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {           \
    opgen_twin::detail::BinaryMasked(opgen_twin::Api::k##Name, dst, src0, src1,                                    \
                                     opgen_twin::detail::BitwiseMask(mask), repeatTimes, repeatParams,             \
                                     opgen_twin::detail::Op{});                                                    \
  }

OPGEN_TWIN_BINARY_API(Add, AddOp)
OPGEN_TWIN_BINARY_API(Sub, SubOp)
OPGEN_TWIN_BINARY_API(Mul, MulOp)
OPGEN_TWIN_BINARY_API(Div, DivOp)
OPGEN_TWIN_BINARY_API(Max, MaxOp)
OPGEN_TWIN_BINARY_API(Min, MinOp)
#undef OPGEN_TWIN_BINARY_API

// The scalar family: `template <typename T, bool isSetMask = true>` with a scalar of exactly T, plus the
// `<T, U, isSetMask>` spelling with U == T.
#define OPGEN_TWIN_SCALAR_API(Name, Op)                                                                             \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                     \
                   const int32_t& count) {                                                                         \
    opgen_twin::detail::ScalarCount(opgen_twin::Api::k##Name, dst, src, scalarValue, count,                        \
                                    opgen_twin::detail::Op{});                                                     \
  }                                                                                                                \
  template <typename T, typename U, bool isSetMask = true,                                                         \
            std::enable_if_t<std::is_same<T, U>::value, bool> = true>                                              \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalarValue,                     \
                   const int32_t& count) {                                                                         \
    opgen_twin::detail::ScalarCount(opgen_twin::Api::k##Name, dst, src, scalarValue, count,                        \
                                    opgen_twin::detail::Op{});                                                     \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,      \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                             \
    opgen_twin::detail::ScalarMasked(opgen_twin::Api::k##Name, dst, src, scalarValue,                              \
                                     opgen_twin::detail::ContinuousMask(mask), repeatTimes, repeatParams,          \
                                     opgen_twin::detail::Op{});                                                    \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask[],    \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                             \
    opgen_twin::detail::ScalarMasked(opgen_twin::Api::k##Name, dst, src, scalarValue,                              \
                                     opgen_twin::detail::BitwiseMask(mask), repeatTimes, repeatParams,             \
                                     opgen_twin::detail::Op{});                                                    \
  }

OPGEN_TWIN_SCALAR_API(Adds, AddOp)
OPGEN_TWIN_SCALAR_API(Muls, MulOp)
OPGEN_TWIN_SCALAR_API(Maxs, MaxOp)
OPGEN_TWIN_SCALAR_API(Mins, MinOp)
OPGEN_TWIN_SCALAR_API(LeakyRelu, LeakyReluOp)
#undef OPGEN_TWIN_SCALAR_API

// The count form is `template <typename T>` (asc-devkit's A2/A3 declaration; Ascend 950 adds a config parameter
// with a default), the masked forms `template <typename T, bool isSetMask = true>`.
#define OPGEN_TWIN_UNARY_API(Name, Op)                                                                              \
  template <typename T>                                                                                            \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {                   \
    opgen_twin::detail::UnaryCount(opgen_twin::Api::k##Name, dst, src, count, opgen_twin::detail::Op{});            \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTimes, \
                   const UnaryRepeatParams& repeatParams) {                                                        \
    opgen_twin::detail::UnaryMasked(opgen_twin::Api::k##Name, dst, src, opgen_twin::detail::ContinuousMask(mask),  \
                                    repeatTimes, repeatParams, opgen_twin::detail::Op{});                          \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                          \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                             \
    opgen_twin::detail::UnaryMasked(opgen_twin::Api::k##Name, dst, src, opgen_twin::detail::BitwiseMask(mask),     \
                                    repeatTimes, repeatParams, opgen_twin::detail::Op{});                          \
  }

OPGEN_TWIN_UNARY_API(Exp, ExpOp)
OPGEN_TWIN_UNARY_API(Ln, LnOp)
OPGEN_TWIN_UNARY_API(Abs, AbsOp)
OPGEN_TWIN_UNARY_API(Sqrt, SqrtOp)
OPGEN_TWIN_UNARY_API(Rsqrt, RsqrtOp)
OPGEN_TWIN_UNARY_API(Reciprocal, ReciprocalOp)
OPGEN_TWIN_UNARY_API(Relu, ReluOp)
#undef OPGEN_TWIN_UNARY_API

// dst[i] = scalarValue for the first `count` elements.
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count) {
  namespace d = opgen_twin::detail;
  const char* name = "Duplicate";
  d::RequireDtype(opgen_twin::Api::kDuplicate, opgen_twin::kDTypeOf<T>);
  const uint64_t n = d::CheckCount(name, count);
  d::CheckCountOperand(name, "dst", dst, n, d::UbUse::kVectorWrite);
  d::FillLoop<T>(dst.twin_bytes(), scalarValue, n);
  d::CountVector(opgen_twin::Api::kDuplicate, n);
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  namespace d = opgen_twin::detail;
  d::StridedOperand operands[1] = {d::Strided("dst", dst, dstBlockStride, dstRepeatStride)};
  d::ForEachMaskedElement<T>(opgen_twin::Api::kDuplicate, d::ContinuousMask(mask), repeatTimes, operands,
                             [&](const uint64_t (&o)[1]) { d::StoreElement<T>(operands[0].bytes + o[0], 0, scalarValue); });
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[], const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  namespace d = opgen_twin::detail;
  d::StridedOperand operands[1] = {d::Strided("dst", dst, dstBlockStride, dstRepeatStride)};
  d::ForEachMaskedElement<T>(opgen_twin::Api::kDuplicate, d::BitwiseMask(mask), repeatTimes, operands,
                             [&](const uint64_t (&o)[1]) { d::StoreElement<T>(operands[0].bytes + o[0], 0, scalarValue); });
}

}  // namespace AscendC
