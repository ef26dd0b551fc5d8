// The platform figures the aclnn layer and tiling functions see, derived from the twin's current
// SoC (opgen_twin::CurrentSoc(), i.e. opgen/spec/socs.py).
#ifndef OPGEN_TWIN_SRC_ACL_TWIN_PLATFORM_H_
#define OPGEN_TWIN_SRC_ACL_TWIN_PLATFORM_H_

#include <cstdint>
#include <string>

#include "opdev/platform.h"
#include "tiling/platform/platform_ascendc.h"

namespace fe {
// Handle passed to PlatformAscendC; it names a SoC of the twin's table.
class PlatFormInfos {
 public:
  explicit PlatFormInfos(std::string socName) : socName_(std::move(socName)) {}
  const std::string& GetSocName() const { return socName_; }

 private:
  std::string socName_;
};
}  // namespace fe

namespace opgen_twin {
namespace acl {

struct PlatformFigures {
  std::string socName;        // "ascend910b"
  std::string socLongName;    // "Ascend910B2"
  uint32_t vectorCores = 0;   // AIV
  uint32_t cubeCores = 0;     // AIC (half the AIV on split-core chips)
  bool splitCores = false;    // separate AIC/AIV cores (arch22, arch35)
  uint64_t ubUsableBytes = 0;
  bool bf16Supported = false;
  op::SocVersion opSocVersion = op::SocVersion::RESERVED_VERSION;
  platform_ascendc::SocVersion ascendcSocVersion = platform_ascendc::SocVersion::RESERVED_VERSION;
  NpuArch npuArch = NpuArch::DAV_RESV;
};

// Figures of a SoC by twin name ("ascend910b"); unknown names fall back to the current SoC.
PlatformFigures FiguresForSoc(const std::string& socName);
// Figures of the twin's current SoC.
PlatformFigures CurrentPlatform();
// A PlatFormInfos handle for the current SoC (owned by the runtime).
fe::PlatFormInfos* CurrentPlatFormInfos();

}  // namespace acl
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_SRC_ACL_TWIN_PLATFORM_H_
