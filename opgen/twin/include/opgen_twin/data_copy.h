// DataCopy and DataCopyPad of Ascend C.
#pragma once

#include <cstdint>
#include <cstring>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"

namespace AscendC {

// The structs are declared as asc-devkit's include/basic_api/kernel_struct_data_copy.h declares them for A2/A3
// (no rsv default in DataCopyExtParams' constructor; one burst by default; DataCopyParams' srcGap/dstGap
// share storage with the older srcStride/dstStride names).
//
// Strided DataCopy: lengths and strides in 32-byte blocks on both sides. DataCopyPad: blockLen in bytes,
// GM-side stride in bytes, UB-side stride in 32-byte blocks.
constexpr uint8_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint8_t DEFAULT_DATA_COPY_STRIDE = 0;

struct DataCopyParams {
  DataCopyParams() {}
  DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint16_t blockLen = 0;
  union {
    uint16_t srcGap = 0;
    uint16_t srcStride;
  };
  union {
    uint16_t dstGap = 0;
    uint16_t dstStride;
  };
};

struct DataCopyExtParams {
  DataCopyExtParams() {}
  DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                    const uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint32_t blockLen = 0;
  uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;   // elements
  uint8_t rightPadding = 0;  // elements
  T paddingValue = 0;
};

struct DataCopyPadParams {
  DataCopyPadParams() {}
  DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                    const uint64_t padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

enum class PaddingMode : uint8_t { Normal = 0, Compact };

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

inline void CheckCopyLength(const char* api, uint64_t count, uint64_t element_bytes) {
  const uint64_t bytes = count * element_bytes;
  if (bytes % kUbBlockBytes != 0) {
    Fail("DATACOPY_LENGTH", api,
         StringPrintf("count=%llu elements of %llu bytes = %llu bytes is not a whole number of 32-byte blocks (hardware "
                "silently drops the last %llu bytes; use DataCopyPad for a tail)",
                static_cast<unsigned long long>(count), static_cast<unsigned long long>(element_bytes),
                static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes % kUbBlockBytes)));
  }
}

// The burst engine's documented ranges (asc-devkit's DataCopy and DataCopyPad references): blockCount in
// [1, 4095] (a 12-bit field; hardware silently wraps a larger count), and DataCopyPad's byte blockLen at most
// 2097151 (21 bits). `max_len` is 0 where the field's own type is the only limit (DataCopy's 16-bit blocks).
constexpr uint64_t kMaxBlockCount = 4095;
constexpr uint64_t kMaxPadBlockLen = 2097151;

inline void CheckBlockCount(const char* api, uint64_t block_count, uint64_t block_len, uint64_t max_len = 0) {
  if (block_count == 0 || block_len == 0) {
    Fail("INVALID_ARGUMENT", api,
         StringPrintf("blockCount=%llu blockLen=%llu: both must be at least 1", static_cast<unsigned long long>(block_count),
                static_cast<unsigned long long>(block_len)));
  }
  if (block_count > kMaxBlockCount) {
    Fail("DATACOPY_LIMIT", api,
         StringPrintf("blockCount=%llu exceeds 4095, the most one instruction moves (split the copy)",
                      static_cast<unsigned long long>(block_count)));
  }
  if (max_len != 0 && block_len > max_len) {
    Fail("DATACOPY_LIMIT", api,
         StringPrintf("blockLen=%llu bytes exceeds %llu, the longest block one instruction moves",
                      static_cast<unsigned long long>(block_len), static_cast<unsigned long long>(max_len)));
  }
}

// GM -> UB DataCopyPad moves whole elements: blockLen must be a multiple of sizeof(T).
inline void CheckPadElementLength(const char* api, uint64_t block_len, uint64_t element_bytes) {
  if (block_len % element_bytes != 0) {
    Fail("DATACOPY_LENGTH", api,
         StringPrintf("blockLen=%llu bytes is not a whole number of %llu-byte elements",
                      static_cast<unsigned long long>(block_len), static_cast<unsigned long long>(element_bytes)));
  }
}

// DataCopyPadParams' uint64_t paddingValue, and DataCopyPadExtParams' of a 64-bit type, may only be 0.
inline void CheckZeroPadValue(const char* api, const char* what, bool nonzero) {
  if (nonzero) Fail("INVALID_ARGUMENT", api, StringPrintf("%s: paddingValue must be 0", what));
}

inline uint64_t RoundUpToBlock(uint64_t bytes) { return (bytes + kUbBlockBytes - 1) / kUbBlockBytes * kUbBlockBytes; }

// GM -> UB with padding, DataCopyPad's documented layout: each block occupies
// roundup32(left + blockLen + right) bytes in UB followed by dstStride blocks. Padding (and the dummy bytes
// up to the 32-byte boundary) hold paddingValue if isPad; without isPad they are undefined on hardware and
// the twin writes NaN bytes, except that with no left/right padding the dummy repeats the block's first
// element.
template <typename T>
void DataCopyPadIn(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint64_t block_count,
                   uint64_t block_len, uint64_t src_stride, uint64_t dst_stride, bool is_pad, uint64_t left_elements,
                   uint64_t right_elements, const uint8_t* pad_value_bytes) {
  const char* api = "DataCopyPad";
  RequireDtype(Api::kDataCopyPad, kDTypeOf<T>);
  CheckBlockCount(api, block_count, block_len, kMaxPadBlockLen);
  CheckPadElementLength(api, block_len, sizeof(T));
  const uint64_t left_bytes = left_elements * sizeof(T);
  const uint64_t right_bytes = right_elements * sizeof(T);
  if (left_bytes > kUbBlockBytes || right_bytes > kUbBlockBytes) {
    Fail("INVALID_ARGUMENT", api,
         StringPrintf("leftPadding=%llu rightPadding=%llu elements: each may be at most 32 bytes",
                static_cast<unsigned long long>(left_elements), static_cast<unsigned long long>(right_elements)));
  }
  const uint64_t padded = left_bytes + block_len + right_bytes;
  const uint64_t ub_block = RoundUpToBlock(padded);
  const uint64_t ub_pitch = ub_block + dst_stride * kUbBlockBytes;
  const uint64_t ub_span = (block_count - 1) * ub_pitch + ub_block;
  CheckUbOperand(api, "dst", dst.twin_ref(), 0, ub_span, true, UbUse::kMteWrite);
  CountCopyInstruction(block_count * ub_block);
  uint8_t* ub = dst.twin_bytes();
  const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  const bool no_side_padding = left_elements == 0 && right_elements == 0;
  for (uint64_t i = 0; i < block_count; ++i) {
    uint8_t* block = ub + i * ub_pitch;
    CopyGmToUb(api, src.twin_extent(), gm + i * (block_len + src_stride), block + left_bytes, block_len);
    uint8_t* dummy = block + padded;
    const uint64_t dummy_bytes = ub_block - padded;
    if (no_side_padding) {
      for (uint64_t b = 0; b < dummy_bytes; ++b) dummy[b] = block[b % sizeof(T)];
      continue;
    }
    uint8_t* side_regions[3] = {block, block + left_bytes + block_len, dummy};
    const uint64_t side_lengths[3] = {left_bytes, right_bytes, dummy_bytes};
    for (int r = 0; r < 3; ++r) {
      for (uint64_t b = 0; b < side_lengths[r]; ++b) {
        side_regions[r][b] = is_pad ? pad_value_bytes[b % sizeof(T)] : uint8_t{0xff};
      }
    }
  }
}

// UB -> GM: each block starts at a 32-byte boundary in UB (roundup32(blockLen) + srcStride blocks apart);
// exactly blockLen bytes reach GM, dstStride bytes apart.
template <typename T>
void DataCopyPadOut(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint64_t block_count,
                    uint64_t block_len, uint64_t src_stride, uint64_t dst_stride) {
  const char* api = "DataCopyPad";
  RequireDtype(Api::kDataCopyPad, kDTypeOf<T>);
  CheckBlockCount(api, block_count, block_len, kMaxPadBlockLen);
  const uint64_t ub_pitch = RoundUpToBlock(block_len) + src_stride * kUbBlockBytes;
  CheckUbOperand(api, "src", src.twin_ref(), 0, (block_count - 1) * ub_pitch + block_len, true, UbUse::kMteRead);
  CountCopyInstruction(block_count * RoundUpToBlock(block_len));
  const uint8_t* ub = src.twin_bytes();
  uint8_t* gm = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  for (uint64_t i = 0; i < block_count; ++i) {
    CopyUbToGm(api, dst.twin_extent(), gm + i * (block_len + dst_stride), ub + i * ub_pitch, block_len, kDTypeOf<T>);
  }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// GM -> UB, `count` elements; count * sizeof(T) must be a multiple of 32 bytes.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckCopyLength("DataCopy", count, sizeof(T));
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  d::CheckUbOperand("DataCopy", "dst", dst.twin_ref(), 0, bytes, true, d::UbUse::kMteWrite);
  d::CountCopyInstruction(bytes);
  d::CopyGmToUb("DataCopy", src.twin_extent(), src.GetPhyAddr(), dst.twin_bytes(), bytes);
}

// UB -> GM, `count` elements; count * sizeof(T) must be a multiple of 32 bytes.
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckCopyLength("DataCopy", count, sizeof(T));
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  d::CheckUbOperand("DataCopy", "src", src.twin_ref(), 0, bytes, true, d::UbUse::kMteRead);
  d::CountCopyInstruction(bytes);
  d::CopyUbToGm("DataCopy", dst.twin_extent(), dst.GetPhyAddr(), src.twin_bytes(), bytes, opgen_twin::kDTypeOf<T>);
}

