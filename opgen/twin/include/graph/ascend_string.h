// ge::AscendString: the small owning string CANN passes across its ABI (GetString()).
#ifndef OPGEN_TWIN_GRAPH_ASCEND_STRING_H_
#define OPGEN_TWIN_GRAPH_ASCEND_STRING_H_

#include <string>

namespace ge {
class AscendString {
 public:
  AscendString() = default;
  AscendString(const char* name) : value_(name == nullptr ? "" : name) {}  // NOLINT: implicit like CANN
  explicit AscendString(const std::string& name) : value_(name) {}
  const char* GetString() const { return value_.c_str(); }
  size_t GetLength() const { return value_.size(); }
  bool operator<(const AscendString& other) const { return value_ < other.value_; }
  bool operator==(const AscendString& other) const { return value_ == other.value_; }
  bool operator!=(const AscendString& other) const { return value_ != other.value_; }

 private:
  std::string value_;
};
}  // namespace ge

#endif  // OPGEN_TWIN_GRAPH_ASCEND_STRING_H_
