// Reduction APIs of Ascend C: WholeReduceMax/Sum, BlockReduceMax/Sum, PairReduceSum (one result per repeat, per
// 32-byte block or per pair) and ReduceMax/ReduceSum (one result for the whole input, level 0 and level 2).
//
// Declared as asc-devkit's include/basic_api/kernel_operator_vec_reduce_intf.h declares them for A2/A3
// (ReduceOrder as in its common types). Semantics and limits from the API reference pages of these APIs:
// - repeat forms: repeatTime in [0, 255] (ReduceMax/ReduceSum level 0: [0, INT32_MAX]); mask in [1, 128]
//   (16-bit T) or [1, 64] (32-bit T), a bit mask of two words (16-bit T, not both 0) or one (32-bit T, not 0);
//   element j of repeat r is read at (r * srcRepStride + j / elementsPerBlock * srcBlkStride) 32-byte blocks
//   (+ its place in the block); src starts 32-byte aligned; dst of WholeReduceSum/ReduceSum sizeof(T)-aligned,
//   of WholeReduceMax/ReduceMax 2 * sizeof(T)-aligned, of BlockReduce* 16 (half) / 32 (float) bytes;
// - dstRepStride counts one repeat's result: WholeReduceSum sizeof(T); WholeReduceMax 2 * sizeof(T) for
//   [value, index] / [index, value], sizeof(T) for the value only, 4 bytes for the index only (a uint32_t on
//   A2/A3 whatever T); BlockReduce* 8 elements; PairReduceSum half a repeat of elements;
// - an index is the element's place in its repeat (WholeReduceMax) or in the whole input (ReduceMax: repeat *
//   elementsPerRepeat + place), stored in the bits of a T slot (uint16_t for half, uint32_t for float); ties
//   give the first; ReduceMax on half indexes at most 65535;
// - orders per SoC: A2/A3 and Ascend 950 all four, Atlas 200I/500 A2 VALUE_INDEX and ONLY_VALUE, Atlas
//   inference (310P) VALUE_INDEX and INDEX_VALUE, Atlas training (910) VALUE_INDEX (api_rules.cpp);
// - the result of a repeat must not overwrite source data a later repeat still reads (the reference's rule for
//   a src and dst in one tensor); results go out repeat by repeat, after the repeat's own reads;
// - ReduceMax needs sharedTmpBuffer (32-byte aligned) of at least the reference's minimum, in elements: the
//   sum over rounds of each round's output rounded up to a block, round 1 giving 2 * firstMaxRepeat elements
//   and round k + 1 ceil(out_k / elementsPerRepeat) * 2, until a round gives 2 (one round only without
//   calIndex); firstMaxRepeat = repeatTime (level 0) or count / elementsPerRepeat, at least 1 (level 2, the
//   reference's integer division). ReduceSum takes any sharedTmpBuffer unless dst overlaps it, which needs
//   ceil(firstMaxRepeat / elementsPerBlock) blocks. The twin never writes sharedTmpBuffer.
//
// Order of accumulation (so that sums are deterministic, and a numpy model can reproduce them bit for bit):
// - within a repeat (WholeReduceSum, ReduceSum) and within a block (BlockReduceSum) the reference's binary
//   tree: lanes 2i and 2i+1 are added, then the results pairwise again, until one is left; masked-off lanes
//   take part as +0 (the reference does not say; this keeps the tree's shape fixed). PairReduceSum adds lane 2i
//   and 2i + 1. Each addition is rounded to T; for half a finite sum beyond ±65504 is stored as ±65504 (the
//   reference's saturation rule), an infinite or NaN operand propagates as in IEEE;
// - across repeats, ReduceSum level 2 on A2/A3 adds the repeats' sums in order (the reference's "mode 2");
//   level 0, and level 2 on other SoCs, reduce the repeats' sums again in trees of elementsPerRepeat lanes,
//   round after round (the reference's "mode 1", its multi-round picture for ReduceMax).
// - Max (not specified by the reference for NaN): the first NaN wins, else the largest, the first of equal ones.
// - A block (BlockReduce*) or pair (PairReduceSum) with no active lane leaves its dst slot unwritten.
// isSetMask = false (the mask register set by SetVectorMask) is not modelled: the mask argument is used as given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"
#include "opgen_twin/vector_ops.h"