// UB -> UB (e.g. VECIN -> VECOUT), `count` elements; count * sizeof(T) must be a multiple of 32 bytes.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckCopyLength("DataCopy", count, sizeof(T));
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  d::CheckUbOperand("DataCopy", "dst", dst.twin_ref(), 0, bytes, true, d::UbUse::kVectorWrite);
  d::CheckUbOperand("DataCopy", "src", src.twin_ref(), 0, bytes, true, d::UbUse::kVectorRead);
  std::memmove(dst.twin_bytes(), src.twin_bytes(), bytes);
  d::CountCopy(d::CopyPath::kUbToUb, bytes);
}

// Strided forms: blockCount blocks of blockLen 32-byte units, strides in 32-byte units.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckBlockCount("DataCopy", params.blockCount, params.blockLen);
  const uint64_t len = uint64_t{params.blockLen} * d::kUbBlockBytes;
  const uint64_t ub_pitch = len + uint64_t{params.dstStride} * d::kUbBlockBytes;
  const uint64_t gm_pitch = len + uint64_t{params.srcStride} * d::kUbBlockBytes;
  d::CheckUbOperand("DataCopy", "dst", dst.twin_ref(), 0, (params.blockCount - 1) * ub_pitch + len, true,
                    d::UbUse::kMteWrite);
  d::CountCopyInstruction(params.blockCount * len);
  const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  for (uint64_t i = 0; i < params.blockCount; ++i) {
    d::CopyGmToUb("DataCopy", src.twin_extent(), gm + i * gm_pitch, dst.twin_bytes() + i * ub_pitch, len);
  }
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckBlockCount("DataCopy", params.blockCount, params.blockLen);
  const uint64_t len = uint64_t{params.blockLen} * d::kUbBlockBytes;
  const uint64_t ub_pitch = len + uint64_t{params.srcStride} * d::kUbBlockBytes;
  const uint64_t gm_pitch = len + uint64_t{params.dstStride} * d::kUbBlockBytes;
  d::CheckUbOperand("DataCopy", "src", src.twin_ref(), 0, (params.blockCount - 1) * ub_pitch + len, true,
                    d::UbUse::kMteRead);
  d::CountCopyInstruction(params.blockCount * len);
  uint8_t* gm = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  for (uint64_t i = 0; i < params.blockCount; ++i) {
    d::CopyUbToGm("DataCopy", dst.twin_extent(), gm + i * gm_pitch, src.twin_bytes() + i * ub_pitch, len,
                  opgen_twin::kDTypeOf<T>);
  }
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  namespace d = opgen_twin::detail;
  d::RequireDtype(opgen_twin::Api::kDataCopy, opgen_twin::kDTypeOf<T>);
  d::CheckBlockCount("DataCopy", params.blockCount, params.blockLen);
  const uint64_t len = uint64_t{params.blockLen} * d::kUbBlockBytes;
  const uint64_t src_pitch = len + uint64_t{params.srcStride} * d::kUbBlockBytes;
  const uint64_t dst_pitch = len + uint64_t{params.dstStride} * d::kUbBlockBytes;
  d::CheckUbOperand("DataCopy", "dst", dst.twin_ref(), 0, (params.blockCount - 1) * dst_pitch + len, true,
                    d::UbUse::kVectorWrite);
  d::CheckUbOperand("DataCopy", "src", src.twin_ref(), 0, (params.blockCount - 1) * src_pitch + len, true,
                    d::UbUse::kVectorRead);
  for (uint64_t i = 0; i < params.blockCount; ++i) {
    std::memmove(dst.twin_bytes() + i * dst_pitch, src.twin_bytes() + i * src_pitch, len);
  }
  d::CountCopy(d::CopyPath::kUbToUb, params.blockCount * len);
}

