// gert::RuntimeAttrs: an operator's attributes by index (OpDef order), typed as the OpDef
// declares them: Float -> float, Int -> int64_t, Bool -> bool, String -> char[], ListInt ->
// TypedContinuousVector<int64_t>, ListFloat -> TypedContinuousVector<float>.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"

namespace gert {

class RuntimeAttrs {
 public:
  template <typename T>
  const T* GetAttrPointer(size_t index) const {
    return static_cast<const T*>(GetPointerByIndex(index));
  }
  const int64_t* GetInt(size_t index) const { return GetAttrPointer<int64_t>(index); }
  const float* GetFloat(size_t index) const { return GetAttrPointer<float>(index); }
  const bool* GetBool(size_t index) const { return GetAttrPointer<bool>(index); }
  const char* GetStr(size_t index) const { return GetAttrPointer<char>(index); }
  const TypedContinuousVector<int64_t>* GetListInt(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
  }
  const TypedContinuousVector<float>* GetListFloat(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<float>>(index);
  }
  size_t GetAttrNum() const { return slots_.size(); }

  // Twin-side builders, used by the launcher when it assembles a context.
  void AppendInt(int64_t value) { Append(std::make_shared<int64_t>(value)); }
  void AppendFloat(float value) { Append(std::make_shared<float>(value)); }
  void AppendBool(bool value) { Append(std::make_shared<bool>(value)); }
  void AppendStr(const std::string& value) {
    auto text = std::make_shared<std::vector<char>>(value.begin(), value.end());
    text->push_back('\0');
    slots_.push_back(text);
    pointers_.push_back(text->data());
  }
  void AppendListInt(std::vector<int64_t> values) {
    Append(std::make_shared<TypedContinuousVector<int64_t>>(std::move(values)));
  }
  void AppendListFloat(std::vector<float> values) {
    Append(std::make_shared<TypedContinuousVector<float>>(std::move(values)));
  }

 private:
  template <typename T>
  void Append(std::shared_ptr<T> slot) {
    pointers_.push_back(slot.get());
    slots_.push_back(std::move(slot));
  }
  const void* GetPointerByIndex(size_t index) const { return index < pointers_.size() ? pointers_[index] : nullptr; }

  std::vector<std::shared_ptr<void>> slots_;
  std::vector<const void*> pointers_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H_
