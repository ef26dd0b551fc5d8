// aclOpExecutor, UniqueExecutor and phase 2 (CommonOpExecutorRun); DFX context hooks.
#include "opdev/op_executor.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "../acl/device_memory.h"
#include "../aclnn/element_access.h"
#include "log/twin_log.h"
#include "opgen_twin/kernel_registry.h"
#include "opdev/op_dfx.h"
#include "opdev/shape_utils.h"

namespace opgen_twin {
namespace acl {
namespace {

constexpr uint64_t kWorkspaceAlignment = 512;

uint64_t AlignUp(uint64_t bytes) {
  constexpr uint64_t kMax = UINT64_MAX / kWorkspaceAlignment * kWorkspaceAlignment;
  return bytes > kMax ? kMax : (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

// Bytes of an intermediate's storage, saturated (a shape may describe more than memory holds).
uint64_t StorageBytes(const aclTensor* tensor) {
  const int64_t elements = std::max<int64_t>(tensor->GetStorageShape().GetShapeSize(), 0);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(elements), op::TypeSize(tensor->GetDataType()), &bytes)) {
    return UINT64_MAX;
  }
  return bytes;
}

struct LiveExecutors {
  std::mutex mutex;
  std::set<const aclOpExecutor*> executors;
};
LiveExecutors& Live() {
  static LiveExecutors* live = new LiveExecutors();
  return *live;
}

void LogError(int code, const char* function, const std::string& message) {
  ::opgen_twin::log::LogWithCode(::opgen_twin::log::kError, "op_executor.cpp", 0, function, code, "%s",
                                 message.c_str());
}

// Intermediate tensors get their device buffer in phase 2, once every shape is final.
struct PendingStorage {
  aclTensor* tensor;
  void* buffer = nullptr;
};

}  // namespace

// Per-executor storage bookkeeping kept out of the public header.
struct ExecutorStorage {
  std::vector<PendingStorage> pending;
};

std::map<const aclOpExecutor*, ExecutorStorage>& StorageTable() {
  static auto* table = new std::map<const aclOpExecutor*, ExecutorStorage>();
  return *table;
}
std::mutex& StorageMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

}  // namespace acl
}  // namespace opgen_twin

using opgen_twin::acl::AlignUp;
using opgen_twin::acl::LogError;

aclOpExecutor::aclOpExecutor() {
  std::lock_guard<std::mutex> lock(opgen_twin::acl::Live().mutex);
  opgen_twin::acl::Live().executors.insert(this);
}

aclOpExecutor::~aclOpExecutor() {
  {
    std::lock_guard<std::mutex> lock(opgen_twin::acl::Live().mutex);
    opgen_twin::acl::Live().executors.erase(this);
  }
  std::vector<opgen_twin::acl::PendingStorage> pending;
  {
    std::lock_guard<std::mutex> lock(opgen_twin::acl::StorageMutex());
    auto it = opgen_twin::acl::StorageTable().find(this);
    if (it != opgen_twin::acl::StorageTable().end()) {
      pending = std::move(it->second.pending);
      opgen_twin::acl::StorageTable().erase(it);
    }
  }
  for (auto& item : pending) {
    if (item.buffer != nullptr) opgen_twin::acl::FreeDeviceBuffer(item.buffer);
  }
}

bool aclOpExecutor::IsLive(const aclOpExecutor* executor) {
  std::lock_guard<std::mutex> lock(opgen_twin::acl::Live().mutex);
  return opgen_twin::acl::Live().executors.count(executor) > 0;
}

aclTensor* aclOpExecutor::AllocDeviceTensor(aclTensor* tensor) {
  Keep(tensor);
  std::lock_guard<std::mutex> lock(opgen_twin::acl::StorageMutex());
  opgen_twin::acl::StorageTable()[this].pending.push_back({tensor, nullptr});
  return tensor;
}

aclTensor* aclOpExecutor::AllocTensor(const op::Shape& shape, op::DataType dataType, op::Format format) {
  if (op::TypeSize(dataType) == 0) {
    LogError(ACLNN_ERR_INNER, __func__,
             std::string("cannot allocate a tensor of ") + op::ToString(dataType).GetString());
    return nullptr;
  }
  return AllocDeviceTensor(new aclTensor(shape, dataType, format, nullptr));
}

aclTensor* aclOpExecutor::AllocTensor(const op::Shape& storageShape, const op::Shape& originShape,
                                      op::DataType dataType, op::Format storageFormat, op::Format originFormat) {
  aclTensor* tensor = AllocTensor(originShape, dataType, originFormat);
  if (tensor != nullptr) {
    tensor->SetStorageShape(storageShape);
    tensor->SetStorageFormat(storageFormat);
  }
  return tensor;
}