template <typename T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& params,
                        const DataCopyPadExtParams<T>& padParams) {
  static_assert(mode == PaddingMode::Normal, "the twin implements PaddingMode::Normal only");
  uint8_t pad_bytes[sizeof(T)];
  std::memcpy(pad_bytes, static_cast<const void*>(&padParams.paddingValue), sizeof(T));
  if constexpr (sizeof(T) == sizeof(uint64_t)) {
    uint64_t pad_bits = 0;
    std::memcpy(&pad_bits, pad_bytes, sizeof(T));
    opgen_twin::detail::CheckZeroPadValue("DataCopyPad", "DataCopyPadExtParams of a 64-bit type", pad_bits != 0);
  }
  opgen_twin::detail::DataCopyPadIn(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride,
                                    padParams.isPad, padParams.leftPadding, padParams.rightPadding, pad_bytes);
}

template <typename T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& params) {
  static_assert(mode == PaddingMode::Normal, "the twin implements PaddingMode::Normal only");
  opgen_twin::detail::DataCopyPadOut(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride);
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
                        const DataCopyPadParams& padParams) {
  opgen_twin::detail::CheckZeroPadValue("DataCopyPad", "DataCopyPadParams", padParams.paddingValue != 0);
  uint8_t pad_bytes[sizeof(uint64_t)];
  std::memcpy(pad_bytes, &padParams.paddingValue, sizeof(uint64_t));
  opgen_twin::detail::DataCopyPadIn(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride,
                                    padParams.isPad, padParams.leftPadding, padParams.rightPadding, pad_bytes);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  opgen_twin::detail::DataCopyPadOut(dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride);
}

}  // namespace AscendC