namespace AscendC {

enum class ReduceOrder : uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX,
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <typename T>
constexpr uint64_t kLanesPerRepeat = kRepeatBytes / sizeof(T);
template <typename T>
constexpr uint64_t kLanesPerBlock = kUbBlockBytes / sizeof(T);

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// One addition of a reduction, rounded to T; half saturates (see the header comment).
template <typename T>
inline T ReduceAdd(T a, T b) {
  const ComputeType<T> sum = Widen(a) + Widen(b);
  T result = Narrow<T>(sum);
  if constexpr (std::is_same<T, Half>::value) {
    const float fa = a, fb = b;
    if (std::isinf(static_cast<float>(result)) && std::isfinite(fa) && std::isfinite(fb)) {
      result = Half(sum > 0 ? 65504.0f : -65504.0f);
    }
  }
  return result;
}

// Pairwise tree over `lanes` (a power of two in size); consumes `lanes`.
template <typename T>
inline T TreeSum(std::vector<T>& lanes) {
  for (size_t n = lanes.size(); n > 1; n /= 2) {
    for (size_t i = 0; i < n / 2; ++i) lanes[i] = ReduceAdd(lanes[2 * i], lanes[2 * i + 1]);
  }
  return lanes[0];
}

// The first NaN, else the first largest: the index of the winner among `n` candidates.
template <typename T>
inline bool MaxBeats(T candidate, T best) {
  const auto c = Widen(candidate), b = Widen(best);
  if (IsNan(b)) return false;
  if (IsNan(c)) return true;
  return c > b;
}

// Index bits of a T slot: uint16_t for 2-byte T, uint32_t for 4-byte T.
template <typename T>
inline void StoreIndex(uint8_t* out, uint64_t index) {
  if (sizeof(T) == 2) {
    const uint16_t bits = static_cast<uint16_t>(index);
    std::memcpy(out, &bits, sizeof(bits));
  } else {
    const uint32_t bits = static_cast<uint32_t>(index);
    std::memcpy(out, &bits, sizeof(bits));
  }
}

template <typename T>
inline void CheckReduceDtype(Api api) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "the reductions take 16- or 32-bit elements");
  RequireDtype(api, kDTypeOf<T>);
}

inline void CheckRange(const char* api, const char* name, int64_t value, int64_t low, int64_t high) {
  if (value < low || value > high) {
    Fail("INVALID_ARGUMENT", api,
         StringPrintf("%s=%lld is outside [%lld, %lld]", name, static_cast<long long>(value),
                      static_cast<long long>(low), static_cast<long long>(high)));
  }
}

// `mask` (continuous) or `bits` (bit mode; one word for 32-bit T) validated; the active lanes of a repeat.
template <typename T>
inline std::vector<bool> ActiveLanes(const char* api, int64_t mask, const uint64_t* bits) {
  constexpr uint64_t kLanes = kLanesPerRepeat<T>;
  std::vector<bool> active(kLanes, false);
  if (bits == nullptr) {
    CheckRange(api, "mask", mask, 1, static_cast<int64_t>(kLanes));
    for (uint64_t j = 0; j < static_cast<uint64_t>(mask); ++j) active[j] = true;
    return active;
  }
  const uint64_t high = sizeof(T) == 2 ? bits[1] : 0;  // a 32-bit T's mask array has one word
  if (bits[0] == 0 && high == 0) {
    Fail("INVALID_ARGUMENT", api,
         sizeof(T) == 2 ? StringPrintf("mask[0]=0 mask[1]=0: a 16-bit type's bit mask must not be all zero")
                        : StringPrintf("mask[0]=0: a 32-bit type's bit mask must not be zero"));
  }
  for (uint64_t j = 0; j < kLanes; ++j) active[j] = ((j < 64 ? bits[0] >> j : high >> (j - 64)) & 1u) != 0;
  return active;
}

inline void CheckElementAlignment(const char* api, const char* role, const UbRef& ref, uint32_t align) {
  if (ref.offset % align != 0) {
    Fail("UB_MISALIGNED", api,
         StringPrintf("%s starts at UB offset %u, which is not %u-byte aligned (offset %% %u = %u)", role, ref.offset,
                      align, align, ref.offset % align));
  }
}

