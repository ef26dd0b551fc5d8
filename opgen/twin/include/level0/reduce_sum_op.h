// l0op::ReduceSumOp of the aclnn layer (ops-math level0/reduce_sum_op.h): sums a tensor over some axes.
#ifndef OPGEN_TWIN_LEVEL0_REDUCE_SUM_OP_H_
#define OPGEN_TWIN_LEVEL0_REDUCE_SUM_OP_H_

#include "opdev/make_op_executor.h"
#include "opdev/op_executor.h"

namespace l0op {
// A tensor of x's dtype holding the sum of x over `axes` (negative axes count from the last); a reduced axis
// stays as a dim of 1 with keep_dims, else it is dropped. No axes: x itself (ReduceSum's noop_with_empty_axes).
// nullptr for an axis out of range or given twice.
const aclTensor *ReduceSumOp(const aclTensor *x, const aclIntArray *axes, bool keep_dims, aclOpExecutor *executor);
}  // namespace l0op

#endif  // OPGEN_TWIN_LEVEL0_REDUCE_SUM_OP_H_
