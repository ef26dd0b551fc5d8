// Test stand-in for op-plugin's OpApiInterface.h: the op_api kernels, declared from PyTorch's own schemas
// (torch_npu_test/op_api_declarations.h, written by the test) so -Wmissing-declarations catches an adapter
// whose signature differs from aten's.
#pragma once

#include "op_plugin/utils/op_api_common.h"
#include "torch_npu_test/op_api_declarations.h"
