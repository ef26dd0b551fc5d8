// platform_ascendc::PlatformAscendC: core counts, on-chip memory sizes and SoC version as a
// tiling function sees them. In the twin these come from the current SoC of the twin
// (OPGEN_SOC / opgen_twin::SetSoc), i.e. from opgen/spec/socs.py.
#ifndef OPGEN_TWIN_TILING_PLATFORM_PLATFORM_ASCENDC_H_
#define OPGEN_TWIN_TILING_PLATFORM_PLATFORM_ASCENDC_H_

#include <cstdint>

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND310P,
  ASCEND310B,
  ASCEND910_95 = 4,  // earlier name of Ascend 950
  ASCEND950 = 4,
  ASCEND910_55,
  AS31XM1,
  ASCEND031,
  ASCEND035,
  ASCEND310,
  ASCEND610,
  ASCEND610Lite,
  ASCEND910_93,
  BS9SX1A,
  BS9SX2A,
  HI3796CV300CS,
  HI3796CV300ES,
  MC61AM21A,
  SD3403,
  KIRINX90,
  KIRIN9020,
  RESERVED_VERSION = 99999
};

class PlatformAscendC {
 public:
  PlatformAscendC() = delete;
  ~PlatformAscendC() = default;
  explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}
  // Vector cores on AIV-only chips; on A2/A3 (separate cube/vector cores) the AI Core count.
  uint32_t GetCoreNum() const;
  uint32_t GetCoreNumAic() const;
  uint32_t GetCoreNumAiv() const;
  uint32_t GetCoreNumVector() const;
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;
  // Workspace the Ascend C library reserves on the device (16 MB on A2/A3/950).
  uint32_t GetLibApiWorkSpaceSize() const;
  uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
  uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
  void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const;
  void GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const;
  SocVersion GetSocVersion() const;

 private:
  fe::PlatFormInfos* platformInfo_;
};

class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance();
  static PlatformAscendC* GetInstance(const char* customSocVersion);
};

}  // namespace platform_ascendc

#endif  // OPGEN_TWIN_TILING_PLATFORM_PLATFORM_ASCENDC_H_
