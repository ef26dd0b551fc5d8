// Ascend C kernel API for the opgen CPU twin: the subset of CANN's kernel_operator.h that opgen's kernels
// and their tests use, with the real names and signatures, run on the host with checks and a trace.
// C++17, no CANN needed.
#pragma once

#include "opgen_twin/macros.h"
#include "opgen_twin/float16.h"
#include "opgen_twin/dtype.h"
#include "opgen_twin/check.h"
#include "opgen_twin/soc.h"
#include "opgen_twin/trace.h"
#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"
#include "opgen_twin/pipe.h"
#include "opgen_twin/data_copy.h"
#include "opgen_twin/vector_ops.h"
#include "opgen_twin/math_ops.h"
#include "opgen_twin/compare_select.h"
#include "opgen_twin/cast.h"
#include "opgen_twin/gather_mask.h"
#include "opgen_twin/gather.h"
#include "opgen_twin/reduce.h"
#include "opgen_twin/tiling.h"

namespace AscendC {

inline float ToFloat(const bfloat16_t& value) { return value.ToFloat(); }
inline bfloat16_t ToBfloat16(const float& value) { return bfloat16_t(value); }

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;

}  // namespace AscendC
