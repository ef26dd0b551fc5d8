// ops-nn common op_api helpers: ACLNN_API and Ops::NN::AclnnUtil::IsRegbase.
#ifndef OPGEN_TWIN_OP_API_ACLNN_UTIL_H_
#define OPGEN_TWIN_OP_API_ACLNN_UTIL_H_

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif

#include "opdev/platform.h"

namespace Ops {
namespace NN {
namespace AclnnUtil {

// Register-based (Ascend 950 class) architectures.
inline bool IsRegbase(NpuArch npuArch) { return npuArch == NpuArch::DAV_3510 || npuArch == NpuArch::DAV_5102; }
inline bool IsRegbase() { return IsRegbase(op::GetCurrentPlatformInfo().GetCurNpuArch()); }

}  // namespace AclnnUtil
}  // namespace NN
}  // namespace Ops

#endif  // OPGEN_TWIN_OP_API_ACLNN_UTIL_H_
