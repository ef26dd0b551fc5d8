// Reading and writing single elements of any aclnn dtype through a wide value, plus strided
// iteration over a tensor view. Used by the host-side Cast / Contiguous / ViewCopy launches,
// scalar conversions and the AICPU bridge.
#ifndef OPGEN_TWIN_SRC_ACL_ELEMENT_ACCESS_H_
#define OPGEN_TWIN_SRC_ACL_ELEMENT_ACCESS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "opdev/common_types.h"

namespace opgen_twin {
namespace acl {

// An element widened without loss: integers stay integers (exact beyond 2^53).
struct WideValue {
  enum Kind { kBool, kSigned, kUnsigned, kReal, kComplex } kind = kReal;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0.0;
  double im = 0.0;

  double AsDouble() const;
  int64_t AsInt64() const;  // floats truncated toward zero, saturating at the int64 range
  bool AsBool() const;
};

bool IsSupportedElementType(op::DataType dtype);
WideValue ReadElement(const void* address, op::DataType dtype);
// Converts as PyTorch's cast does: RNE to float types, truncation toward zero to integers
// (wrapping to the width), != 0 to bool, real part when dropping an imaginary part.
void WriteElement(void* address, op::DataType dtype, const WideValue& value);

// Calls visit(elementIndex, storageOffsetInElements) for every element of the view in row-major
// order.
void ForEachViewElement(const op::Shape& shape, const op::Strides& strides, int64_t offset,
                        const std::function<void(int64_t, int64_t)>& visit);

}  // namespace acl
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_SRC_ACL_ELEMENT_ACCESS_H_
