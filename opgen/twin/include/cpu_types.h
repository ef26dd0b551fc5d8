// AICPU kernel API types: aicpu::DataType (same codes as ge::DataType), Format, DeviceType.
#ifndef OPGEN_TWIN_CPU_TYPES_H_
#define OPGEN_TWIN_CPU_TYPES_H_

#include <cstdint>

#ifndef AICPU_VISIBILITY
#define AICPU_VISIBILITY __attribute__((visibility("default")))
#endif

namespace aicpu {

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_BFLOAT16 = 27,
  DT_UNDEFINED = 28,
  DT_COMPLEX32 = 33,
  DT_MAX
};

enum Format { FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_RESERVED = 40, FORMAT_MAX = 0xff };

enum DeviceType { HOST, DEVICE };

// Bytes per element, -1 for types without a fixed size.
AICPU_VISIBILITY int GetSizeByDataType(DataType dataType);

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_TYPES_H_
