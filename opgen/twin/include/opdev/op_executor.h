// aclOpExecutor: the plan an aclnn phase-1 call builds. It owns the intermediate tensors and
// objects the L0 calls allocate and the ordered list of deferred launches (AI Core kernels,
// AICPU kernels, host-side view/cast copies); CommonOpExecutorRun (phase 2) runs them in order
// and then frees the executor, as CANN does for a non-repeatable executor.
#ifndef OPGEN_TWIN_OPDEV_OP_EXECUTOR_H_
#define OPGEN_TWIN_OPDEV_OP_EXECUTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/object.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_log.h"

namespace op {
namespace internal {
// Where a deferred launch runs: the phase-2 workspace and stream.
struct LaunchEnv {
  uint8_t* workspace = nullptr;
  uint64_t workspaceSize = 0;
  aclrtStream stream = nullptr;
};
// One deferred unit of work recorded in phase 1.
class LaunchTask {
 public:
  virtual ~LaunchTask() = default;
  virtual const char* Name() const = 0;
  // One line for tests and logs, e.g. "AddScalarDemo aicore kernel=add_scalar_demo blockDim=1 ...".
  virtual std::string Describe() const { return Name(); }
  virtual aclnnStatus Run(const LaunchEnv& env) = 0;
};
// Writes count values into a host tensor, converted to its dtype.
void StoreDoubles(aclTensor* tensor, const double* values, uint64_t count);
}  // namespace internal
}  // namespace op

struct aclOpExecutor : public op::Object {
 public:
  aclOpExecutor();
  ~aclOpExecutor() override;
  aclOpExecutor(const aclOpExecutor&) = delete;
  aclOpExecutor& operator=(const aclOpExecutor&) = delete;

  // Intermediate device tensors (contiguous, own device buffer, freed with the executor).
  aclTensor* AllocTensor(const op::Shape& shape, op::DataType dataType, op::Format format = op::Format::FORMAT_ND);
  aclTensor* AllocTensor(const op::Shape& storageShape, const op::Shape& originShape, op::DataType dataType,
                         op::Format storageFormat, op::Format originFormat);
  // Shape to be set later (INFER_SHAPE); 0-d until then.
  aclTensor* AllocTensor(op::DataType dataType, op::Format storageFormat, op::Format originFormat);
  aclTensor* AllocHostTensor(const op::Shape& shape, op::DataType dataType, op::Format format = op::Format::FORMAT_ND);
  aclTensor* AllocHostTensor(const int64_t* value, uint64_t size, op::DataType dataType);
  aclTensor* AllocHostTensor(const int32_t* value, uint64_t size, op::DataType dataType);
  aclTensor* AllocHostTensor(const float* value, uint64_t size, op::DataType dataType);
  aclTensor* AllocHostTensor(const double* value, uint64_t size, op::DataType dataType);
  aclTensor* AllocHostTensor(const bool* value, uint64_t size, op::DataType dataType);
  // A view of tensor's storage with a new (contiguous) shape starting at offset elements.
  aclTensor* CreateView(const aclTensor* tensor, const op::Shape& shape, int64_t offset);
  aclTensor* CreateView(const aclTensor* tensor, const op::Shape& oriShape, const op::Shape& storageShape,
                        const op::Strides& oriStride, int64_t offset);
  aclIntArray* AllocIntArray(const int64_t* value, uint64_t size);
  aclFloatArray* AllocFloatArray(const float* value, uint64_t size);
  aclBoolArray* AllocBoolArray(const bool* value, uint64_t size);
  aclTensorList* AllocTensorList(const aclTensor* const* tensors, uint64_t size);
  aclScalarList* AllocScalarList(const aclScalar* const* scalars, uint64_t size);
  aclScalar* AllocScalar(const void* data, op::DataType dataType);
  aclScalar* AllocScalar(float value);
  aclScalar* AllocScalar(double value);
  aclScalar* AllocScalar(op::fp16_t value);
  aclScalar* AllocScalar(op::bfloat16 value);
  aclScalar* AllocScalar(int8_t value);
  aclScalar* AllocScalar(int16_t value);
  aclScalar* AllocScalar(int32_t value);
  aclScalar* AllocScalar(int64_t value);
  aclScalar* AllocScalar(uint8_t value);
  aclScalar* AllocScalar(uint16_t value);
  aclScalar* AllocScalar(uint32_t value);
  aclScalar* AllocScalar(uint64_t value);
  aclScalar* AllocScalar(bool value);
  // Host tensors holding values converted to dataType.
  const aclTensor* ConvertToTensor(const aclIntArray* value, op::DataType dataType);
  const aclTensor* ConvertToTensor(const aclBoolArray* value, op::DataType dataType);
  const aclTensor* ConvertToTensor(const aclFloatArray* value, op::DataType dataType);
  const aclTensor* ConvertToTensor(const aclScalar* value, op::DataType dataType);
  template <typename T>
  const aclTensor* ConvertToTensor(const T* value, uint64_t size, op::DataType dataType);

