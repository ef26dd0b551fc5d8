// The twin declares the Ascend C APIs the gated and softmax kernels use exactly as asc-devkit's public headers
// declare them for A2/A3 (include/basic_api/*.h, adv_api/activation/sigmoid.h; the reductions as
// kernel_operator_vec_reduce_intf.h declares them): each function is named through a pointer of the
// header's exact type, which selects one overload or fails to compile; the structs' constructors and field types
// are checked with static_assert. Compiling this file is the test; running it checks the field aliases.
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "kernel_operator.h"

using namespace AscendC;

template <typename A, typename B>
constexpr bool kSame = std::is_same<A, B>::value;

// --- structs (kernel_struct_data_copy.h, kernel_struct_gather.h) ---
static_assert(kSame<decltype(DataCopyParams::blockCount), uint16_t> && kSame<decltype(DataCopyParams::blockLen), uint16_t> &&
                  kSame<decltype(DataCopyParams::srcStride), uint16_t> && kSame<decltype(DataCopyParams::dstGap), uint16_t>,
              "DataCopyParams fields");
static_assert(std::is_constructible<DataCopyParams, uint16_t, uint16_t, uint16_t, uint16_t>::value, "DataCopyParams(4)");
static_assert(kSame<decltype(DataCopyExtParams::blockCount), uint16_t> &&
                  kSame<decltype(DataCopyExtParams::blockLen), uint32_t> &&
                  kSame<decltype(DataCopyExtParams::srcStride), uint32_t> &&
                  kSame<decltype(DataCopyExtParams::dstStride), uint32_t> && kSame<decltype(DataCopyExtParams::rsv), uint32_t>,
              "DataCopyExtParams fields");
static_assert(std::is_constructible<DataCopyExtParams, uint16_t, uint32_t, uint32_t, uint32_t, uint32_t>::value,
              "DataCopyExtParams(5)");
static_assert(!std::is_constructible<DataCopyExtParams, uint16_t, uint32_t, uint32_t, uint32_t>::value,
              "the real constructor has no default for rsv");
static_assert(std::is_constructible<DataCopyPadExtParams<half>, bool, uint8_t, uint8_t, half>::value &&
                  kSame<decltype(DataCopyPadExtParams<half>::paddingValue), half> &&
                  kSame<decltype(DataCopyPadExtParams<half>::leftPadding), uint8_t>,
              "DataCopyPadExtParams");
static_assert(std::is_constructible<DataCopyPadParams, bool, uint8_t, uint8_t, uint64_t>::value &&
                  kSame<decltype(DataCopyPadParams::paddingValue), uint64_t>,
              "DataCopyPadParams");
static_assert(kSame<decltype(GatherMaskParams::src0BlockStride), uint8_t> &&
                  kSame<decltype(GatherMaskParams::repeatTimes), uint16_t> &&
                  kSame<decltype(GatherMaskParams::src0RepeatStride), uint16_t> &&
                  kSame<decltype(GatherMaskParams::src1RepeatStride), uint8_t>,
              "GatherMaskParams fields");
static_assert(std::is_constructible<GatherMaskParams, uint8_t, uint16_t, uint16_t, uint8_t>::value, "GatherMaskParams(4)");
static_assert(kSame<std::underlying_type_t<GatherMaskMode>, uint8_t>, "GatherMaskMode : uint8_t");
static_assert(defaultGatherMaskMode == GatherMaskMode::VERSION_V2 && defaultGahterMaskMode == defaultGatherMaskMode,
              "A2/A3 default mode");

static_assert(kSame<std::underlying_type_t<ReduceOrder>, uint8_t> && static_cast<int>(ReduceOrder::ORDER_VALUE_INDEX) == 0 &&
                  static_cast<int>(ReduceOrder::ORDER_INDEX_VALUE) == 1 &&
                  static_cast<int>(ReduceOrder::ORDER_ONLY_VALUE) == 2 &&
                  static_cast<int>(ReduceOrder::ORDER_ONLY_INDEX) == 3,
              "ReduceOrder : uint8_t, in the header's order");