// Byte offset in src of lane j of repeat r.
template <typename T>
inline uint64_t LaneOffset(uint64_t r, uint64_t j, uint64_t blk_stride, uint64_t rep_stride) {
  return (r * rep_stride + j / kLanesPerBlock<T> * blk_stride) * kUbBlockBytes + j % kLanesPerBlock<T> * sizeof(T);
}

// What a repeat-form reduction writes per repeat: `bytes` bytes at repeat r's place, r * dstRepStride * `unit`.
struct RepeatOutput {
  uint64_t unit = 0;
  uint64_t bytes = 0;
  uint32_t align = 0;
};

// Runs a repeat-form reduction after its checks. `reduce(lanes, active, out, written)` turns one repeat's lanes
// into `out` bytes, marking the bytes it writes.
template <typename T, typename Reduce>
void RepeatReduce(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t mask,
                  const uint64_t* bits, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                  int32_t srcRepStride, const RepeatOutput& output, Reduce reduce) {
  const char* name = ApiName(api);
  CheckReduceDtype<T>(api);
  CheckRange(name, "repeatTime", repeatTime, 0, 255);
  CheckRange(name, "dstRepStride", dstRepStride, 0, std::numeric_limits<int32_t>::max());
  CheckRange(name, "srcBlkStride", srcBlkStride, 0, std::numeric_limits<int32_t>::max());
  CheckRange(name, "srcRepStride", srcRepStride, 0, std::numeric_limits<int32_t>::max());
  const std::vector<bool> active = ActiveLanes<T>(name, mask, bits);
  const uint64_t repeats = static_cast<uint64_t>(repeatTime);
  constexpr uint64_t kLanes = kLanesPerRepeat<T>;
  const uint64_t blk = static_cast<uint64_t>(srcBlkStride), rep = static_cast<uint64_t>(srcRepStride);
  uint64_t src_end = 0;
  for (uint64_t r = 0; r < repeats; r += (repeats > 1 ? repeats - 1 : 1)) {
    for (uint64_t j = 0; j < kLanes; ++j) {
      if (active[j]) src_end = std::max(src_end, LaneOffset<T>(r, j, blk, rep) + sizeof(T));
    }
  }
  CheckUbOperand(name, "src", src.twin_ref(), 0, src_end, true, UbUse::kVectorRead);
  const uint64_t dst_step = static_cast<uint64_t>(dstRepStride) * output.unit;
  const uint64_t dst_end = repeats == 0 ? 0 : (repeats - 1) * dst_step + output.bytes;
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, dst_end, false, UbUse::kVectorWrite);
  CheckElementAlignment(name, "dst", dst.twin_ref(), output.align);
  if (repeats == 0) return;
  // The last repeat reading each src byte, to find a result that would overwrite unread source data.
  const uint64_t src_base = src.twin_ref().offset;
  std::vector<int32_t> last_read(src_end, -1);
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t j = 0; j < kLanes; ++j) {
      if (!active[j]) continue;
      const uint64_t at = LaneOffset<T>(r, j, blk, rep);
      for (uint64_t b = 0; b < sizeof(T); ++b) last_read[at + b] = static_cast<int32_t>(r);
    }
  }
  const uint8_t* in = src.twin_bytes();
  uint8_t* out = dst.twin_bytes();
  const uint64_t dst_base = dst.twin_ref().offset;
  std::vector<T> lanes(kLanes);
  std::vector<uint8_t> result(output.bytes);
  std::vector<bool> written(output.bytes);
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t j = 0; j < kLanes; ++j) {
      lanes[j] = active[j] ? LoadElement<T>(in + LaneOffset<T>(r, j, blk, rep), 0) : T(0);
    }
    std::fill(written.begin(), written.end(), false);
    reduce(lanes, active, result.data(), written);
    for (uint64_t b = 0; b < output.bytes; ++b) {
      if (!written[b]) continue;
      const uint64_t ub = dst_base + r * dst_step + b;
      if (ub >= src_base && ub < src_base + src_end && last_read[ub - src_base] > static_cast<int32_t>(r)) {
        Fail("OPERAND_OVERLAP", name,
             StringPrintf("dst byte %llu (UB offset %llu), written by repeat %llu, is src data repeat %d still "
                          "reads: a result must not overwrite source data not yet reduced",
                          static_cast<unsigned long long>(r * dst_step + b), static_cast<unsigned long long>(ub),
                          static_cast<unsigned long long>(r), last_read[ub - src_base]));
      }
      out[r * dst_step + b] = result[b];
    }
  }
  uint64_t active_count = 0;
  for (bool on : active) active_count += on ? 1 : 0;
  CountVector(api, repeats * active_count);
}

