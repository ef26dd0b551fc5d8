#include "element_access.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "opdev/bfloat16.h"
#include "opdev/fp16_t.h"

namespace opgen_twin {
namespace acl {

double WideValue::AsDouble() const {
  switch (kind) {
    case kBool:
    case kSigned:
      return static_cast<double>(i);
    case kUnsigned:
      return static_cast<double>(u);
    default:
      return re;
  }
}

int64_t WideValue::AsInt64() const {
  switch (kind) {
    case kBool:
    case kSigned:
      return i;
    case kUnsigned:
      return static_cast<int64_t>(u);
    default: {
      double t = std::trunc(re);
      if (std::isnan(t)) return 0;
      if (t >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
      if (t <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(t);
    }
  }
}

bool WideValue::AsBool() const {
  switch (kind) {
    case kBool:
    case kSigned:
      return i != 0;
    case kUnsigned:
      return u != 0;
    default:
      return re != 0.0 || im != 0.0;
  }
}

bool IsSupportedElementType(op::DataType dtype) {
  switch (dtype) {
    case ge::DT_BOOL:
    case ge::DT_INT8:
    case ge::DT_UINT8:
    case ge::DT_INT16:
    case ge::DT_UINT16:
    case ge::DT_INT32:
    case ge::DT_UINT32:
    case ge::DT_INT64:
    case ge::DT_UINT64:
    case ge::DT_FLOAT16:
    case ge::DT_BF16:
    case ge::DT_FLOAT:
    case ge::DT_DOUBLE:
    case ge::DT_COMPLEX64:
    case ge::DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

namespace {
template <typename T>
T Load(const void* address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}
template <typename T>
void Store(void* address, T value) {
  std::memcpy(address, &value, sizeof(T));
}
WideValue Signed(int64_t v) {
  WideValue w;
  w.kind = WideValue::kSigned;
  w.i = v;
  return w;
}
WideValue Unsigned(uint64_t v) {
  WideValue w;
  w.kind = WideValue::kUnsigned;
  w.u = v;
  return w;
}
WideValue Real(double v) {
  WideValue w;
  w.kind = WideValue::kReal;
  w.re = v;
  return w;
}
WideValue Complex(double re, double im) {
  WideValue w;
  w.kind = WideValue::kComplex;
  w.re = re;
  w.im = im;
  return w;
}
}  // namespace

WideValue ReadElement(const void* address, op::DataType dtype) {
  switch (dtype) {
    case ge::DT_BOOL: {
      WideValue w;
      w.kind = WideValue::kBool;
      w.i = Load<uint8_t>(address) != 0 ? 1 : 0;
      return w;
    }
    case ge::DT_INT8:
      return Signed(Load<int8_t>(address));
    case ge::DT_UINT8:
      return Unsigned(Load<uint8_t>(address));
    case ge::DT_INT16:
      return Signed(Load<int16_t>(address));
    case ge::DT_UINT16:
      return Unsigned(Load<uint16_t>(address));
    case ge::DT_INT32:
      return Signed(Load<int32_t>(address));
    case ge::DT_UINT32:
      return Unsigned(Load<uint32_t>(address));
    case ge::DT_INT64:
      return Signed(Load<int64_t>(address));
    case ge::DT_UINT64:
      return Unsigned(Load<uint64_t>(address));
    case ge::DT_FLOAT16:
      return Real(op::numeric::HalfBitsToDouble(Load<uint16_t>(address)));
    case ge::DT_BF16:
      return Real(op::numeric::BFloat16BitsToDouble(Load<uint16_t>(address)));
    case ge::DT_FLOAT:
      return Real(Load<float>(address));
    case ge::DT_DOUBLE:
      return Real(Load<double>(address));
    case ge::DT_COMPLEX64: {
      auto c = Load<std::complex<float>>(address);
      return Complex(c.real(), c.imag());
    }
    case ge::DT_COMPLEX128: {
      auto c = Load<std::complex<double>>(address);
      return Complex(c.real(), c.imag());
    }
    default:
      return Real(0.0);
  }
}

void WriteElement(void* address, op::DataType dtype, const WideValue& value) {
  const bool isFloat = value.kind == WideValue::kReal || value.kind == WideValue::kComplex;
  // Integers from floats truncate toward zero; integers from integers wrap to the width.
  auto integer = [&]() -> uint64_t {
    return isFloat ? static_cast<uint64_t>(value.AsInt64())
                   : (value.kind == WideValue::kUnsigned ? value.u : static_cast<uint64_t>(value.i));
  };
  switch (dtype) {
    case ge::DT_BOOL:
      Store<uint8_t>(address, value.AsBool() ? 1 : 0);
      break;
    case ge::DT_INT8:
      Store<int8_t>(address, static_cast<int8_t>(integer()));
      break;
    case ge::DT_UINT8:
      Store<uint8_t>(address, static_cast<uint8_t>(integer()));
      break;
    case ge::DT_INT16:
      Store<int16_t>(address, static_cast<int16_t>(integer()));
      break;
    case ge::DT_UINT16:
      Store<uint16_t>(address, static_cast<uint16_t>(integer()));
      break;
    case ge::DT_INT32:
      Store<int32_t>(address, static_cast<int32_t>(integer()));
      break;
    case ge::DT_UINT32:
      Store<uint32_t>(address, static_cast<uint32_t>(integer()));
      break;
    case ge::DT_INT64:
      Store<int64_t>(address, static_cast<int64_t>(integer()));
      break;
    case ge::DT_UINT64:
      Store<uint64_t>(address, integer());
      break;
    case ge::DT_FLOAT16:
      Store<uint16_t>(address, op::numeric::DoubleToHalfBits(value.AsDouble()));
      break;
    case ge::DT_BF16:
      Store<uint16_t>(address, op::numeric::DoubleToBFloat16Bits(value.AsDouble()));
      break;
    case ge::DT_FLOAT:
      // int64 -> float rounds once (as PyTorch); double -> float is RNE.
      Store<float>(address, value.kind == WideValue::kSigned || value.kind == WideValue::kBool
                                ? static_cast<float>(value.i)
                                : (value.kind == WideValue::kUnsigned ? static_cast<float>(value.u)
                                                                      : static_cast<float>(value.re)));
      break;
    case ge::DT_DOUBLE:
      Store<double>(address, value.AsDouble());
      break;
    case ge::DT_COMPLEX64:
      Store<std::complex<float>>(address, std::complex<float>(static_cast<float>(value.AsDouble()),
                                                              static_cast<float>(isFloat ? value.im : 0.0)));
      break;
    case ge::DT_COMPLEX128:
      Store<std::complex<double>>(address, std::complex<double>(value.AsDouble(), isFloat ? value.im : 0.0));
      break;
    default:
      break;
  }
}

void ForEachViewElement(const op::Shape& shape, const op::Strides& strides, int64_t offset,
                        const std::function<void(int64_t, int64_t)>& visit) {
  const size_t rank = shape.GetDimNum();
  int64_t count = shape.GetShapeSize();
  if (count <= 0) return;
  std::vector<int64_t> index(rank, 0);
  int64_t storage = offset;
  for (int64_t element = 0; element < count; ++element) {
    visit(element, storage);
    // Odometer increment from the last dim, keeping the storage offset in step.
    for (size_t d = rank; d-- > 0;) {
      int64_t stride = d < strides.size() ? strides[d] : 0;
      if (++index[d] < shape.GetDim(d)) {
        storage += stride;
        break;
      }
      storage -= stride * (shape.GetDim(d) - 1);
      index[d] = 0;
    }
  }
}

}  // namespace acl
}  // namespace opgen_twin
