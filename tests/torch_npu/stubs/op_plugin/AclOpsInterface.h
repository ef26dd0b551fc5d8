// Test stand-in for op-plugin's AclOpsInterface.h: the aclop kernels DO_COMPATIBILITY falls back to,
// declared from PyTorch's own schemas (torch_npu_test/acl_op_declarations.h, written by the test).
#pragma once

#include "op_plugin/utils/op_api_common.h"
#include "torch_npu_test/acl_op_declarations.h"
