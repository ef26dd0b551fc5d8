// aclTensor / aclScalar / array objects and their C constructors (aclCreateTensor & co).
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "aclnn/acl_meta.h"
#include "element_access.h"
#include "log/twin_log.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/shape_utils.h"

namespace opgen_twin {
namespace acl {
namespace {

// Objects handed out by the C constructors; aclDestroy* refuses anything else, which catches
// double destroys and destroys of executor-owned objects.
struct UserObjects {
  std::mutex mutex;
  std::set<const op::Object*> live;
};
UserObjects& Registry() {
  static UserObjects* registry = new UserObjects();
  return *registry;
}
template <typename T>
T* Track(T* object) {
  std::lock_guard<std::mutex> lock(Registry().mutex);
  Registry().live.insert(object);
  return object;
}
template <typename T>
aclnnStatus Destroy(const T* object, const char* function) {
  if (object == nullptr) return ACLNN_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(Registry().mutex);
    if (Registry().live.erase(object) == 0) {
      log::Emit(log::kError, "acl_meta.cpp", 0, function, "errno[161002]",
                "object was not created by aclCreate* or is already destroyed.");
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  delete object;
  return ACLNN_SUCCESS;
}
void LogError(const char* function, const std::string& message) {
  log::Emit(log::kError, "acl_meta.cpp", 0, function, "errno[161002]", message);
}
std::string Join(const int64_t* values, uint64_t count) {
  std::string text = "[";
  for (uint64_t i = 0; i < count; ++i) text += (i == 0 ? "" : ",") + std::to_string(values[i]);
  return text + "]";
}

}  // namespace
}  // namespace acl
}  // namespace opgen_twin

using opgen_twin::acl::ReadElement;
using opgen_twin::acl::WideValue;
using opgen_twin::acl::WriteElement;

// ---------------------------------------------------------------------------------------- aclTensor

aclTensor::aclTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                     int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                     void* tensorDataAddr)
    : storageAddr_(tensorDataAddr), viewOffset_(offset), dataType_(op::ToOpDataType(dataType)) {
  op::ToShape(viewDims, viewDimsNum, viewShape_);
  op::ToShape(storageDims, storageDimsNum, storageShape_);
  originShape_ = viewShape_;
  if (stride != nullptr) {
    viewStrides_.assign(stride, stride + viewDimsNum);
  } else {
    op::ToContiguousStrides(viewShape_, viewStrides_);
  }
  storageFormat_ = originFormat_ = viewFormat_ = op::ToOpFormat(format);
}

aclTensor::aclTensor(const op::Shape& shape, op::DataType dataType, op::Format format, void* tensorDataAddr)
    : storageAddr_(tensorDataAddr),
      storageShape_(shape),
      originShape_(shape),
      viewShape_(shape),
      dataType_(dataType),
      storageFormat_(format),
      originFormat_(format),
      viewFormat_(format) {
  op::ToContiguousStrides(shape, viewStrides_);
}

aclTensor::aclTensor(const void* values, uint64_t count, op::DataType dataType)
    : aclTensor(op::Shape{static_cast<int64_t>(count)}, dataType, ge::FORMAT_ND, nullptr) {
  hostData_.assign(count * op::TypeSize(dataType) + 1, 0);
  if (values != nullptr) std::memcpy(hostData_.data(), values, count * op::TypeSize(dataType));
  storageAddr_ = hostData_.data();
  placement_ = gert::kOnHost;
}

aclTensor::aclTensor(const aclTensor& base, const op::Shape& viewShape, const op::Strides& viewStrides, int64_t offset)
    : storageAddr_(base.storageAddr_),
      storageOwner_(base.storageOwner_ != nullptr ? base.storageOwner_ : &base),
      storageShape_(base.storageShape_),
      originShape_(viewShape),
      viewShape_(viewShape),
      viewStrides_(viewStrides),
      viewOffset_(offset),
      dataType_(base.dataType_),
      storageFormat_(base.storageFormat_),
      originFormat_(base.originFormat_),
      viewFormat_(base.viewFormat_),
      placement_(base.placement_) {}

