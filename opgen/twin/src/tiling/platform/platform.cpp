// op::PlatformInfo and platform_ascendc::PlatformAscendC over the twin's SoC table.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "opgen_twin/soc.h"
#include "twin_platform.h"

namespace opgen_twin {
namespace acl {
namespace {

struct SocIdentity {
  const char* name;
  const char* longName;
  op::SocVersion opVersion;
  platform_ascendc::SocVersion ascendcVersion;
  NpuArch arch;
};

// Kirin NPU architecture ids are not public: DAV_RESV keeps ops-nn arch checks from matching.
constexpr SocIdentity kIdentities[] = {
    {"ascend910", "Ascend910A", op::SocVersion::ASCEND910, platform_ascendc::SocVersion::ASCEND910, NpuArch::DAV_1001},
    {"ascend910b", "Ascend910B2", op::SocVersion::ASCEND910B, platform_ascendc::SocVersion::ASCEND910B,
     NpuArch::DAV_2201},
    {"ascend910_93", "Ascend910_9391", op::SocVersion::ASCEND910_93, platform_ascendc::SocVersion::ASCEND910_93,
     NpuArch::DAV_2201},
    {"ascend950", "Ascend950", op::SocVersion::ASCEND950, platform_ascendc::SocVersion::ASCEND950, NpuArch::DAV_3510},
    {"ascend310p", "Ascend310P3", op::SocVersion::ASCEND310P, platform_ascendc::SocVersion::ASCEND310P,
     NpuArch::DAV_2002},
    {"ascend310b", "Ascend310B1", op::SocVersion::ASCEND310B, platform_ascendc::SocVersion::ASCEND310B,
     NpuArch::DAV_3002},
    {"kirin9020", "Kirin9020", op::SocVersion::KIRIN9020, platform_ascendc::SocVersion::KIRIN9020, NpuArch::DAV_RESV},
    {"kirinx90", "KirinX90", op::SocVersion::KIRINX90, platform_ascendc::SocVersion::KIRINX90, NpuArch::DAV_RESV},
};

PlatformFigures FromSocInfo(const SocInfo& soc) {
  PlatformFigures figures;
  figures.socName = soc.name;
  figures.vectorCores = soc.vectorCores;
  std::string arch = soc.arch;
  figures.splitCores = arch == "arch22" || arch == "arch35";
  figures.cubeCores = figures.splitCores ? soc.vectorCores / 2 : soc.vectorCores;
  figures.ubUsableBytes = soc.ubUsableBytes;
  figures.bf16Supported = soc.bf16Supported;
  figures.socLongName = soc.name;
  for (const auto& identity : kIdentities) {
    if (figures.socName == identity.name) {
      figures.socLongName = identity.longName;
      figures.opSocVersion = identity.opVersion;
      figures.ascendcSocVersion = identity.ascendcVersion;
      figures.npuArch = identity.arch;
    }
  }
  return figures;
}

}  // namespace

// The figures of every row of the SoC table, derived once (tiling asks for them several times per launch).
const PlatformFigures& CachedFigures(const SocInfo& soc) {
  static const std::vector<PlatformFigures> table = [] {
    size_t count = 0;
    const SocInfo* socs = AllSocs(&count);
    std::vector<PlatformFigures> figures;
    for (size_t i = 0; i < count; ++i) figures.push_back(FromSocInfo(socs[i]));
    return figures;
  }();
  size_t count = 0;
  const SocInfo* socs = AllSocs(&count);
  if (&soc >= socs && &soc < socs + count) return table[static_cast<size_t>(&soc - socs)];
  thread_local PlatformFigures other;  // not a table row (cannot happen: CurrentSoc/FindSoc return rows)
  other = FromSocInfo(soc);
  return other;
}

PlatformFigures FiguresForSoc(const std::string& socName) {
  const SocInfo* soc = FindSoc(socName.c_str());
  return CachedFigures(soc != nullptr ? *soc : CurrentSoc());
}

PlatformFigures CurrentPlatform() { return CachedFigures(CurrentSoc()); }

fe::PlatFormInfos* CurrentPlatFormInfos() {
  // One handle per SoC name, kept for the life of the process (tiling code may hold the pointer).
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<fe::PlatFormInfos>> handles;
  std::lock_guard<std::mutex> lock(mutex);
  std::string name = CurrentSoc().name;
  auto& handle = handles[name];
  if (handle == nullptr) handle = std::make_unique<fe::PlatFormInfos>(name);
  return handle.get();
}

}  // namespace acl
}  // namespace opgen_twin

