// gert::TypedContinuousVector: the list-attribute view returned by RuntimeAttrs::GetListInt & co.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H_

#include <cstddef>
#include <vector>

namespace gert {

template <typename T>
class TypedContinuousVector {
 public:
  TypedContinuousVector() = default;
  explicit TypedContinuousVector(std::vector<T> values) : values_(std::move(values)) {}
  size_t GetSize() const { return values_.size(); }
  size_t GetCapacity() const { return values_.size(); }
  const T* GetData() const { return values_.data(); }

 private:
  std::vector<T> values_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H_
