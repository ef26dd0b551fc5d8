// Test stand-in for op-plugin's op_plugin/utils/op_api_common.h and the torch / torch_npu pieces it brings in:
// only what the generated adapters use. It is strict on purpose: at::Scalar, at::Tensor and bool do not
// convert into each other, and EXEC_NPU_CMD / DO_COMPATIBILITY only accept aclnn APIs the test declares
// (torch_npu_test/aclnn_apis.h, from opgen's C signatures), so a wrong argument type or order fails to
// compile. Tensors carry a shape and a dtype, so a test program can observe what an adapter allocated.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <complex>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace c10 {

enum class ScalarType { Half, BFloat16, Float, Double };

inline const char* to_string(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half:
      return "Half";
    case ScalarType::BFloat16:
      return "BFloat16";
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
  }
  return "?";
}

// Owns its dims (the real one is a view); converts from the vectors the size helpers return.
class IntArrayRef {
 public:
  IntArrayRef(std::vector<int64_t> dims) : dims_(std::move(dims)) {}  // NOLINT: implicit like the real one
  IntArrayRef(std::initializer_list<int64_t> dims) : dims_(dims) {}  // NOLINT: `{0}` converts, as in c10
  const std::vector<int64_t>& vec() const { return dims_; }

 private:
  std::vector<int64_t> dims_;
};

class Scalar {
 public:
  explicit Scalar(double value) : value_(value) {}
  double to_double() const { return value_; }

 private:
  double value_;
};

// `str` and `Scalar?` arguments of aten schemas.
using string_view = std::string_view;
template <typename T>
using optional = std::optional<T>;
using std::nullopt;

// The other argument kinds an aten op may have (`complex`, `float[]`, `bool[]`, `Tensor[]`, `Generator?`): only
// declared, so that a user's aten op of any kind can be given a kernel signature.
template <typename T>
using complex = std::complex<T>;
template <typename T>
class ArrayRef {
 public:
  ArrayRef(std::initializer_list<T> values) : values_(values) {}  // NOLINT: implicit like the real one
  const std::vector<T>& vec() const { return values_; }

 private:
  std::vector<T> values_;
};
class Generator {};

}  // namespace c10

namespace at {

using c10::ArrayRef;
using c10::Generator;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;

class TensorOptions {
 public:
  explicit TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions dtype(ScalarType dtype) const { return TensorOptions(dtype); }
  ScalarType dtype() const { return dtype_; }

 private:
  ScalarType dtype_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::vector<int64_t> sizes, ScalarType dtype) : sizes_(std::move(sizes)), dtype_(dtype) {}
  IntArrayRef sizes() const { return IntArrayRef(sizes_); }
  ScalarType scalar_type() const { return dtype_; }
  TensorOptions options() const { return TensorOptions(dtype_); }
  void resize_(IntArrayRef sizes) { sizes_ = sizes.vec(); }
  // a view of the same elements in `sizes` (one -1 is inferred), as at::Tensor::reshape
  Tensor reshape(IntArrayRef sizes) const {
    int64_t count = 1;
    for (int64_t d : sizes_) count *= d;
    std::vector<int64_t> shape = sizes.vec();
    int64_t known = 1;
    for (int64_t d : shape) known *= d == -1 ? 1 : d;
    for (int64_t& d : shape) d = d == -1 ? (known == 0 ? 0 : count / known) : d;
    return Tensor(shape, dtype_);
  }
  std::string describe() const {
    std::string text = "[";
    for (size_t i = 0; i < sizes_.size(); ++i) {
      text += (i ? "," : "") + std::to_string(sizes_[i]);
    }
    return text + "]:" + c10::to_string(dtype_);
  }

 private:
  std::vector<int64_t> sizes_;
  ScalarType dtype_ = ScalarType::Float;
};

using TensorList = ArrayRef<Tensor>;

