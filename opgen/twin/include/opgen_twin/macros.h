// Ascend C qualifiers and address macros, reduced to what a host compiler understands.
#pragma once

#include <cstdint>

// Device-side qualifiers have no meaning on the host: every function is an ordinary C++ function and
// every address space is the host's.
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(pipe)
#endif
#ifndef __tiling_data_ptr__
#define __tiling_data_ptr__
#endif

#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// The kernel-type and core-type switches: the twin runs every kernel as a vector-only (AIV) kernel.
#ifndef KERNEL_TASK_TYPE_DEFAULT
#define KERNEL_TASK_TYPE_DEFAULT(type)
#endif
#ifndef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE(key, type)
#endif
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (true)
#endif
#ifndef ASCEND_IS_AIC
#define ASCEND_IS_AIC (false)
#endif
