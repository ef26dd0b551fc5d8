// GatherMask of Ascend C: keeps the elements of src0 that a bit mask selects and packs them at the start of dst.
//
// Declared as asc-devkit's include/basic_api/kernel_struct_gather.h and kernel_operator_vec_gather_mask_intf.h
// declare it. Semantics from the GatherMask API reference (A2/A3):
// - the mask is one of the built-in patterns 1..7 (1: even elements, 2: odd elements, 3..6: element 0..3 of
//   every four, 7: all), the same for every repeat, or a user tensor of uint16_t (2-byte T) / uint32_t
//   (4-byte T) whose bits, least significant first, select the elements of a repeat; repeat r reads its bits
//   src1RepeatStride 32-byte blocks after repeat r-1's;
// - reduceMode false (normal): each repeat covers 256 bytes of src0 and `mask` is ignored; reduceMode true
//   (counter, the A2/A3 form): each repeat covers `mask` elements, mask in [1, 2^32 - 1];
// - element j of repeat r sits at r * src0RepeatStride + (j / elements per block) * src0BlockStride blocks
//   (+ its place in the block); the kept elements go to dst contiguously, and rsvdCnt is their number.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"

namespace AscendC {

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };

// A2/A3's default (the header picks VERSION_V2 for __NPU_ARCH__ 2201); the mode is reserved and changes nothing.
// The header also carries the misspelt name.
const GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;
const GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;

struct GatherMaskParams {
  GatherMaskParams() {}
  GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                   const uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn),
        repeatTimes(repeatTimesIn),
        src0RepeatStride(src0RepeatStrideIn),
        src1RepeatStride(src1RepeatStrideIn) {}
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 8;
  uint8_t src1RepeatStride = 8;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// Bit j of built-in pattern `pattern` (1..7).
inline bool BuiltinPatternBit(uint8_t pattern, uint64_t j) {
  switch (pattern) {
    case 1: return j % 2 == 0;
    case 2: return j % 2 == 1;
    case 3: case 4: case 5: case 6: return j % 4 == static_cast<uint64_t>(pattern - 3);
    default: return true;  // 7
  }
}

// `user` is the pattern tensor (nullptr for a built-in pattern). Returns the number of elements kept.
template <typename T>
uint64_t GatherMaskRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0, const UbRef* user,
                       const uint8_t* user_bytes, uint8_t pattern, bool reduce_mode, uint32_t mask,
                       const AscendC::GatherMaskParams& p) {
  const char* name = "GatherMask";
  RequireDtype(Api::kGatherMask, kDTypeOf<T>);
  if (user == nullptr && (pattern < 1 || pattern > 7)) {
    Fail("INVALID_ARGUMENT", name, StringPrintf("src1Pattern=%u: the built-in patterns are 1..7", pattern));
  }
  if (reduce_mode && mask == 0) {
    Fail("INVALID_ARGUMENT", name, "reduceMode=true mask=0: counter mode takes mask in [1, 2^32 - 1] elements");
  }
  constexpr uint64_t kPerBlock = kUbBlockBytes / sizeof(T);
  const uint64_t per_repeat = reduce_mode ? mask : kRepeatBytes / sizeof(T);
  const uint64_t repeats = p.repeatTimes;
  if (repeats == 0) return 0;
  // Byte offset in src0 of element j of repeat r.
  auto src_offset = [&](uint64_t r, uint64_t j) {
    return (r * p.src0RepeatStride + j / kPerBlock * p.src0BlockStride) * kUbBlockBytes + j % kPerBlock * sizeof(T);
  };
  uint64_t src_end = 0;
  for (uint64_t r : {uint64_t{0}, repeats - 1}) {
    const uint64_t end = src_offset(r, per_repeat - 1) + sizeof(T);
    src_end = end > src_end ? end : src_end;
  }
  CheckUbOperand(name, "src0", src0.twin_ref(), 0, src_end, true, UbUse::kVectorRead);
  const uint64_t pattern_bytes_per_repeat = (per_repeat + 7) / 8;
  if (user != nullptr) {
    const uint64_t user_end = (repeats - 1) * p.src1RepeatStride * kUbBlockBytes + pattern_bytes_per_repeat;
    CheckUbOperand(name, "src1Pattern", *user, 0, user_end, true, UbUse::kVectorRead);
  }
  // Count first, so that dst is checked before anything is written.
  auto selected = [&](uint64_t r, uint64_t j) {
    if (user == nullptr) return BuiltinPatternBit(pattern, j);
    const uint8_t byte = user_bytes[r * p.src1RepeatStride * kUbBlockBytes + j / 8];
    return ((byte >> (j % 8)) & 1u) != 0;
  };
  uint64_t kept = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t j = 0; j < per_repeat; ++j) kept += selected(r, j) ? 1 : 0;
  }
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, kept * sizeof(T), true, UbUse::kVectorWrite);
  // Gather into a copy first: dst may overlap src0.
  const uint8_t* in = src0.twin_bytes();
  uint8_t* out = dst.twin_bytes();
  std::vector<uint8_t> gathered(kept * sizeof(T));
  uint64_t n = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t j = 0; j < per_repeat; ++j) {
      if (selected(r, j)) std::memcpy(gathered.data() + sizeof(T) * n++, in + src_offset(r, j), sizeof(T));
    }
  }
  if (kept > 0) std::memcpy(out, gathered.data(), gathered.size());
  CountVector(Api::kGatherMask, repeats * per_repeat);
  return kept;
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// User pattern: src1Pattern is uint16_t for 2-byte T, uint32_t for 4-byte T.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
  static_assert(std::is_same<U, uint16_t>::value || std::is_same<U, uint32_t>::value,
                "GatherMask takes a uint16_t or uint32_t src1Pattern");
  if (sizeof(U) != sizeof(T)) {
    opgen_twin::Fail("DTYPE_UNSUPPORTED", "GatherMask",
                     opgen_twin::StringPrintf("dtype=%s src1Pattern=%s: a %u-byte type takes a %s pattern",
                                              opgen_twin::DTypeName(opgen_twin::kDTypeOf<T>),
                                              opgen_twin::DTypeName(opgen_twin::kDTypeOf<U>),
                                              static_cast<unsigned>(sizeof(T)),
                                              sizeof(T) == 2 ? "uint16_t" : "uint32_t"));
  }
  rsvdCnt = opgen_twin::detail::GatherMaskRun(dst, src0, &src1Pattern.twin_ref(), src1Pattern.twin_bytes(), 0,
                                              reduceMode, mask, gatherMaskParams);
}

// Built-in pattern 1..7.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
  rsvdCnt = opgen_twin::detail::GatherMaskRun(dst, src0, nullptr, nullptr, src1Pattern, reduceMode, mask,
                                              gatherMaskParams);
}

}  // namespace AscendC
