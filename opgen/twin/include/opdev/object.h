// op::Object: common polymorphic base of the aclnn meta objects.
#ifndef OPGEN_TWIN_OPDEV_OBJECT_H_
#define OPGEN_TWIN_OPDEV_OBJECT_H_

namespace op {
class Object {
 public:
  Object() = default;
  virtual ~Object() = default;
};
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_OBJECT_H_