  uint64_t GetWorkspaceSize() const;
  aclnnStatus Run();
  aclrtStream GetStream() const { return env_.stream; }
  void SetStream(aclrtStream stream) { env_.stream = stream; }
  void AbandonCache(bool disableRepeat = false) { (void)disableRepeat; }
  aclnnStatus SetRepeatable();
  bool IsRepeatable() const { return repeatable_; }

  // Twin plumbing used by the launch macros and the built-in L0 ops.
  void AddLaunchTask(std::unique_ptr<op::internal::LaunchTask> task);
  // Reserves bytes of the user workspace for a kernel; returns the offset.
  uint64_t ReserveKernelWorkspace(uint64_t bytes);
  size_t LaunchCount() const { return tasks_.size(); }
  const char* LaunchName(size_t index) const;
  std::string LaunchDescription(size_t index) const;
  aclnnStatus RunAll(void* workspace, uint64_t workspaceSize, aclrtStream stream);
  // True for an executor created by CREATE_EXECUTOR and not yet freed.
  static bool IsLive(const aclOpExecutor* executor);

 private:
  template <typename T>
  T* Keep(T* object) {
    if (object != nullptr) objects_.emplace_back(object);
    return object;
  }
  aclTensor* AllocDeviceTensor(aclTensor* tensor);

  std::vector<std::unique_ptr<op::Object>> objects_;
  std::vector<void*> deviceBuffers_;
  uint64_t intermediateBytes_ = 0;
  uint64_t kernelWorkspaceBytes_ = 0;
  std::vector<std::unique_ptr<op::internal::LaunchTask>> tasks_;
  op::internal::LaunchEnv env_;
  bool repeatable_ = false;
};

template <typename T>
const aclTensor* aclOpExecutor::ConvertToTensor(const T* value, uint64_t size, op::DataType dataType) {
  std::vector<double> wide(value, value + size);
  op::Shape shape{static_cast<int64_t>(size)};
  aclTensor* tensor = AllocHostTensor(shape, dataType);
  if (tensor == nullptr) return nullptr;
  op::internal::StoreDoubles(tensor, wide.data(), size);
  return tensor;
}

class UniqueExecutor : public op::Object {
 public:
  explicit UniqueExecutor(const char* funcName);
  ~UniqueExecutor() override;
  aclOpExecutor* get() const { return executor_.get(); }
  void ReleaseTo(aclOpExecutor** executor);
  aclOpExecutor* operator->() { return executor_.get(); }
  UniqueExecutor(const UniqueExecutor&) = delete;
  UniqueExecutor& operator=(const UniqueExecutor&) = delete;

 private:
  const char* funcName_;
  std::unique_ptr<aclOpExecutor> executor_;
};

#ifndef CREATE_EXECUTOR
#define CREATE_EXECUTOR() UniqueExecutor(__func__)
#endif

// Phase 2 of every aclnn API: checks the executor and workspace, runs the launches in order.
aclnnStatus CommonOpExecutorRun(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#endif  // OPGEN_TWIN_OPDEV_OP_EXECUTOR_H_