inline void MarkWritten(std::vector<bool>& written, uint64_t first, uint64_t bytes) {
  for (uint64_t b = first; b < first + bytes; ++b) written[b] = true;
}

// Sum of the lanes [first, first + n) as a tree (n a power of two), masked-off lanes as +0; false if none is active.
template <typename T>
inline bool GroupSum(const std::vector<T>& lanes, const std::vector<bool>& active, uint64_t first, uint64_t n,
                     T* sum) {
  std::vector<T> group(lanes.begin() + static_cast<std::ptrdiff_t>(first),
                       lanes.begin() + static_cast<std::ptrdiff_t>(first + n));
  bool any = false;
  for (uint64_t j = 0; j < n; ++j) any = any || active[first + j];
  *sum = TreeSum(group);
  return any;
}

// Index (from `first`) of the maximum of the active lanes in [first, first + n); -1 if none is active.
template <typename T>
inline int64_t GroupMax(const std::vector<T>& lanes, const std::vector<bool>& active, uint64_t first, uint64_t n) {
  int64_t best = -1;
  for (uint64_t j = 0; j < n; ++j) {
    if (!active[first + j]) continue;
    if (best < 0 || MaxBeats(lanes[first + j], lanes[first + static_cast<uint64_t>(best)])) best = static_cast<int64_t>(j);
  }
  return best;
}

template <typename T>
void WholeReduceSumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t mask,
                       const uint64_t* bits, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                       int32_t srcRepStride) {
  const RepeatOutput output{sizeof(T), sizeof(T), sizeof(T)};
  RepeatReduce(Api::kWholeReduceSum, dst, src, mask, bits, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
               output, [](const std::vector<T>& lanes, const std::vector<bool>& active, uint8_t* out,
                          std::vector<bool>& written) {
                 T sum;
                 GroupSum(lanes, active, 0, lanes.size(), &sum);
                 StoreElement<T>(out, 0, sum);
                 MarkWritten(written, 0, sizeof(T));
               });
}

template <typename T>
void WholeReduceMaxRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t mask,
                       const uint64_t* bits, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                       int32_t srcRepStride, AscendC::ReduceOrder order) {
  const char* name = ApiName(Api::kWholeReduceMax);
  CheckRange(name, "order", static_cast<int64_t>(order), 0, 3);
  RequireReduceOrder(Api::kWholeReduceMax, static_cast<int>(order));
  RepeatOutput output{2 * sizeof(T), 2 * sizeof(T), 2 * sizeof(T)};
  if (order == AscendC::ReduceOrder::ORDER_ONLY_VALUE) output.unit = output.bytes = sizeof(T);
  if (order == AscendC::ReduceOrder::ORDER_ONLY_INDEX) output.unit = output.bytes = sizeof(uint32_t);
  RepeatReduce(Api::kWholeReduceMax, dst, src, mask, bits, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
               output, [order](const std::vector<T>& lanes, const std::vector<bool>& active, uint8_t* out,
                               std::vector<bool>& written) {
                 const int64_t best = GroupMax(lanes, active, 0, lanes.size());
                 const T value = lanes[static_cast<uint64_t>(best)];
                 switch (order) {
                   case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
                     StoreElement<T>(out, 0, value);
                     StoreIndex<T>(out + sizeof(T), static_cast<uint64_t>(best));
                     break;
                   case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
                     StoreIndex<T>(out, static_cast<uint64_t>(best));
                     StoreElement<T>(out + sizeof(T), 0, value);
                     break;
                   case AscendC::ReduceOrder::ORDER_ONLY_VALUE:
                     StoreElement<T>(out, 0, value);
                     break;
                   case AscendC::ReduceOrder::ORDER_ONLY_INDEX: {
                     const uint32_t index = static_cast<uint32_t>(best);
                     std::memcpy(out, &index, sizeof(index));
                     break;
                   }
                 }
                 MarkWritten(written, 0, written.size());
               });
}