namespace {
using opgen_twin::acl::CurrentPlatform;
using opgen_twin::acl::FiguresForSoc;
using opgen_twin::acl::PlatformFigures;

PlatformFigures FiguresOf(fe::PlatFormInfos* infos) {
  return infos == nullptr ? CurrentPlatform() : FiguresForSoc(infos->GetSocName());
}
}  // namespace

namespace platform_ascendc {

uint32_t PlatformAscendC::GetCoreNum() const {
  PlatformFigures figures = FiguresOf(platformInfo_);
  return figures.splitCores ? figures.cubeCores : figures.vectorCores;
}
uint32_t PlatformAscendC::GetCoreNumAic() const { return FiguresOf(platformInfo_).cubeCores; }
uint32_t PlatformAscendC::GetCoreNumAiv() const { return FiguresOf(platformInfo_).vectorCores; }
uint32_t PlatformAscendC::GetCoreNumVector() const { return 0; }

uint32_t PlatformAscendC::CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
  if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
  uint32_t ratio = aivCoreNum / aicCoreNum;  // vector cores per cube core in mixed launches
  return ratio == 0 ? sliceNum : (sliceNum + ratio - 1) / ratio;
}

uint32_t PlatformAscendC::GetLibApiWorkSpaceSize() const { return 16U * 1024U * 1024U; }

void PlatformAscendC::GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
  PlatformFigures figures = FiguresOf(platformInfo_);
  // Only UB comes from the SoC table; the other sizes are the A2/A3 figures (not modelled).
  switch (memType) {
    case CoreMemType::UB:
      size = figures.ubUsableBytes;
      break;
    case CoreMemType::L1:
      size = 512ULL * 1024ULL;
      break;
    case CoreMemType::L0_A:
    case CoreMemType::L0_B:
      size = 64ULL * 1024ULL;
      break;
    case CoreMemType::L0_C:
      size = 128ULL * 1024ULL;
      break;
    case CoreMemType::L2:
      size = 192ULL * 1024ULL * 1024ULL;
      break;
    case CoreMemType::HBM:
      size = 64ULL * 1024ULL * 1024ULL * 1024ULL;
      break;
    default:
      size = 0;
      break;
  }
}

void PlatformAscendC::GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const {
  (void)memType;
  bwSize = 0;
}

SocVersion PlatformAscendC::GetSocVersion() const { return FiguresOf(platformInfo_).ascendcSocVersion; }

PlatformAscendC* PlatformAscendCManager::GetInstance() {
  static PlatformAscendC instance(nullptr);  // nullptr: follow the current SoC
  return &instance;
}

PlatformAscendC* PlatformAscendCManager::GetInstance(const char* customSocVersion) {
  (void)customSocVersion;
  return GetInstance();
}

}  // namespace platform_ascendc

namespace op {

SocVersion PlatformInfo::GetSocVersion() const { return CurrentPlatform().opSocVersion; }
NpuArch PlatformInfo::GetCurNpuArch() const { return CurrentPlatform().npuArch; }
const std::string& PlatformInfo::GetSocLongVersion() const {
  thread_local std::string longName;
  longName = CurrentPlatform().socLongName;
  return longName;
}
bool PlatformInfo::CheckSupport(SocSpec socSpec, SocSpecAbility ability) const {
  (void)socSpec;
  (void)ability;
  return true;
}
uint32_t PlatformInfo::GetCubeCoreNum() const { return CurrentPlatform().cubeCores; }
uint32_t PlatformInfo::GetVectorCoreNum() const { return CurrentPlatform().vectorCores; }
fe::PlatFormInfos* PlatformInfo::GetPlatformInfos() const { return opgen_twin::acl::CurrentPlatFormInfos(); }

const PlatformInfo& GetCurrentPlatformInfo() {
  static PlatformInfo info(0);
  return info;
}

ge::AscendString ToString(SocVersion socVersion) {
  for (const auto& identity : opgen_twin::acl::kIdentities) {
    if (identity.opVersion == socVersion) return ge::AscendString(identity.longName);
  }
  return ge::AscendString("UnknowSocVersion");
}

void SetPlatformSocVersion(SocVersion socVersion) {
  for (const auto& identity : opgen_twin::acl::kIdentities) {
    if (identity.opVersion == socVersion) {
      opgen_twin::SetSoc(identity.name);
      return;
    }
  }
}

}  // namespace op
