// Runtime (aclrt*) error codes used by the twin (values as in CANN's rt_error_codes.h).
#ifndef OPGEN_TWIN_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define OPGEN_TWIN_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#ifdef __cplusplus
extern "C" {
#endif

static const int ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int ACL_ERROR_RT_MEMORY_FREE = 207002;

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_TWIN_ACL_ERROR_CODES_RT_ERROR_CODES_H_
