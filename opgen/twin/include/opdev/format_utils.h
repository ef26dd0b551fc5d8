// Format helpers: private (hardware) formats, ACL <-> op format conversion, names.
#ifndef OPGEN_TWIN_OPDEV_FORMAT_UTILS_H_
#define OPGEN_TWIN_OPDEV_FORMAT_UTILS_H_

#include <string>

#include "acl/acl_base.h"
#include "opdev/common_types.h"

namespace op {

bool IsPrivateFormat(Format format);
Format ToFormat(const std::string& formatStr);
ge::AscendString ToString(Format format);

inline Format GetPrimaryFormat(Format format) { return static_cast<Format>(static_cast<uint32_t>(format) & 0xffU); }
inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xffU); }

inline Format ToOpFormat(aclFormat format) {
  return format == ACL_FORMAT_UNDEFINED ? Format::FORMAT_MAX : static_cast<Format>(format);
}
aclFormat ToAclFormat(Format format);

}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_FORMAT_UTILS_H_