template <typename T>
void BlockReduceRun(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    int32_t repeatTime, int64_t mask, const uint64_t* bits, int32_t dstRepStride,
                    int32_t srcBlkStride, int32_t srcRepStride) {
  constexpr uint64_t kBlocks = kRepeatBytes / kUbBlockBytes;
  const RepeatOutput output{kBlocks * sizeof(T), kBlocks * sizeof(T), static_cast<uint32_t>(kBlocks * sizeof(T))};
  const bool is_sum = api == Api::kBlockReduceSum;
  RepeatReduce(api, dst, src, mask, bits, repeatTime, dstRepStride, srcBlkStride, srcRepStride, output,
               [is_sum](const std::vector<T>& lanes, const std::vector<bool>& active, uint8_t* out,
                        std::vector<bool>& written) {
                 constexpr uint64_t kPerBlock = kLanesPerBlock<T>;
                 for (uint64_t b = 0; b < kBlocks; ++b) {
                   T value;
                   bool any;
                   if (is_sum) {
                     any = GroupSum(lanes, active, b * kPerBlock, kPerBlock, &value);
                   } else {
                     const int64_t best = GroupMax(lanes, active, b * kPerBlock, kPerBlock);
                     any = best >= 0;
                     value = any ? lanes[b * kPerBlock + static_cast<uint64_t>(best)] : T(0);
                   }
                   if (!any) continue;
                   StoreElement<T>(out, b, value);
                   MarkWritten(written, b * sizeof(T), sizeof(T));
                 }
               });
}

template <typename T>
void PairReduceSumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t repeatTime,
                      int64_t mask, const uint64_t* bits, int32_t dstRepStride, int32_t srcBlkStride,
                      int32_t srcRepStride) {
  constexpr uint64_t kPairs = kLanesPerRepeat<T> / 2;
  const RepeatOutput output{kPairs * sizeof(T), kPairs * sizeof(T), sizeof(T)};
  RepeatReduce(Api::kPairReduceSum, dst, src, mask, bits, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
               output, [](const std::vector<T>& lanes, const std::vector<bool>& active, uint8_t* out,
                          std::vector<bool>& written) {
                 for (uint64_t i = 0; i < kPairs; ++i) {
                   T sum;
                   if (!GroupSum(lanes, active, 2 * i, 2, &sum)) continue;
                   StoreElement<T>(out, i, sum);
                   MarkWritten(written, i * sizeof(T), sizeof(T));
                 }
               });
}

// --- ReduceMax / ReduceSum (level 0: mask + repeats; level 2: the first `count` elements) ---

// The sharedTmpBuffer minimum of ReduceMax / ReduceSum in elements (see the header comment).
template <typename T>
inline uint64_t ReduceMaxTmpElements(uint64_t first_max_repeat, bool cal_index) {
  constexpr uint64_t kPerBlock = kLanesPerBlock<T>, kLanes = kLanesPerRepeat<T>;
  uint64_t produced = 2 * first_max_repeat;
  uint64_t need = CeilDiv(produced, kPerBlock) * kPerBlock;
  if (!cal_index) return need;
  while (produced > 2) {
    produced = CeilDiv(produced, kLanes) * 2;
    need += CeilDiv(produced, kPerBlock) * kPerBlock;
  }
  return need;
}

template <typename T>
inline uint64_t ReduceSumTmpElements(uint64_t first_max_repeat) {
  return CeilDiv(first_max_repeat, kLanesPerBlock<T>) * kLanesPerBlock<T>;
}

inline bool Overlaps(const UbRef& a, uint64_t a_bytes, const UbRef& b, uint64_t b_bytes) {
  return a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}

// The elements a whole-input reduction reads: `repeats` repeats of the active lanes, the last one cut at
// `last_lanes` (level 2) — in order, with their index in the input.
template <typename T>
struct WholeInput {
  std::vector<std::vector<T>> repeats;        // lanes of each repeat, masked-off ones +0
  std::vector<std::vector<bool>> active;      // per repeat
};