aclTensor* aclOpExecutor::AllocTensor(op::DataType dataType, op::Format storageFormat, op::Format originFormat) {
  aclTensor* tensor = AllocTensor(op::Shape{}, dataType, originFormat);
  if (tensor != nullptr) tensor->SetStorageFormat(storageFormat);
  return tensor;
}

aclTensor* aclOpExecutor::AllocHostTensor(const op::Shape& shape, op::DataType dataType, op::Format format) {
  auto* tensor = new aclTensor(nullptr, static_cast<uint64_t>(std::max<int64_t>(shape.GetShapeSize(), 0)), dataType);
  tensor->SetViewShape(shape);
  tensor->SetStorageShape(shape);
  tensor->SetOriginalShape(shape);
  tensor->SetViewFormat(format);
  tensor->SetStorageFormat(format);
  tensor->SetOriginalFormat(format);
  return Keep(tensor);
}

namespace {
template <typename T>
aclTensor* HostTensorFrom(aclOpExecutor* executor, const T* value, uint64_t size, op::DataType dataType,
                          op::DataType sourceType) {
  aclTensor* tensor = executor->AllocHostTensor(op::Shape{static_cast<int64_t>(size)}, dataType);
  auto* base = static_cast<uint8_t*>(tensor->GetStorageAddr());
  for (uint64_t i = 0; i < size; ++i) {
    opgen_twin::acl::WriteElement(base + i * op::TypeSize(dataType), dataType,
                                  opgen_twin::acl::ReadElement(&value[i], sourceType));
  }
  return tensor;
}
}  // namespace

aclTensor* aclOpExecutor::AllocHostTensor(const int64_t* value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom(this, value, size, dataType, ge::DT_INT64);
}
aclTensor* aclOpExecutor::AllocHostTensor(const int32_t* value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom(this, value, size, dataType, ge::DT_INT32);
}
aclTensor* aclOpExecutor::AllocHostTensor(const float* value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom(this, value, size, dataType, ge::DT_FLOAT);
}
aclTensor* aclOpExecutor::AllocHostTensor(const double* value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom(this, value, size, dataType, ge::DT_DOUBLE);
}
aclTensor* aclOpExecutor::AllocHostTensor(const bool* value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom(this, reinterpret_cast<const uint8_t*>(value), size, dataType, ge::DT_BOOL);
}

aclTensor* aclOpExecutor::CreateView(const aclTensor* tensor, const op::Shape& shape, int64_t offset) {
  if (tensor == nullptr) return nullptr;
  op::Strides strides;
  op::ToContiguousStrides(shape, strides);
  return Keep(new aclTensor(*tensor, shape, strides, offset));
}

aclTensor* aclOpExecutor::CreateView(const aclTensor* tensor, const op::Shape& oriShape, const op::Shape& storageShape,
                                     const op::Strides& oriStride, int64_t offset) {
  if (tensor == nullptr) return nullptr;
  auto* view = new aclTensor(*tensor, oriShape, oriStride, offset);
  view->SetStorageShape(storageShape);
  return Keep(view);
}

aclIntArray* aclOpExecutor::AllocIntArray(const int64_t* value, uint64_t size) {
  return Keep(new aclIntArray(value, size));
}
aclFloatArray* aclOpExecutor::AllocFloatArray(const float* value, uint64_t size) {
  return Keep(new aclFloatArray(value, size));
}
aclBoolArray* aclOpExecutor::AllocBoolArray(const bool* value, uint64_t size) {
  return Keep(new aclBoolArray(value, size));
}
aclTensorList* aclOpExecutor::AllocTensorList(const aclTensor* const* tensors, uint64_t size) {
  return Keep(new aclTensorList(tensors, size));
}
aclScalarList* aclOpExecutor::AllocScalarList(const aclScalar* const* scalars, uint64_t size) {
  return Keep(new aclScalarList(scalars, size));
}
aclScalar* aclOpExecutor::AllocScalar(const void* data, op::DataType dataType) {
  return Keep(new aclScalar(data, dataType));
}
aclScalar* aclOpExecutor::AllocScalar(float value) { return Keep(new aclScalar(value)); }
aclScalar* aclOpExecutor::AllocScalar(double value) { return Keep(new aclScalar(value)); }
aclScalar* aclOpExecutor::AllocScalar(op::fp16_t value) { return AllocScalar(&value.val, ge::DT_FLOAT16); }
aclScalar* aclOpExecutor::AllocScalar(op::bfloat16 value) { return AllocScalar(&value.value, ge::DT_BF16); }
aclScalar* aclOpExecutor::AllocScalar(int8_t value) { return AllocScalar(&value, ge::DT_INT8); }
aclScalar* aclOpExecutor::AllocScalar(int16_t value) { return AllocScalar(&value, ge::DT_INT16); }
aclScalar* aclOpExecutor::AllocScalar(int32_t value) { return Keep(new aclScalar(value)); }
aclScalar* aclOpExecutor::AllocScalar(int64_t value) { return Keep(new aclScalar(value)); }
aclScalar* aclOpExecutor::AllocScalar(uint8_t value) { return AllocScalar(&value, ge::DT_UINT8); }
aclScalar* aclOpExecutor::AllocScalar(uint16_t value) { return AllocScalar(&value, ge::DT_UINT16); }
aclScalar* aclOpExecutor::AllocScalar(uint32_t value) { return AllocScalar(&value, ge::DT_UINT32); }
aclScalar* aclOpExecutor::AllocScalar(uint64_t value) { return AllocScalar(&value, ge::DT_UINT64); }
aclScalar* aclOpExecutor::AllocScalar(bool value) { return Keep(new aclScalar(value)); }

