// Which element types each API takes on each SoC, and which Cast conversions and rounding modes are legal.
//
// Sources: the Ascend C API reference's per-product type lists (A2/A3 never do bfloat16 arithmetic; Ascend 950
// adds bfloat16 to most arithmetic; LeakyRelu is half/float only; DataCopyPad is absent on the older
// training/inference parts) and, for the advanced math APIs, the asc-devkit headers (adv_api/math/*.h, adv_api/activation/sigmoid.h).
// Integer support of the arithmetic APIs follows the A2 lists (int16/int32 for Add..Min and the scalar
// family, int32 for Relu; asc-devkit's Maxs list confirms half/int16_t/float/int32_t on A2/A3), and A2/A3
// compare int32_t for CMPMODE::EQ only (asc-devkit's Compare and CompareScalar lists).
#include <cstring>
#include <string>

#include "core_state.h"

namespace opgen_twin {
namespace detail {
namespace {

constexpr DTypeMask kHalfFloat = DTypeBit(DType::kHalf) | DTypeBit(DType::kFloat);
constexpr DTypeMask kInt16Int32 = DTypeBit(DType::kInt16) | DTypeBit(DType::kInt32);
constexpr DTypeMask kAll16And32 = DTypeBit(DType::kHalf) | DTypeBit(DType::kFloat) | DTypeBit(DType::kInt16) |
                                  DTypeBit(DType::kUint16) | DTypeBit(DType::kInt32) | DTypeBit(DType::kUint32);
constexpr DTypeMask kAllTypes = (DTypeMask{1} << static_cast<unsigned>(DType::kCount)) - 1u;
constexpr DTypeMask k64Bit = DTypeBit(DType::kInt64) | DTypeBit(DType::kUint64) | DTypeBit(DType::kDouble);

bool IsKirin(const SocInfo& soc) { return std::strcmp(soc.arch, "kirin") == 0; }
// The older Atlas training (ascend910) and inference (ascend310p) parts.
bool IsLegacy(const SocInfo& soc) { return std::strcmp(soc.arch, "arch12") == 0 || std::strcmp(soc.arch, "arch20") == 0; }

// The advanced math APIs (Tanh, Erf, Sign, Floor, Trunc) exist for A2/A3, Atlas inference (310P) and Ascend 950
// (asc-devkit guards them with __NPU_ARCH__ 2201, 2002, 3510); Sigmoid also for Atlas training (1001). They take
// half/float only. Kirin's arch numbers are not confirmed here, so the twin refuses them there.
bool HasAdvancedMath(const SocInfo& soc) {
  return std::strcmp(soc.arch, "arch22") == 0 || std::strcmp(soc.arch, "arch20") == 0 ||
         std::strcmp(soc.arch, "arch35") == 0;
}

// GatherMask's reference lists A2/A3 (half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t);
// asc-devkit also implements it for Ascend 950. The twin refuses it on the SoCs the reference does not name.
bool HasGatherMask(const SocInfo& soc) {
  return std::strcmp(soc.arch, "arch22") == 0 || std::strcmp(soc.arch, "arch35") == 0;
}

// Gather's reference: A2/A3 16- and 32-bit types and bfloat16_t; Atlas inference AI Core (arch20) the same without
// bfloat16_t; Atlas 200I/500 A2 (arch30) 8-, 16- and 32-bit types without bfloat16_t; Ascend 950 also the 64-bit
// integers; not the Atlas training parts. Kirin is not named, so the twin refuses it there.
DTypeMask GatherDtypes(const SocInfo& soc, DTypeMask bf16_data) {
  const DTypeMask bytes = DTypeBit(DType::kInt8) | DTypeBit(DType::kUint8);
  if (std::strcmp(soc.arch, "arch22") == 0) return kAll16And32 | bf16_data;
  if (std::strcmp(soc.arch, "arch20") == 0) return kAll16And32;
  if (std::strcmp(soc.arch, "arch30") == 0) return kAll16And32 | bytes;
  if (std::strcmp(soc.arch, "arch35") == 0) {
    return kAll16And32 | bytes | bf16_data | DTypeBit(DType::kInt64) | DTypeBit(DType::kUint64);
  }
  return 0;
}

// The reductions (WholeReduce*, BlockReduce*, PairReduceSum, ReduceMax/ReduceSum) take half/float; the Atlas
// training parts half only (WholeReduceMax's reference). Ascend 950's integer WholeReduceMax is not modelled.
DTypeMask ReductionDtypes(const SocInfo& soc) {
  return std::strcmp(soc.arch, "arch12") == 0 ? DTypeBit(DType::kHalf) : kHalfFloat;
}

DTypeMask AllowedDtypes(Api api, const SocInfo& soc) {
  const DTypeMask bf16_arith = soc.bf16VectorArith ? DTypeBit(DType::kBfloat16) : 0u;
  const DTypeMask bf16_data = soc.bf16Supported ? DTypeBit(DType::kBfloat16) : 0u;
  switch (api) {
    case Api::kDataCopy:
      return (kAllTypes & ~DTypeBit(DType::kBfloat16)) | bf16_data;
    case Api::kDataCopyPad:
      if (IsLegacy(soc)) return 0;
      if (IsKirin(soc)) return kAll16And32 | DTypeBit(DType::kInt8) | DTypeBit(DType::kUint8);
      return kAll16And32 | DTypeBit(DType::kInt8) | DTypeBit(DType::kUint8) | k64Bit | bf16_data;
    case Api::kAdd:
    case Api::kSub:
    case Api::kMul:
    case Api::kMax:
    case Api::kMin:
    case Api::kAdds:
    case Api::kMuls:
    case Api::kMaxs:
    case Api::kMins:
      return kHalfFloat | kInt16Int32 | bf16_arith;
    case Api::kDiv:
    case Api::kExp:
    case Api::kLn:
    case Api::kAbs:
    case Api::kSqrt:
    case Api::kRsqrt:
    case Api::kReciprocal:
      return kHalfFloat | bf16_arith;
    case Api::kTanh:
    case Api::kErf:
    case Api::kSign:
    case Api::kFloor:
    case Api::kTrunc:
      return HasAdvancedMath(soc) ? kHalfFloat : 0u;
    case Api::kSigmoid:
      return HasAdvancedMath(soc) || std::strcmp(soc.arch, "arch12") == 0 ? kHalfFloat : 0u;
    case Api::kRelu:
      return kHalfFloat | DTypeBit(DType::kInt32) | bf16_arith;
    case Api::kLeakyRelu:
      return IsLegacy(soc) ? 0u : kHalfFloat;
    case Api::kDuplicate:
      return kAll16And32 | bf16_data;
    case Api::kCompare:
    case Api::kCompares:
    case Api::kCompareScalar:
    case Api::kSelect:
      return kHalfFloat | bf16_arith;
    case Api::kGatherMask:
      return HasGatherMask(soc) ? kAll16And32 | bf16_data : 0u;
    case Api::kGather:
      return GatherDtypes(soc, bf16_data);
    case Api::kWholeReduceMax:
    case Api::kWholeReduceSum:
    case Api::kBlockReduceMax:
    case Api::kBlockReduceSum:
    case Api::kPairReduceSum:
    case Api::kReduceMax:
    case Api::kReduceSum:
      return ReductionDtypes(soc);
    case Api::kCast:
    case Api::kCount:
      break;
  }
  return kAllTypes;
}

std::string DTypeList(DTypeMask mask) {
  std::string names;
  for (unsigned t = 0; t < static_cast<unsigned>(DType::kCount); ++t) {
    if ((mask >> t) & 1u) {
      if (!names.empty()) names += ", ";
      names += DTypeName(static_cast<DType>(t));
    }
  }
  return names;
}

// Legal rounding modes per (src, dst) conversion, as a bit set over RoundMode values.
constexpr uint8_t kNone = 1u << 0;
constexpr uint8_t kRint = 1u << 1;
constexpr uint8_t kFloor = 1u << 2;
constexpr uint8_t kCeil = 1u << 3;
constexpr uint8_t kRound = 1u << 4;
constexpr uint8_t kTrunc = 1u << 5;
constexpr uint8_t kOdd = 1u << 6;
constexpr uint8_t kDirected = kRint | kFloor | kCeil | kRound | kTrunc;

struct CastRule {
  DType src;
  DType dst;
  uint8_t modes;
};

// A2/A3 rules (the floating-point rows from the Ascend C API reference's type lists). The other SoCs use the same table;
// bfloat16 rows only where the SoC has bfloat16.
constexpr CastRule kCastRules[] = {
    {DType::kHalf, DType::kFloat, kNone},
    {DType::kBfloat16, DType::kFloat, kNone},
    {DType::kFloat, DType::kHalf, kNone | kDirected | kOdd},
    {DType::kFloat, DType::kBfloat16, kDirected},
    {DType::kFloat, DType::kFloat, kDirected},
    {DType::kFloat, DType::kInt32, kDirected},
    {DType::kFloat, DType::kInt16, kDirected},
    {DType::kFloat, DType::kInt64, kDirected},
    {DType::kInt32, DType::kFloat, kNone | kDirected},
    {DType::kInt64, DType::kFloat, kDirected},
    {DType::kHalf, DType::kInt32, kDirected},
    {DType::kHalf, DType::kInt16, kDirected},
    {DType::kHalf, DType::kInt8, kNone | kDirected},
    {DType::kHalf, DType::kUint8, kNone | kDirected},
    {DType::kBfloat16, DType::kInt32, kDirected},
    {DType::kInt8, DType::kHalf, kNone},
    {DType::kUint8, DType::kHalf, kNone},
    {DType::kInt16, DType::kHalf, kNone | kDirected},
    {DType::kInt16, DType::kFloat, kNone},
    {DType::kInt32, DType::kInt64, kNone},
    {DType::kInt64, DType::kInt32, kNone},
    {DType::kInt32, DType::kInt16, kNone},
};

std::string ModeList(uint8_t modes) {
  std::string names;
  for (int m = 0; m < 7; ++m) {
    if ((modes >> m) & 1u) {
      if (!names.empty()) names += ", ";
      names += RoundModeName(m);
    }
  }
  return names;
}

}  // namespace

void RequireDtype(Api api, DType type) {
  const SocInfo& soc = ActiveSoc();
  const DTypeMask allowed = AllowedDtypes(api, soc);
  if ((allowed & DTypeBit(type)) != 0) return;
  if (allowed == 0) {
    Fail("DTYPE_UNSUPPORTED", ApiName(api),
         StringPrintf("dtype=%s soc=%s: %s is not available on this SoC", DTypeName(type), soc.name, ApiName(api)));
  }
  Fail("DTYPE_UNSUPPORTED", ApiName(api),
       StringPrintf("dtype=%s soc=%s: %s takes %s here", DTypeName(type), soc.name, ApiName(api),
              DTypeList(allowed).c_str()));
}

// WholeReduceMax's ReduceOrder values per SoC (its reference): A2/A3 and Ascend 950 all four; Atlas 200I/500 A2
// (arch30) VALUE_INDEX and ONLY_VALUE; Atlas inference (arch20) VALUE_INDEX and INDEX_VALUE; Atlas training
// (arch12) VALUE_INDEX. Kirin is not listed there; the twin accepts all four.
void RequireReduceOrder(Api api, int order) {
  static const char* const kNames[] = {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"};
  const SocInfo& soc = ActiveSoc();
  unsigned allowed = 0xfu;
  if (std::strcmp(soc.arch, "arch30") == 0) allowed = 0x5u;
  if (std::strcmp(soc.arch, "arch20") == 0) allowed = 0x3u;
  if (std::strcmp(soc.arch, "arch12") == 0) allowed = 0x1u;
  if (((allowed >> order) & 1u) != 0) return;
  std::string names;
  for (int o = 0; o < 4; ++o) {
    if (((allowed >> o) & 1u) == 0) continue;
    if (!names.empty()) names += ", ";
    names += kNames[o];
  }
  Fail("INVALID_ARGUMENT", ApiName(api),
       StringPrintf("order=%s soc=%s: this SoC takes %s", kNames[order], soc.name, names.c_str()));
}

// ReduceSum's reference: the count form adds the repeats' sums in order on A2/A3 ("mode 2"); the other forms and
// SoCs reduce them as a tree ("mode 1").
bool ReduceSumSequentialRepeats() { return std::strcmp(ActiveSoc().arch, "arch22") == 0; }

void RequireCompareDtype(Api api, DType type, bool equality) {
  const SocInfo& soc = ActiveSoc();
  if (type == DType::kInt32 && std::strcmp(soc.arch, "arch22") == 0) {
    if (equality) return;
    Fail("DTYPE_UNSUPPORTED", ApiName(api),
         StringPrintf("dtype=%s soc=%s: %s compares int32_t for CMPMODE::EQ only", DTypeName(type), soc.name,
                      ApiName(api)));
  }
  RequireDtype(api, type);
}

void RequireCast(DType dst, DType src, int round_mode) {
  const SocInfo& soc = ActiveSoc();
  const bool bf16_involved = dst == DType::kBfloat16 || src == DType::kBfloat16;
  const CastRule* rule = nullptr;
  if (!bf16_involved || soc.bf16Supported) {
    for (const CastRule& candidate : kCastRules) {
      if (candidate.src == src && candidate.dst == dst) rule = &candidate;
    }
  }
  if (rule == nullptr) {
    Fail("DTYPE_UNSUPPORTED", "Cast",
         StringPrintf("dtype=%s->%s soc=%s: no such conversion on this SoC", DTypeName(src), DTypeName(dst), soc.name));
  }
  if (round_mode < 0 || round_mode > 6 || ((rule->modes >> round_mode) & 1u) == 0) {
    Fail("CAST_MODE_ILLEGAL", "Cast",
         StringPrintf("dtype=%s->%s mode=%s soc=%s: legal modes are %s (hardware issues nothing and leaves dst "
                "unchanged)",
                DTypeName(src), DTypeName(dst), RoundModeName(round_mode), soc.name, ModeList(rule->modes).c_str()));
  }
}

}  // namespace detail
}  // namespace opgen_twin
