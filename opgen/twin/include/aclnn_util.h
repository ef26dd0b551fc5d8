// ACLNN_API: export attribute used by aclnnop/aclnn_*.h headers.
#ifndef OPGEN_TWIN_ACLNN_UTIL_H_
#define OPGEN_TWIN_ACLNN_UTIL_H_

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif

#endif  // OPGEN_TWIN_ACLNN_UTIL_H_