const aclTensor* aclOpExecutor::ConvertToTensor(const aclIntArray* value, op::DataType dataType) {
  return value == nullptr ? nullptr : AllocHostTensor(value->GetData(), value->Size(), dataType);
}
const aclTensor* aclOpExecutor::ConvertToTensor(const aclBoolArray* value, op::DataType dataType) {
  return value == nullptr ? nullptr : AllocHostTensor(value->GetData(), value->Size(), dataType);
}
const aclTensor* aclOpExecutor::ConvertToTensor(const aclFloatArray* value, op::DataType dataType) {
  return value == nullptr ? nullptr : AllocHostTensor(value->GetData(), value->Size(), dataType);
}
const aclTensor* aclOpExecutor::ConvertToTensor(const aclScalar* value, op::DataType dataType) {
  if (value == nullptr) return nullptr;
  aclTensor* tensor = AllocHostTensor(op::Shape{}, dataType);  // 0-d, one element
  opgen_twin::acl::WriteElement(tensor->GetStorageAddr(), dataType,
                                opgen_twin::acl::ReadElement(value->GetData(), value->GetDataType()));
  return tensor;
}

void aclOpExecutor::AddLaunchTask(std::unique_ptr<op::internal::LaunchTask> task) {
  tasks_.push_back(std::move(task));
}

uint64_t aclOpExecutor::ReserveKernelWorkspace(uint64_t bytes) {
  uint64_t offset = kernelWorkspaceBytes_;
  kernelWorkspaceBytes_ += AlignUp(bytes);
  return offset;
}

const char* aclOpExecutor::LaunchName(size_t index) const {
  return index < tasks_.size() ? tasks_[index]->Name() : "";
}

std::string aclOpExecutor::LaunchDescription(size_t index) const {
  return index < tasks_.size() ? tasks_[index]->Describe() : "";
}

uint64_t aclOpExecutor::GetWorkspaceSize() const {
  // Kernel workspaces are carved from the caller's workspace; intermediates are counted too,
  // as CANN places them there (the twin gives each its own buffer for exact GM bounds).
  uint64_t intermediate = 0;
  std::lock_guard<std::mutex> lock(opgen_twin::acl::StorageMutex());
  auto it = opgen_twin::acl::StorageTable().find(this);
  if (it != opgen_twin::acl::StorageTable().end()) {
    for (const auto& item : it->second.pending) {
      if (__builtin_add_overflow(intermediate, AlignUp(opgen_twin::acl::StorageBytes(item.tensor)), &intermediate)) {
        return UINT64_MAX;
      }
    }
  }
  uint64_t total = 0;
  return __builtin_add_overflow(kernelWorkspaceBytes_, intermediate, &total) ? UINT64_MAX : total;
}