// --- functions: one pointer per declaration of the header ---
template <typename T>
void TakeAll() {
  using L = LocalTensor<T>;
  using G = GlobalTensor<T>;
  // kernel_operator_data_copy_intf.h
  void (*copyIn)(const L&, const G&, const uint32_t) = &DataCopy<T>;
  void (*copyOut)(const G&, const L&, const uint32_t) = &DataCopy<T>;
  void (*copyInParams)(const L&, const G&, const DataCopyParams&) = &DataCopy<T>;
  void (*copyOutParams)(const G&, const L&, const DataCopyParams&) = &DataCopy<T>;
  void (*padIn)(const L&, const G&, const DataCopyExtParams&, const DataCopyPadExtParams<T>&) = &DataCopyPad<T>;
  void (*padOut)(const G&, const L&, const DataCopyExtParams&) = &DataCopyPad<T>;
  void (*padInOld)(const L&, const G&, const DataCopyParams&, const DataCopyPadParams&) = &DataCopyPad<T>;
  void (*padOutOld)(const G&, const L&, const DataCopyParams&) = &DataCopyPad<T>;
  // kernel_operator_vec_gather_mask_intf.h
  using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
  void (*gatherUser)(const L&, const L&, const LocalTensor<U>&, const bool, const uint32_t, const GatherMaskParams&,
                     uint64_t&) = &GatherMask<T, U>;
  void (*gatherBuiltin)(const L&, const L&, const uint8_t, const bool, const uint32_t, const GatherMaskParams&,
                        uint64_t&) = &GatherMask<T>;
  // kernel_operator_vec_gather_intf.h (the level-2 count form)
  void (*gather)(const L&, const L&, const LocalTensor<uint32_t>&, const uint32_t, const uint32_t) = &Gather<T>;
  // kernel_operator_vec_duplicate_intf.h
  void (*duplicate)(const L&, const T&, const int32_t&) = &Duplicate<T>;
  void (*duplicateMask)(const L&, const T&, uint64_t, const uint8_t, const uint16_t, const uint8_t) = &Duplicate<T>;
  // kernel_operator_vec_binary_intf.h, _binary_scalar_intf.h, _unary_intf.h (count forms)
  void (*mul)(const L&, const L&, const L&, const int32_t&) = &Mul<T>;
  void (*div)(const L&, const L&, const L&, const int32_t&) = &Div<T>;
  void (*add)(const L&, const L&, const L&, const int32_t&) = &Add<T>;
  void (*sub)(const L&, const L&, const L&, const int32_t&) = &Sub<T>;  // the softmax kernels' Sub/Max/Ln
  void (*max)(const L&, const L&, const L&, const int32_t&) = &Max<T>;
  // The scalar family has a <T, isSetMask> and a <T, U, isSetMask> count form (as the header has): `&Muls<T>`
  // is ambiguous there too, so each is named by its own template arguments.
  void (*muls)(const L&, const L&, const T&, const int32_t&) = &Muls<T, true>;
  void (*adds)(const L&, const L&, const T&, const int32_t&) = &Adds<T, true>;
  void (*mins)(const L&, const L&, const T&, const int32_t&) = &Mins<T, true>;
  void (*mulsU)(const L&, const L&, const T&, const int32_t&) = &Muls<T, T, true>;
  void (*exp)(const L&, const L&, const int32_t&) = &Exp<T>;
  void (*ln)(const L&, const L&, const int32_t&) = &Ln<T>;
  // adv_api/activation/sigmoid.h
  void (*sigmoid)(const L&, const L&, const LocalTensor<uint8_t>&, const uint32_t) = &Sigmoid<T>;
  void (*sigmoidCount)(const L&, const L&, const uint32_t) = &Sigmoid<T>;
  // kernel_operator_vec_reduce_intf.h (A2/A3 declarations)
  using I = int32_t;
  void (*wholeMax)(const L&, const L&, const I, const I, const I, const I, const I, ReduceOrder) = &WholeReduceMax<T>;
  void (*wholeMaxBits)(const L&, const L&, const uint64_t[], const I, const I, const I, const I, ReduceOrder) =
      &WholeReduceMax<T>;
  void (*wholeSum)(const L&, const L&, const I, const I, const I, const I, const I) = &WholeReduceSum<T>;
  void (*wholeSumBits)(const L&, const L&, const uint64_t[], const I, const I, const I, const I) = &WholeReduceSum<T>;
  void (*blockSum)(const L&, const L&, const I, const I, const I, const I, const I) = &BlockReduceSum<T>;
  void (*blockSumBits)(const L&, const L&, const I, const uint64_t[], const I, const I, const I) = &BlockReduceSum<T>;
  void (*blockMax)(const L&, const L&, const I, const I, const I, const I, const I) = &BlockReduceMax<T>;
  void (*blockMaxBits)(const L&, const L&, const I, const uint64_t[], const I, const I, const I) = &BlockReduceMax<T>;
  void (*pairSum)(const L&, const L&, const I, const I, const I, const I, const I) = &PairReduceSum<T>;
  void (*pairSumBits)(const L&, const L&, const I, const uint64_t[], const I, const I, const I) = &PairReduceSum<T>;
  void (*reduceMax0)(const L&, const L&, const L&, const I, const I, const I, bool) = &ReduceMax<T>;
  void (*reduceMax0Bits)(const L&, const L&, const L&, const uint64_t[], const I, const I, bool) = &ReduceMax<T>;
  void (*reduceSum0)(const L&, const L&, const L&, const I, const I, const I) = &ReduceSum<T>;
  void (*reduceSum0Bits)(const L&, const L&, const L&, const uint64_t[], const I, const I) = &ReduceSum<T>;
  void (*reduceMax2)(const L&, const L&, const L&, const I, bool) = &ReduceMax<T>;
  void (*reduceSum2)(const L&, const L&, const L&, const I) = &ReduceSum<T, true>;
  const void* reductions[] = {
      reinterpret_cast<const void*>(wholeMax),     reinterpret_cast<const void*>(wholeMaxBits),
      reinterpret_cast<const void*>(wholeSum),     reinterpret_cast<const void*>(wholeSumBits),
      reinterpret_cast<const void*>(blockSum),     reinterpret_cast<const void*>(blockSumBits),
      reinterpret_cast<const void*>(blockMax),     reinterpret_cast<const void*>(blockMaxBits),
      reinterpret_cast<const void*>(pairSum),      reinterpret_cast<const void*>(pairSumBits),
      reinterpret_cast<const void*>(reduceMax0),   reinterpret_cast<const void*>(reduceMax0Bits),
      reinterpret_cast<const void*>(reduceSum0),   reinterpret_cast<const void*>(reduceSum0Bits),
      reinterpret_cast<const void*>(reduceMax2),   reinterpret_cast<const void*>(reduceSum2)};
  for (const void* p : reductions) {
    if (p == nullptr) std::printf("null\n");
  }
  const void* all[] = {reinterpret_cast<const void*>(copyIn),       reinterpret_cast<const void*>(copyOut),
                       reinterpret_cast<const void*>(copyInParams), reinterpret_cast<const void*>(copyOutParams),
                       reinterpret_cast<const void*>(padIn),        reinterpret_cast<const void*>(padOut),
                       reinterpret_cast<const void*>(padInOld),     reinterpret_cast<const void*>(padOutOld),
                       reinterpret_cast<const void*>(gatherUser),   reinterpret_cast<const void*>(gatherBuiltin),
                       reinterpret_cast<const void*>(gather),
                       reinterpret_cast<const void*>(duplicate),    reinterpret_cast<const void*>(duplicateMask),
                       reinterpret_cast<const void*>(mul),          reinterpret_cast<const void*>(div),
                       reinterpret_cast<const void*>(add),          reinterpret_cast<const void*>(sub),
                       reinterpret_cast<const void*>(max),          reinterpret_cast<const void*>(ln),
                       reinterpret_cast<const void*>(muls),
                       reinterpret_cast<const void*>(adds),         reinterpret_cast<const void*>(mins),
                       reinterpret_cast<const void*>(mulsU),
                       reinterpret_cast<const void*>(exp),          reinterpret_cast<const void*>(sigmoid),
                       reinterpret_cast<const void*>(sigmoidCount)};
  for (const void* p : all) {
    if (p == nullptr) std::printf("null\n");
  }
}