aclTensor::~aclTensor() = default;

void aclTensor::SetViewShape(const op::Shape& shape) {
  viewShape_ = shape;
  op::ToContiguousStrides(shape, viewStrides_);
}

void* aclTensor::GetViewAddr() const {
  void* storage = GetStorageAddr();
  if (storage == nullptr) return nullptr;
  return static_cast<uint8_t*>(storage) + viewOffset_ * static_cast<int64_t>(op::TypeSize(dataType_));
}

op::Tensor* aclTensor::GetTensor() const {
  gertView_ = op::Tensor(op::StorageShape(viewShape_, storageShape_),
                         op::StorageFormat(originFormat_, storageFormat_), dataType_, GetViewAddr(), placement_);
  return &gertView_;
}

int64_t aclTensor::ViewSpanElements() const {
  const int64_t numel = Numel();
  if (numel == 0) return 0;
  if (numel < 0) return -1;
  int64_t span = 1;
  for (size_t i = 0; i < viewShape_.GetDimNum(); ++i) {
    int64_t stride = i < viewStrides_.size() ? viewStrides_[i] : 0;
    int64_t reach = 0;
    if (stride < 0 || __builtin_mul_overflow(viewShape_.GetDim(i) - 1, stride, &reach) ||
        __builtin_add_overflow(span, reach, &span)) {
      return -1;
    }
  }
  return span;
}

ge::AscendString aclTensor::ToString() const {
  std::string text = std::string("Tensor(shape=") + op::ToString(viewShape_).GetString() +
                     ", strides=" + op::ToString(viewStrides_).GetString() +
                     ", offset=" + std::to_string(viewOffset_) + ", dtype=" + op::ToString(dataType_).GetString() +
                     ", format=" + op::ToString(viewFormat_).GetString() + ")";
  return ge::AscendString(text);
}

namespace op {
namespace internal {
void StoreDoubles(aclTensor* tensor, const double* values, uint64_t count) {
  size_t size = TypeSize(tensor->GetDataType());
  auto* base = static_cast<uint8_t*>(tensor->GetStorageAddr());
  if (base == nullptr) return;
  for (uint64_t i = 0; i < count; ++i) {
    WideValue value;
    value.kind = WideValue::kReal;
    value.re = values[i];
    WriteElement(base + i * size, tensor->GetDataType(), value);
  }
}
}  // namespace internal
}  // namespace op

// ------------------------------------------------------------------------------ arrays and lists

template <typename T>
ge::AscendString aclArray<T>::ToString() const {
  std::string text = "[";
  for (uint64_t i = 0; i < Size(); ++i) {
    text += (i == 0 ? "" : ",") + std::to_string(static_cast<double>(static_cast<float>(values_[i])));
  }
  return ge::AscendString(text + "]");
}
template <>
ge::AscendString aclArray<int64_t>::ToString() const {
  return ge::AscendString(opgen_twin::acl::Join(values_.data(), values_.size()));
}
ge::AscendString aclArray<bool>::ToString() const {
  std::string text = "[";
  for (uint64_t i = 0; i < Size(); ++i) text += std::string(i == 0 ? "" : ",") + (values_[i] ? "true" : "false");
  return ge::AscendString(text + "]");
}
template class aclArray<float>;
template class aclArray<op::fp16_t>;
template class aclArray<op::bfloat16>;

aclTensorList::aclTensorList(const aclTensor* const* tensors, uint64_t size) {
  for (uint64_t i = 0; i < size; ++i) tensors_.push_back(const_cast<aclTensor*>(tensors[i]));
}
ge::AscendString aclTensorList::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < tensors_.size(); ++i) {
    text += i == 0 ? "" : ", ";
    text += tensors_[i] == nullptr ? "nullptr" : tensors_[i]->ToString().GetString();
  }
  return ge::AscendString(text + "]");
}

