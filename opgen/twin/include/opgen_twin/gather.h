// Gather of Ascend C (the level-2 form, "the first count elements"): dst[i] is the element of src that lies
// srcBaseAddr + srcOffset[i] bytes after src's start.
//
// Declared as asc-devkit's include/basic_api/kernel_operator_vec_gather_intf.h declares it; the repeat forms
// (mask / mask[], repeatTime, dstRepStride) are not modelled. Limits from the Gather API reference (A2/A3), each a
// fault here:
// - dst, src and srcOffset start 32-byte aligned (TPosition VECIN/VECCALC/VECOUT);
// - each srcOffset value (bytes, relative to src's start) and srcBaseAddr are multiples of sizeof(T) ("aligned to
//   the element width, else unexpected behaviour"), and every element read stays inside UB (the twin: inside src);
// - count elements: srcOffset holds count uint32_t, dst count T;
// - the general address-overlap rule: dst shares no byte with src or srcOffset here, since elements are read in
//   any order (a result could overwrite source data not yet read);
// - dtypes: A2/A3 int16_t/uint16_t/int32_t/uint32_t/float/half/bfloat16_t; Atlas inference AI Core the same less
//   bfloat16_t; Atlas 200I/500 A2 adds int8_t/uint8_t and lacks bfloat16_t; Ascend 950 as asc-devkit's list; not on
//   the Atlas training parts (opgen_twin/api_rules.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count) {
  namespace d = opgen_twin::detail;
  const char* name = "Gather";
  d::RequireDtype(opgen_twin::Api::kGather, opgen_twin::kDTypeOf<T>);
  if (srcBaseAddr % sizeof(T) != 0) {
    opgen_twin::Fail("INVALID_ARGUMENT", name,
                     opgen_twin::StringPrintf("srcBaseAddr=%u bytes is not a multiple of the %u-byte element",
                                              srcBaseAddr, static_cast<unsigned>(sizeof(T))));
  }
  if (count == 0) return;
  d::CheckUbOperand(name, "srcOffset", srcOffset.twin_ref(), 0, uint64_t{count} * sizeof(uint32_t), true,
                    d::UbUse::kVectorRead);
  d::CheckUbOperand(name, "dst", dst.twin_ref(), 0, uint64_t{count} * sizeof(T), true, d::UbUse::kVectorWrite);
  const uint64_t src_bytes = src.twin_ref().bytes;
  const uint8_t* offsets = srcOffset.twin_bytes();
  uint64_t src_end = 0;  // one past the last byte of src read, for the operand check
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t offset = 0;
    std::memcpy(&offset, offsets + uint64_t{i} * sizeof(uint32_t), sizeof(offset));
    const uint64_t at = uint64_t{srcBaseAddr} + offset;
    if (offset % sizeof(T) != 0) {
      opgen_twin::Fail("INVALID_ARGUMENT", name,
                       opgen_twin::StringPrintf("srcOffset[%u]=%u bytes is not a multiple of the %u-byte element", i,
                                                offset, static_cast<unsigned>(sizeof(T))));
    }
    if (at + sizeof(T) > src_bytes) {
      opgen_twin::Fail("UB_OUT_OF_BOUNDS", name,
                       opgen_twin::StringPrintf("srcOffset[%u]=%u bytes (+ srcBaseAddr %u) reads past src's %llu bytes",
                                                i, offset, srcBaseAddr, static_cast<unsigned long long>(src_bytes)));
    }
    src_end = at + sizeof(T) > src_end ? at + sizeof(T) : src_end;
  }
  d::CheckUbOperand(name, "src", src.twin_ref(), 0, src_end, true, d::UbUse::kVectorRead);
  const uint64_t dst_bytes = uint64_t{count} * sizeof(T);
  if (d::UbOverlap(dst.twin_ref(), dst_bytes, src.twin_ref(), src_end) ||
      d::UbOverlap(dst.twin_ref(), dst_bytes, srcOffset.twin_ref(), uint64_t{count} * sizeof(uint32_t))) {
    opgen_twin::Fail("UB_OVERLAP", name,
                     opgen_twin::StringPrintf("dst [%u, %llu) overlaps src or srcOffset: a result could overwrite "
                                              "source data not yet read",
                                              dst.twin_ref().offset,
                                              static_cast<unsigned long long>(dst.twin_ref().offset + dst_bytes)));
  }
  std::vector<uint8_t> gathered(dst_bytes);
  const uint8_t* in = src.twin_bytes();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t offset = 0;
    std::memcpy(&offset, offsets + uint64_t{i} * sizeof(uint32_t), sizeof(offset));
    std::memcpy(gathered.data() + uint64_t{i} * sizeof(T), in + srcBaseAddr + offset, sizeof(T));
  }
  std::memcpy(dst.twin_bytes(), gathered.data(), gathered.size());
  d::CountVector(opgen_twin::Api::kGather, count);
}

}  // namespace AscendC