// kernel_operator_vec_vconv_intf.h (Cast), kernel_operator_sync_intf.h (SetFlag/WaitFlag/PipeBarrier),
// kernel_tpipe.h (TPipe::FetchEventID, the softmax kernels' V_S / S_V handshakes)
void TakeOthers() {
  void (*castUp)(const LocalTensor<float>&, const LocalTensor<half>&, const RoundMode&, const uint32_t) =
      &Cast<float, half>;
  void (*castDown)(const LocalTensor<half>&, const LocalTensor<float>&, const RoundMode&, const uint32_t) =
      &Cast<half, float>;
  void (*setFlag)(int32_t) = &SetFlag<HardEvent::MTE2_V>;
  void (*waitFlag)(int32_t) = &WaitFlag<HardEvent::MTE2_V>;
  void (*setVS)(int32_t) = &SetFlag<HardEvent::V_S>;
  void (*waitSV)(int32_t) = &WaitFlag<HardEvent::S_V>;
  void (*barrier)() = &PipeBarrier<PIPE_V>;
  TEventID (TPipe::*fetch)(HardEvent) = &TPipe::FetchEventID;
  TEventID (TPipe::*fetchFor)() = &TPipe::FetchEventID<HardEvent::V_S>;
  if (castUp == nullptr || castDown == nullptr || setFlag == nullptr || waitFlag == nullptr || setVS == nullptr ||
      waitSV == nullptr || barrier == nullptr || fetch == nullptr || fetchFor == nullptr) {
    std::printf("null\n");
  }
}