aclScalarList::aclScalarList(const aclScalar* const* scalars, uint64_t size) {
  for (uint64_t i = 0; i < size; ++i) scalars_.push_back(const_cast<aclScalar*>(scalars[i]));
}
ge::AscendString aclScalarList::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < scalars_.size(); ++i) {
    text += i == 0 ? "" : ", ";
    text += scalars_[i] == nullptr ? "nullptr" : scalars_[i]->ToString().GetString();
  }
  return ge::AscendString(text + "]");
}

// ---------------------------------------------------------------------------------------- aclScalar

aclScalar::aclScalar(const void* data, op::DataType dataType) : dataType_(dataType) {
  size_t size = op::TypeSize(dataType);
  if (data != nullptr && size > 0 && size <= sizeof(v_.bytes)) std::memcpy(v_.bytes, data, size);
}
aclScalar::aclScalar(double value) : aclScalar(&value, ge::DT_DOUBLE) {}
aclScalar::aclScalar(float value) : aclScalar(&value, ge::DT_FLOAT) {}
aclScalar::aclScalar(int64_t value) : aclScalar(&value, ge::DT_INT64) {}
aclScalar::aclScalar(int32_t value) : aclScalar(&value, ge::DT_INT32) {}
aclScalar::aclScalar(bool value) : dataType_(ge::DT_BOOL) { v_.bytes[0] = value ? 1 : 0; }

uint64_t aclScalar::Size() const { return op::TypeSize(dataType_); }

namespace {
template <typename T>
T ConvertScalar(const void* data, op::DataType from, op::DataType to) {
  T result{};
  WriteElement(&result, to, ReadElement(data, from));
  return result;
}
}  // namespace

float aclScalar::ToFloat() const { return ConvertScalar<float>(&v_, dataType_, ge::DT_FLOAT); }
double aclScalar::ToDouble() const { return ConvertScalar<double>(&v_, dataType_, ge::DT_DOUBLE); }
bool aclScalar::ToBool() const { return ConvertScalar<uint8_t>(&v_, dataType_, ge::DT_BOOL) != 0; }
int8_t aclScalar::ToInt8() const { return ConvertScalar<int8_t>(&v_, dataType_, ge::DT_INT8); }
int16_t aclScalar::ToInt16() const { return ConvertScalar<int16_t>(&v_, dataType_, ge::DT_INT16); }
int32_t aclScalar::ToInt32() const { return ConvertScalar<int32_t>(&v_, dataType_, ge::DT_INT32); }
int64_t aclScalar::ToInt64() const { return ConvertScalar<int64_t>(&v_, dataType_, ge::DT_INT64); }
uint8_t aclScalar::ToUint8() const { return ConvertScalar<uint8_t>(&v_, dataType_, ge::DT_UINT8); }
uint16_t aclScalar::ToUint16() const { return ConvertScalar<uint16_t>(&v_, dataType_, ge::DT_UINT16); }
uint32_t aclScalar::ToUint32() const { return ConvertScalar<uint32_t>(&v_, dataType_, ge::DT_UINT32); }
uint64_t aclScalar::ToUint64() const { return ConvertScalar<uint64_t>(&v_, dataType_, ge::DT_UINT64); }
op::fp16_t aclScalar::ToFp16() const {
  return op::fp16_t::FromBits(ConvertScalar<uint16_t>(&v_, dataType_, ge::DT_FLOAT16));
}
op::bfloat16 aclScalar::ToBf16() const {
  return op::bfloat16(ConvertScalar<uint16_t>(&v_, dataType_, ge::DT_BF16), op::bfloat16::from_bits());
}
std::complex<float> aclScalar::ToComplex64() const {
  return ConvertScalar<std::complex<float>>(&v_, dataType_, ge::DT_COMPLEX64);
}
std::complex<double> aclScalar::ToComplex128() const {
  return ConvertScalar<std::complex<double>>(&v_, dataType_, ge::DT_COMPLEX128);
}
ge::AscendString aclScalar::ToString() const {
  WideValue value = ReadElement(&v_, dataType_);
  std::string text;
  if (value.kind == WideValue::kComplex) {
    text = "(" + std::to_string(value.re) + "+" + std::to_string(value.im) + "j)";
  } else if (value.kind == WideValue::kReal) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.9g", value.re);
    text = buffer;
  } else {
    text = value.kind == WideValue::kUnsigned ? std::to_string(value.u) : std::to_string(value.i);
  }
  return ge::AscendString("Scalar(" + text + ", " + op::ToString(dataType_).GetString() + ")");
}