template <typename T>
WholeInput<T> GatherRepeats(const char* name, const AscendC::LocalTensor<T>& src, const std::vector<bool>& active,
                            uint64_t repeats, uint64_t rep_stride, uint64_t count) {
  constexpr uint64_t kLanes = kLanesPerRepeat<T>;
  uint64_t src_end = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t j = 0; j < kLanes; ++j) {
      const bool on = active[j] && r * kLanes + j < count;
      if (on) src_end = std::max(src_end, LaneOffset<T>(r, j, 1, rep_stride) + sizeof(T));
    }
  }
  CheckUbOperand(name, "src", src.twin_ref(), 0, src_end, true, UbUse::kVectorRead);
  WholeInput<T> input;
  const uint8_t* in = src.twin_bytes();
  for (uint64_t r = 0; r < repeats; ++r) {
    std::vector<T> lanes(kLanes, T(0));
    std::vector<bool> on(kLanes, false);
    for (uint64_t j = 0; j < kLanes; ++j) {
      on[j] = active[j] && r * kLanes + j < count;
      if (on[j]) lanes[j] = LoadElement<T>(in + LaneOffset<T>(r, j, 1, rep_stride), 0);
    }
    input.repeats.push_back(std::move(lanes));
    input.active.push_back(std::move(on));
  }
  return input;
}

// Common checks of ReduceMax/ReduceSum; returns the active lanes of a repeat.
template <typename T>
std::vector<bool> WholeChecks(Api api, bool level2, int64_t count, int64_t mask, const uint64_t* bits,
                              int64_t repeatTime, int64_t srcRepStride, const AscendC::LocalTensor<T>& sharedTmpBuffer) {
  const char* name = ApiName(api);
  CheckReduceDtype<T>(api);
  CheckUbOperand(name, "sharedTmpBuffer", sharedTmpBuffer.twin_ref(), 0, 0, true, UbUse::kVectorWrite);
  if (level2) {
    CheckRange(name, "count", count, 1, std::numeric_limits<int32_t>::max());
    return std::vector<bool>(kLanesPerRepeat<T>, true);
  }
  CheckRange(name, "repeatTime", repeatTime, 0, std::numeric_limits<int32_t>::max());
  CheckRange(name, "srcRepStride", srcRepStride, 0, std::numeric_limits<int32_t>::max());
  return ActiveLanes<T>(name, mask, bits);
}

template <typename T>
void ReduceMaxRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                  const AscendC::LocalTensor<T>& sharedTmpBuffer, bool level2, int64_t count, int64_t mask,
                  const uint64_t* bits, int32_t repeatTime, int32_t srcRepStride, bool calIndex) {
  const Api api = Api::kReduceMax;
  const char* name = ApiName(api);
  const std::vector<bool> active =
      WholeChecks<T>(api, level2, count, mask, bits, repeatTime, srcRepStride, sharedTmpBuffer);
  constexpr uint64_t kLanes = kLanesPerRepeat<T>;
  const uint64_t repeats = level2 ? CeilDiv(static_cast<uint64_t>(count), kLanes) : static_cast<uint64_t>(repeatTime);
  const uint64_t limit = level2 ? static_cast<uint64_t>(count) : repeats * kLanes;
  if (calIndex && sizeof(T) == 2 && limit > 65536) {
    Fail("INVALID_ARGUMENT", name,
         StringPrintf("calIndex=true over %llu half elements: a half ReduceMax indexes at most 65535",
                      static_cast<unsigned long long>(limit)));
  }
  const uint64_t first_max_repeat =
      level2 ? std::max<uint64_t>(1, static_cast<uint64_t>(count) / kLanes) : repeats;
  const uint64_t need = ReduceMaxTmpElements<T>(first_max_repeat, calIndex);
  if (uint64_t{sharedTmpBuffer.GetSize()} < need) {
    Fail("UB_OUT_OF_BOUNDS", name,
         StringPrintf("sharedTmpBuffer has %u elements; firstMaxRepeat=%llu calIndex=%d needs at least %llu",
                      sharedTmpBuffer.GetSize(), static_cast<unsigned long long>(first_max_repeat),
                      calIndex ? 1 : 0, static_cast<unsigned long long>(need)));
  }
  const uint64_t dst_bytes = (calIndex ? 2 : 1) * sizeof(T);
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, dst_bytes, false, UbUse::kVectorWrite);
  CheckElementAlignment(name, "dst", dst.twin_ref(), 2 * sizeof(T));
  if (repeats == 0) return;
  const WholeInput<T> input =
      GatherRepeats(name, src, active, repeats, level2 ? 8 : static_cast<uint64_t>(srcRepStride), limit);
  int64_t best_r = -1, best_j = -1;
  uint64_t processed = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    const int64_t j = GroupMax(input.repeats[r], input.active[r], 0, kLanes);
    for (bool on : input.active[r]) processed += on ? 1 : 0;
    if (j < 0) continue;
    if (best_r < 0 ||
        MaxBeats(input.repeats[r][static_cast<uint64_t>(j)],
                 input.repeats[static_cast<uint64_t>(best_r)][static_cast<uint64_t>(best_j)])) {
      best_r = static_cast<int64_t>(r);
      best_j = j;
    }
  }
  if (best_r < 0) return;
  uint8_t* out = dst.twin_bytes();
  StoreElement<T>(out, 0, input.repeats[static_cast<uint64_t>(best_r)][static_cast<uint64_t>(best_j)]);
  if (calIndex) StoreIndex<T>(out + sizeof(T), static_cast<uint64_t>(best_r) * kLanes + static_cast<uint64_t>(best_j));
  CountVector(api, processed);
}