// The reference's call spellings compile (default order and calIndex, a literal mask); never run.
template <typename T>
void ReductionCalls(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp) {
  uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
  WholeReduceMax<T>(dst, src, 128, 4, 1, 1, 8);
  WholeReduceMax<T>(dst, src, mask, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  WholeReduceSum<T>(dst, src, 128, 4, 1, 1, 8);
  BlockReduceSum<T>(dst, src, 1, 128, 1, 1, 8);
  ReduceMax<T>(dst, src, tmp, 128, 65, 8, true);
  ReduceMax<T>(dst, src, tmp, 8320);
  ReduceSum<T>(dst, src, tmp, 8320);
  ReduceSum<T>(dst, src, tmp, mask, 65, 8);
}
template void ReductionCalls<half>(const LocalTensor<half>&, const LocalTensor<half>&, const LocalTensor<half>&);

int main() {
  TakeAll<float>();
  TakeAll<half>();
  TakeOthers();
  // Calls spelled as ops-nn's gated kernels spell them compile: brace-initialised params, a literal pattern.
  static_assert(std::is_convertible<decltype(1), uint8_t>::value, "literal pattern");
  DataCopyParams params;
  params.srcGap = 3;
  params.dstGap = 5;
  DataCopyExtParams ext;
  std::printf("blockCount=%u srcStride=%u dstStride=%u ext.blockCount=%u\n", params.blockCount, params.srcStride,
              params.dstStride, ext.blockCount);
  return 0;
}