// ------------------------------------------------------------------------------------- ToString

ge::AscendString ToString(const aclTensor* t) { return t == nullptr ? ge::AscendString("nullptr") : t->ToString(); }
ge::AscendString ToString(const aclTensorList* t) {
  return t == nullptr ? ge::AscendString("nullptr") : t->ToString();
}
ge::AscendString ToString(const aclIntArray* t) { return t == nullptr ? ge::AscendString("nullptr") : t->ToString(); }
ge::AscendString ToString(const aclBoolArray* t) { return t == nullptr ? ge::AscendString("nullptr") : t->ToString(); }
ge::AscendString ToString(const aclFloatArray* t) {
  return t == nullptr ? ge::AscendString("nullptr") : t->ToString();
}
ge::AscendString ToString(const aclScalar* t) { return t == nullptr ? ge::AscendString("nullptr") : t->ToString(); }
ge::AscendString ToString(const aclScalarList* t) {
  return t == nullptr ? ge::AscendString("nullptr") : t->ToString();
}
ge::AscendString ToString(aclDataType dataType) { return op::ToString(op::ToOpDataType(dataType)); }

// ----------------------------------------------------------------------------------------- C API

using opgen_twin::acl::LogError;
using opgen_twin::acl::Track;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
  if ((viewDims == nullptr && viewDimsNum > 0) || (storageDims == nullptr && storageDimsNum > 0) ||
      viewDimsNum > op::MAX_DIM_NUM || storageDimsNum > op::MAX_DIM_NUM) {
    LogError(__func__, "viewDims/storageDims missing or rank above 25.");
    return nullptr;
  }
  // CANN's constructor only describes the tensor: any aclDataType (ACL_DT_UNDEFINED, ACL_STRING, ...),
  // negative (unknown) view dims and a storage larger than the memory behind tensorData are created, and
  // it is the op's dtype and shape checks that refuse them (ACLNN_ERR_PARAM_INVALID); memory the
  // storage does not have is a fault where a kernel or copy touches it. Values that are no aclDataType
  // at all are refused.
  if (dataType != ACL_DT_UNDEFINED && op::ToAclDataType(op::ToOpDataType(dataType)) != dataType) {
    LogError(__func__, "unsupported dtype " + std::to_string(static_cast<int>(dataType)) + ".");
    return nullptr;
  }
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (stride != nullptr && stride[i] < 0) {
      LogError(__func__, "negative view stride: strides " + opgen_twin::acl::Join(stride, viewDimsNum) + ".");
      return nullptr;
    }
  }
  if (offset < 0) {
    LogError(__func__, "negative view offset " + std::to_string(offset) + ".");
    return nullptr;
  }
  auto* tensor =
      new aclTensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorData);
  // A view that provably leaves its own storage shape is inconsistent whatever memory lies behind it
  // (unknown dims or element counts beyond int64_t prove nothing and are left to the op).
  int64_t storageElements = tensor->GetStorageShape().GetShapeSize();
  int64_t span = tensor->ViewSpanElements();
  int64_t end = 0;
  if (storageElements >= 0 && span > 0 &&
      (__builtin_add_overflow(offset, span, &end) || end > storageElements)) {
    LogError(__func__, "view " + std::string(tensor->ToString().GetString()) + " needs " +
                           std::to_string(offset) + " + " + std::to_string(span) + " storage elements, storage has " +
                           std::to_string(storageElements) + ".");
    delete tensor;
    return nullptr;
  }
  return Track(tensor);
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (value == nullptr || op::TypeSize(op::ToOpDataType(dataType)) == 0) {
    LogError(__func__, "null value or unsupported dtype.");
    return nullptr;
  }
  return Track(new aclScalar(value, op::ToOpDataType(dataType)));
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (value == nullptr && size > 0) return nullptr;
  return Track(new aclIntArray(value, size));
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  if (value == nullptr && size > 0) return nullptr;
  return Track(new aclFloatArray(value, size));
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  if (value == nullptr && size > 0) return nullptr;
  return Track(new aclBoolArray(value, size));
}
aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  if (value == nullptr && size > 0) return nullptr;
  return Track(new aclTensorList(value, size));
}
aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  if (value == nullptr && size > 0) return nullptr;
  return Track(new aclScalarList(value, size));
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) { return opgen_twin::acl::Destroy(tensor, __func__); }
aclnnStatus aclDestroyScalar(const aclScalar* scalar) { return opgen_twin::acl::Destroy(scalar, __func__); }
aclnnStatus aclDestroyIntArray(const aclIntArray* array) { return opgen_twin::acl::Destroy(array, __func__); }
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) { return opgen_twin::acl::Destroy(array, __func__); }
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) { return opgen_twin::acl::Destroy(array, __func__); }
// Lists own their elements on CANN: destroying the list destroys them.
aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  if (array == nullptr) return ACLNN_SUCCESS;
  for (uint64_t i = 0; i < array->Size(); ++i) opgen_twin::acl::Destroy((*array)[i], __func__);
  return opgen_twin::acl::Destroy(array, __func__);
}
aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  if (array == nullptr) return ACLNN_SUCCESS;
  for (uint64_t i = 0; i < array->Size(); ++i) opgen_twin::acl::Destroy((*array)[i], __func__);
  return opgen_twin::acl::Destroy(array, __func__);
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (tensor == nullptr || viewDims == nullptr || viewDimsNum == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  const op::Shape& shape = tensor->GetViewShape();
  *viewDimsNum = shape.GetDimNum();
  *viewDims = new int64_t[shape.GetDimNum() + 1];
  for (size_t i = 0; i < shape.GetDimNum(); ++i) (*viewDims)[i] = shape.GetDim(i);
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  if (tensor == nullptr || storageDims == nullptr || storageDimsNum == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  const op::Shape& shape = tensor->GetStorageShape();
  *storageDimsNum = shape.GetDimNum();
  *storageDims = new int64_t[shape.GetDimNum() + 1];
  for (size_t i = 0; i < shape.GetDimNum(); ++i) (*storageDims)[i] = shape.GetDim(i);
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  if (tensor == nullptr || stridesValue == nullptr || stridesNum == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  const op::Strides& strides = tensor->GetViewStrides();
  *stridesNum = strides.size();
  *stridesValue = new int64_t[strides.size() + 1];
  for (size_t i = 0; i < strides.size(); ++i) (*stridesValue)[i] = strides[i];
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr || offset == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->GetViewOffset();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr || format == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *format = op::ToAclFormat(tensor->GetViewFormat());
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr || dataType == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *dataType = op::ToAclDataType(tensor->GetDataType());
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->Size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->Size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->Size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  if (tensorList == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = tensorList->Size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  if (scalarList == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = scalarList->Size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  tensor->SetStorageAddr(addr);
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  if (tensor == nullptr || addr == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *addr = tensor->GetStorageAddr();
  return ACLNN_SUCCESS;
}

}  // extern "C"