template <typename T>
void ReduceSumRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                  const AscendC::LocalTensor<T>& sharedTmpBuffer, bool level2, int64_t count, int64_t mask,
                  const uint64_t* bits, int32_t repeatTime, int32_t srcRepStride) {
  const Api api = Api::kReduceSum;
  const char* name = ApiName(api);
  const std::vector<bool> active =
      WholeChecks<T>(api, level2, count, mask, bits, repeatTime, srcRepStride, sharedTmpBuffer);
  constexpr uint64_t kLanes = kLanesPerRepeat<T>;
  const uint64_t repeats = level2 ? CeilDiv(static_cast<uint64_t>(count), kLanes) : static_cast<uint64_t>(repeatTime);
  const uint64_t limit = level2 ? static_cast<uint64_t>(count) : repeats * kLanes;
  CheckUbOperand(name, "dst", dst.twin_ref(), 0, sizeof(T), false, UbUse::kVectorWrite);
  CheckElementAlignment(name, "dst", dst.twin_ref(), sizeof(T));
  const uint64_t first_max_repeat =
      level2 ? std::max<uint64_t>(1, static_cast<uint64_t>(count) / kLanes) : repeats;
  const uint64_t need = ReduceSumTmpElements<T>(first_max_repeat);
  if (Overlaps(dst.twin_ref(), sizeof(T), sharedTmpBuffer.twin_ref(), sharedTmpBuffer.GetLength()) &&
      uint64_t{sharedTmpBuffer.GetSize()} < need) {
    Fail("OPERAND_OVERLAP", name,
         StringPrintf("dst overlaps sharedTmpBuffer, which has %u elements: overlapping needs the minimum, %llu "
                      "(firstMaxRepeat=%llu)",
                      sharedTmpBuffer.GetSize(), static_cast<unsigned long long>(need),
                      static_cast<unsigned long long>(first_max_repeat)));
  }
  if (repeats == 0) return;
  WholeInput<T> input =
      GatherRepeats(name, src, active, repeats, level2 ? 8 : static_cast<uint64_t>(srcRepStride), limit);
  std::vector<T> sums;
  uint64_t processed = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (bool on : input.active[r]) processed += on ? 1 : 0;
    sums.push_back(TreeSum(input.repeats[r]));
  }
  T total = sums[0];
  if (level2 && ReduceSumSequentialRepeats()) {
    for (size_t r = 1; r < sums.size(); ++r) total = ReduceAdd(total, sums[r]);
  } else {
    while (sums.size() > 1) {
      std::vector<T> next;
      for (size_t first = 0; first < sums.size(); first += kLanes) {
        std::vector<T> lanes(kLanes, T(0));
        for (size_t j = 0; j < kLanes && first + j < sums.size(); ++j) lanes[j] = sums[first + j];
        next.push_back(TreeSum(lanes));
      }
      sums.swap(next);
    }
    total = sums[0];
  }
  StoreElement<T>(dst.twin_bytes(), 0, total);
  CountVector(api, processed);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// --- BlockReduceMax / BlockReduceSum / PairReduceSum: (dst, src, repeatTime, mask, strides) ---