aclnnStatus aclOpExecutor::SetRepeatable() {
  repeatable_ = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclOpExecutor::RunAll(void* workspace, uint64_t workspaceSize, aclrtStream stream) {
  // Phase two owns the device from its tiling to its last launch (see opgen_twin::DeviceMutex).
  std::lock_guard<std::recursive_mutex> device(opgen_twin::DeviceMutex());
  const uint64_t required = GetWorkspaceSize();
  if (required > 0 && workspace == nullptr) {
    LogError(ACLNN_ERR_PARAM_NULLPTR, __func__, "workspace is nullptr but " + std::to_string(required) +
                                                    " bytes are required.");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (workspaceSize < required) {
    LogError(ACLNN_ERR_PARAM_INVALID, __func__, "workspaceSize " + std::to_string(workspaceSize) +
                                                    " is smaller than the required " + std::to_string(required) + ".");
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (required > 0 && !opgen_twin::acl::IsDeviceRange(workspace, required)) {
    LogError(ACLNN_ERR_PARAM_INVALID, __func__,
             "workspace must be device memory from aclrtMalloc holding " + std::to_string(required) + " bytes.");
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (!tasks_.empty() && !opgen_twin::acl::RuntimeReady()) {
    LogError(ACLNN_ERR_RUNTIME_ERROR, __func__, "no device is set (aclInit / aclrtSetDevice missing).");
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  if (!opgen_twin::acl::IsLiveStream(stream)) {
    LogError(ACLNN_ERR_RUNTIME_ERROR, __func__, "stream was not created by aclrtCreateStream or is destroyed.");
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  {
    std::lock_guard<std::mutex> lock(opgen_twin::acl::StorageMutex());
    for (auto& item : opgen_twin::acl::StorageTable()[this].pending) {
      if (item.buffer != nullptr) continue;
      const uint64_t bytes = opgen_twin::acl::StorageBytes(item.tensor);
      if (bytes == 0) continue;
      item.buffer = opgen_twin::acl::AllocateDeviceBuffer(bytes);
      if (item.buffer == nullptr) {
        LogError(ACLNN_ERR_INNER, __func__, "out of memory for an intermediate tensor.");
        return ACLNN_ERR_INNER;
      }
      item.tensor->SetStorageAddr(item.buffer);
    }
  }
  env_.workspace = static_cast<uint8_t*>(workspace);
  env_.workspaceSize = workspaceSize;
  env_.stream = stream;
  for (auto& task : tasks_) {
    aclnnStatus status = task->Run(env_);
    if (status != ACLNN_SUCCESS) {
      LogError(status, __func__, std::string("launch of ") + task->Name() + " failed.");
      return status;
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus aclOpExecutor::Run() { return RunAll(env_.workspace, env_.workspaceSize, env_.stream); }

UniqueExecutor::UniqueExecutor(const char* funcName) : funcName_(funcName), executor_(new aclOpExecutor()) {}

UniqueExecutor::~UniqueExecutor() {
  if (executor_ != nullptr) {
    OP_LOGD("%s returned without ReleaseTo(executor); the executor is discarded.", funcName_);
  }
}

void UniqueExecutor::ReleaseTo(aclOpExecutor** executor) {
  if (executor != nullptr) *executor = executor_.release();
}

aclnnStatus CommonOpExecutorRun(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  if (executor == nullptr) {
    LogError(ACLNN_ERR_PARAM_NULLPTR, __func__, "executor is nullptr.");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (!aclOpExecutor::IsLive(executor)) {
    LogError(ACLNN_ERR_PARAM_INVALID, __func__,
             "executor was not produced by a GetWorkspaceSize call, or has already been run.");
    return ACLNN_ERR_PARAM_INVALID;
  }
  aclnnStatus status = executor->RunAll(workspace, workspaceSize, stream);
  if (!executor->IsRepeatable()) delete executor;
  return status;
}

namespace op {

aclnnStatus CheckPhase1Params(aclOpExecutor** executor, uint64_t* workspaceSize) {
  if (executor == nullptr || workspaceSize == nullptr) {
    LogError(ACLNN_ERR_PARAM_NULLPTR, __func__, "workspaceSize and executor must not be nullptr.");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  return ACLNN_SUCCESS;
}

void DebugLogParams(const char* apiName, const char* inputs, const char* outputs) {
  OP_LOGD("%s inputs %s outputs %s", apiName, inputs, outputs);
}

namespace {
struct OpTypeTable {
  std::mutex mutex;
  std::map<std::string, uint32_t> ids;
  std::deque<std::string> names{""};  // id 0 is INVALID_OP_TYPE; deque keeps c_str() stable
};
OpTypeTable& OpTypes() {
  static auto* table = new OpTypeTable();
  return *table;
}
}  // namespace

uint32_t GenOpTypeId(const char* opName) {
  OpTypeTable& table = OpTypes();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.ids.find(opName);
  if (it != table.ids.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(table.names.size());
  table.names.push_back(opName);
  table.ids[opName] = id;
  return id;
}

const char* OpTypeName(uint32_t opTypeId) {
  OpTypeTable& table = OpTypes();
  std::lock_guard<std::mutex> lock(table.mutex);
  return opTypeId < table.names.size() ? table.names[opTypeId].c_str() : "";
}

}  // namespace op

void InitL2Phase1Context(const char* l2Name, aclOpExecutor** executor) {
  (void)executor;
  opgen_twin::log::SetCurrentApiName(l2Name);
}

void InitL2Phase2Context(const char* l2Name, aclOpExecutor* executor) {
  (void)executor;
  opgen_twin::log::SetCurrentApiName(l2Name);
}

void InitL0Context(const char* profilingName, aclOpExecutor* executor) {
  (void)executor;
  OP_LOGD("L0 %s", profilingName);
}

extern "C" {
aclnnStatus aclnnInit(const char* configPath) {
  (void)configPath;
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnFinalize() { return ACLNN_SUCCESS; }
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  if (!aclOpExecutor::IsLive(executor)) return ACLNN_ERR_PARAM_INVALID;
  delete executor;
  return ACLNN_SUCCESS;
}
}
