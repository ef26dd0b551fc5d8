// op::PlatformInfo / GetCurrentPlatformInfo(): the SoC the aclnn layer runs on, i.e. the twin's
// current SoC (OPGEN_SOC / opgen_twin::SetSoc). NpuArch is the architecture id ops-nn branches on.
#ifndef OPGEN_TWIN_OPDEV_PLATFORM_H_
#define OPGEN_TWIN_OPDEV_PLATFORM_H_

#include <cstdint>
#include <string>

#include "aclnn/aclnn_base.h"
#include "graph/ascend_string.h"

enum class NpuArch : uint32_t {
  DAV_1001 = 1001,
  DAV_1002 = 1002,
  DAV_2002 = 2002,
  DAV_2102 = 2102,
  DAV_2201 = 2201,
  DAV_3002 = 3002,
  DAV_3003 = 3003,
  DAV_3102 = 3102,
  DAV_3510 = 3510,
  DAV_5102 = 5102,
  DAV_RESV = 0xFFFF
};

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace op {

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND910_93,
  ASCEND910_95,
  ASCEND950 = ASCEND910_95,  // same chip, later name
  ASCEND910E,
  ASCEND310,
  ASCEND310P,
  ASCEND310B,
  ASCEND310C,
  ASCEND610LITE,
  KIRINX90,
  KIRIN9030,
  KIRIN9020,
  RESERVED_VERSION = 99999
};

enum class SocSpec { INST_MMAD = 0, RESERVED_SPEC = 99999 };
enum class SocSpecAbility { INST_MMAD_F162F16 = 0, INST_MMAD_F162F32, INST_MMAD_H322F32, INST_MMAD_F322F32 };

class PlatformInfo {
 public:
  PlatformInfo() = default;
  explicit PlatformInfo(int32_t deviceId) : deviceId_(deviceId) {}
  PlatformInfo(const PlatformInfo&) = delete;
  PlatformInfo& operator=(const PlatformInfo&) = delete;

  SocVersion GetSocVersion() const;
  NpuArch GetCurNpuArch() const;
  const std::string& GetSocLongVersion() const;
  int32_t GetDeviceId() const { return deviceId_; }
  bool CheckSupport(SocSpec socSpec, SocSpecAbility ability) const;
  int64_t GetBlockSize() const { return 32; }
  uint32_t GetCubeCoreNum() const;
  uint32_t GetVectorCoreNum() const;
  bool Valid() const { return true; }
  bool GetFftsPlusMode() const { return false; }
  fe::PlatFormInfos* GetPlatformInfos() const;

 private:
  int32_t deviceId_ = 0;
};

const PlatformInfo& GetCurrentPlatformInfo();
ge::AscendString ToString(SocVersion socVersion);
// Test hook as in ops-nn UT stubs: switches the twin's current SoC.
void SetPlatformSocVersion(SocVersion socVersion);

}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_PLATFORM_H_