namespace native {

// PyTorch's promotion among the floating dtypes (Half with BFloat16 gives Float). Zero-dim tensors, which
// the real result_type ranks lower, are not modelled.
inline ScalarType promote(ScalarType a, ScalarType b) {
  if (a == b) {
    return a;
  }
  if ((a == ScalarType::Half && b == ScalarType::BFloat16) || (a == ScalarType::BFloat16 && b == ScalarType::Half)) {
    return ScalarType::Float;
  }
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

inline ScalarType result_type(const Tensor& a, const Tensor& b) { return promote(a.scalar_type(), b.scalar_type()); }

inline ScalarType result_type(std::initializer_list<Tensor> tensors) {
  ScalarType dtype = tensors.begin()->scalar_type();
  for (const Tensor& t : tensors) {
    dtype = promote(dtype, t.scalar_type());
  }
  return dtype;
}

}  // namespace native
}  // namespace at

namespace op_infer {

inline std::vector<int64_t> broadcast_ops_npu_output_size(c10::IntArrayRef a, c10::IntArrayRef b) {
  const std::vector<int64_t>& x = a.vec();
  const std::vector<int64_t>& y = b.vec();
  size_t rank = x.size() > y.size() ? x.size() : y.size();
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dx = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    int64_t dy = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (dx != dy && dx != 1 && dy != 1) {
      std::fprintf(stderr, "shapes do not broadcast\n");
      std::abort();
    }
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

inline std::vector<int64_t> broadcast_ops_npu_output_size(const at::Tensor& a, const at::Tensor& b) {
  return broadcast_ops_npu_output_size(a.sizes(), b.sizes());
}

// self's sizes with size(dim) halved (dim wrapped as a negative one counts from the end), as op-plugin's
inline std::vector<int64_t> glu_npu_output_size(const at::Tensor& self, int64_t dim) {
  std::vector<int64_t> shape = self.sizes().vec();
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank) {
    std::fprintf(stderr, "glu_npu_output_size: dim out of range\n");
    std::abort();
  }
  shape[axis] /= 2;
  return shape;
}

}  // namespace op_infer

namespace at_npu {
namespace native {

class OpPreparation {
 public:
  static at::Tensor apply_tensor_without_format(const at::Tensor& src) { return src; }
  static at::Tensor apply_tensor_without_format(c10::IntArrayRef sizes, const at::TensorOptions& options) {
    return at::Tensor(sizes.vec(), options.dtype());
  }
  // Like the real one: the output must have the expected dtype; its shape is fixed up by a resize.
  static void check_tensor(std::initializer_list<at::Tensor> /*src_list*/, at::Tensor& dst, at::ScalarType expect_dtype,
                           c10::IntArrayRef expect_size) {
    if (dst.scalar_type() != expect_dtype) {
      std::fprintf(stderr, "check_tensor: unexpected dtype\n");
      std::abort();
    }
    dst.resize_(expect_size);
  }
};

}  // namespace native
}  // namespace at_npu

// What the stand-in aclnn APIs do: print one line per call, so a test can read the adapter's behaviour.
namespace aclnn_stub {

inline bool available = true;  // false: the CANN in use lacks every aclnn API (DO_COMPATIBILITY falls back)

inline bool is_available(const char* /*api*/) { return available; }

inline std::string describe(const at::Tensor& t) { return t.describe(); }
inline std::string describe(const at::Scalar& s) { return "scalar:" + std::to_string(s.to_double()); }
inline std::string describe(bool b) { return b ? "true" : "false"; }
inline std::string describe(int64_t i) { return "int:" + std::to_string(i); }
inline std::string describe(double d) { return "double:" + std::to_string(d); }
inline std::string describe(const char* text) { return text == nullptr ? "str:null" : std::string("str:") + text; }
inline std::string describe(const c10::optional<at::Scalar>& s) { return s ? describe(*s) : "scalar:null"; }

inline void record(const char* api, const char* names, std::initializer_list<std::string> values) {
  std::printf("EXEC %s | %s |", api, names);
  for (const std::string& value : values) {
    std::printf(" %s", value.c_str());
  }
  std::printf("\n");
}

}  // namespace aclnn_stub

#include "torch_npu_test/aclnn_apis.h"

#define EXEC_NPU_CMD(aclnn_api, ...) ::aclnn_stub::aclnn_api(#__VA_ARGS__, __VA_ARGS__)

#define DO_COMPATIBILITY(aclnn_api, originCallExpression) \
  do {                                                    \
    (void)&::aclnn_stub::aclnn_api;                       \
    if (!::aclnn_stub::is_available(#aclnn_api)) {        \
      return originCallExpression;                        \
    }                                                     \
  } while (false)
