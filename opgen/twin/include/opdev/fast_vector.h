// op::FVector: CANN's small-buffer vector; the twin uses std::vector underneath.
#ifndef OPGEN_TWIN_OPDEV_FAST_VECTOR_H_
#define OPGEN_TWIN_OPDEV_FAST_VECTOR_H_

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace op {
template <typename T, size_t N = 8>
class FVector : public std::vector<T> {
 public:
  using std::vector<T>::vector;
  FVector() = default;
  FVector(std::initializer_list<T> values) : std::vector<T>(values) {}
};
}  // namespace op

#endif  // OPGEN_TWIN_OPDEV_FAST_VECTOR_H_