#define OPGEN_TWIN_BLOCK_REDUCE(Name, Run)                                                                          \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                 \
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                     \
                   const int32_t srcRepStride) {                                                                   \
    Run;                                                                                                           \
  }

#define OPGEN_TWIN_BLOCK_REDUCE_BITS(Name, Run)                                                                     \
  template <typename T, bool isSetMask = true>                                                                     \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                 \
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                  \
                   const int32_t srcRepStride) {                                                                   \
    Run;                                                                                                           \
  }

OPGEN_TWIN_BLOCK_REDUCE(BlockReduceSum,
                        opgen_twin::detail::BlockReduceRun(opgen_twin::Api::kBlockReduceSum, dst, src, repeatTime,
                                                           mask, nullptr, dstRepStride, srcBlkStride, srcRepStride))
OPGEN_TWIN_BLOCK_REDUCE(BlockReduceMax,
                        opgen_twin::detail::BlockReduceRun(opgen_twin::Api::kBlockReduceMax, dst, src, repeatTime,
                                                           mask, nullptr, dstRepStride, srcBlkStride, srcRepStride))
OPGEN_TWIN_BLOCK_REDUCE(PairReduceSum,
                        opgen_twin::detail::PairReduceSumRun(dst, src, repeatTime, mask, nullptr, dstRepStride,
                                                             srcBlkStride, srcRepStride))
OPGEN_TWIN_BLOCK_REDUCE_BITS(BlockReduceSum,
                             opgen_twin::detail::BlockReduceRun(opgen_twin::Api::kBlockReduceSum, dst, src,
                                                                repeatTime, 0, mask, dstRepStride, srcBlkStride,
                                                                srcRepStride))
OPGEN_TWIN_BLOCK_REDUCE_BITS(BlockReduceMax,
                             opgen_twin::detail::BlockReduceRun(opgen_twin::Api::kBlockReduceMax, dst, src,
                                                                repeatTime, 0, mask, dstRepStride, srcBlkStride,
                                                                srcRepStride))
OPGEN_TWIN_BLOCK_REDUCE_BITS(PairReduceSum,
                             opgen_twin::detail::PairReduceSumRun(dst, src, repeatTime, 0, mask, dstRepStride,
                                                                  srcBlkStride, srcRepStride))
#undef OPGEN_TWIN_BLOCK_REDUCE
#undef OPGEN_TWIN_BLOCK_REDUCE_BITS

// --- WholeReduceSum / WholeReduceMax: (dst, src, mask, repeatTime, strides[, order]) ---
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  opgen_twin::detail::WholeReduceSumRun(dst, src, 0, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}

template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  opgen_twin::detail::WholeReduceMaxRun(dst, src, 0, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                                        order);
}

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  opgen_twin::detail::WholeReduceSumRun(dst, src, mask, nullptr, repeatTime, dstRepStride, srcBlkStride,
                                        srcRepStride);
}

template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  opgen_twin::detail::WholeReduceMaxRun(dst, src, mask, nullptr, repeatTime, dstRepStride, srcBlkStride,
                                        srcRepStride, order);
}

// --- ReduceMax / ReduceSum, level 0 (mask, repeatTime, srcRepStride) ---
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0) {
  opgen_twin::detail::ReduceMaxRun(dst, src, sharedTmpBuffer, false, 0, mask, nullptr, repeatTime, srcRepStride, calIndex);
}

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride) {
  opgen_twin::detail::ReduceSumRun(dst, src, sharedTmpBuffer, false, 0, mask, nullptr, repeatTime, srcRepStride);
}

template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,
                      bool calIndex = 0) {
  opgen_twin::detail::ReduceMaxRun(dst, src, sharedTmpBuffer, false, 0, 0, mask, repeatTime, srcRepStride, calIndex);
}

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride) {
  opgen_twin::detail::ReduceSumRun(dst, src, sharedTmpBuffer, false, 0, 0, mask, repeatTime, srcRepStride);
}

// --- level 2: the first `count` elements ---
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0) {
  opgen_twin::detail::ReduceMaxRun(dst, src, sharedTmpBuffer, true, count, 0, nullptr, 0, 8, calIndex);
}

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count) {
  opgen_twin::detail::ReduceSumRun(dst, src, sharedTmpBuffer, true, count, 0, nullptr, 0, 8);
}

}  // namespace AscendC
