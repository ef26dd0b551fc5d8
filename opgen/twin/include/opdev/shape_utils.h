// Shape helpers: printing, conversion and broadcast inference (NumPy/PyTorch rules).
#ifndef OPGEN_TWIN_OPDEV_SHAPE_UTILS_H_
#define OPGEN_TWIN_OPDEV_SHAPE_UTILS_H_

#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"

namespace op {
ge::AscendString ToString(const op::Shape& shape);
ge::AscendString ToString(const op::Strides& strides);
void ToShape(const int64_t* dims, uint64_t dimNum, op::Shape& shape);
void ToShape(const op::ShapeVector& shapeVector, op::Shape& shape);
ShapeVector ToShapeVector(const op::Shape& shape);
// True if the two shapes broadcast against each other (trailing dims equal or 1).
bool CheckBroadcastShape(const op::Shape& self, const op::Shape& other);
// Broadcast result of self and other; false (broadcastShape untouched) if they do not broadcast.
bool BroadcastInferShape(const op::Shape& self, const op::Shape& other, op::Shape& broadcastShape);
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_SHAPE_UTILS_H_
