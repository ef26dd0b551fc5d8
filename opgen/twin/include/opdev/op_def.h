// L0 op definition support: pulls in everything an l0op source uses (OP_TYPE_REGISTER,
// INFER_SHAPE, ADD_TO_LAUNCHER_LIST_AICORE, executor allocation).
#ifndef OPGEN_TWIN_OPDEV_OP_DEF_H_
#define OPGEN_TWIN_OPDEV_OP_DEF_H_

#include "opdev/make_op_executor.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"

#endif  // OPGEN_TWIN_OPDEV_OP_DEF_H_
