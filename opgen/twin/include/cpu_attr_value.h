// aicpu::AttrValue: one named attribute of an AICPU kernel.
#ifndef OPGEN_TWIN_CPU_ATTR_VALUE_H_
#define OPGEN_TWIN_CPU_ATTR_VALUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_tensor.h"
#include "cpu_tensor_shape.h"

namespace aicpu {

class AICPU_VISIBILITY AttrValue {
 public:
  AttrValue() = default;
  std::string GetString() const { return string_; }
  void SetString(const std::string& value) { string_ = value; }
  int64_t GetInt() const { return int_; }
  void SetInt(int64_t value) { int_ = value; }
  float GetFloat() const { return float_; }
  void SetFloat(float value) { float_ = value; }
  bool GetBool() const { return bool_; }
  void SetBool(bool value) { bool_ = value; }
  DataType GetDataType() const { return dataType_; }
  void SetDataType(DataType value) { dataType_ = value; }
  std::vector<int64_t> GetListInt() const { return listInt_; }
  void SetListInt(const std::vector<int64_t>& value) { listInt_ = value; }
  int32_t ListIntSize() const { return static_cast<int32_t>(listInt_.size()); }
  std::vector<float> GetListFloat() const { return listFloat_; }
  void SetListFloat(const std::vector<float>& value) { listFloat_ = value; }
  int32_t ListFloatSize() const { return static_cast<int32_t>(listFloat_.size()); }
  std::vector<bool> GetListBool() const { return listBool_; }
  void SetListBool(const std::vector<bool>& value) { listBool_ = value; }
  int32_t ListBoolSize() const { return static_cast<int32_t>(listBool_.size()); }
  std::vector<std::string> GetListString() const { return listString_; }
  void SetListString(const std::vector<std::string>& value) { listString_ = value; }

 private:
  std::string string_;
  int64_t int_ = 0;
  float float_ = 0.0f;
  bool bool_ = false;
  DataType dataType_ = DT_UNDEFINED;
  std::vector<int64_t> listInt_;
  std::vector<float> listFloat_;
  std::vector<bool> listBool_;
  std::vector<std::string> listString_;
};

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_ATTR_VALUE_H_
