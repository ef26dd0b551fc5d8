// aclnn base header included by every aclnnop/aclnn_*.h API header.
#ifndef OPGEN_TWIN_ACLNN_ACLNN_BASE_H_
#define OPGEN_TWIN_ACLNN_ACLNN_BASE_H_

#include <stdint.h>
#include <stdlib.h>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize();

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_TWIN_ACLNN_ACLNN_BASE_H_
