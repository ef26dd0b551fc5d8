// AICPU kernel API: subclass CpuKernel, implement Compute, register with
// REGISTER_CPU_KERNEL(typeVariable, Class) where typeVariable is a const char* holding the op type.
#ifndef OPGEN_TWIN_CPU_KERNEL_H_
#define OPGEN_TWIN_CPU_KERNEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "cpu_context.h"
#include "status.h"

namespace aicpu {

class AICPU_VISIBILITY CpuKernel {
 public:
  virtual uint32_t Compute(CpuKernelContext& ctx) = 0;
  virtual ~CpuKernel() {}
};

using KERNEL_CREATOR_FUN = std::function<std::shared_ptr<CpuKernel>(void)>;

AICPU_VISIBILITY bool RegistCpuKernel(const std::string& type, const KERNEL_CREATOR_FUN& fun);
// Twin lookup: a new kernel object for type, or nullptr.
std::shared_ptr<CpuKernel> CreateCpuKernel(const std::string& type);

template <typename T, typename... Args>
static inline std::shared_ptr<T> MakeShared(Args&&... args) {
  using TNonConst = typename std::remove_const<T>::type;
  return std::shared_ptr<T>(new (std::nothrow) TNonConst(std::forward<Args>(args)...));
}

#define REGISTER_CPU_KERNEL(type, clazz)                                                      \
  std::shared_ptr<CpuKernel> Creator_##type##_Kernel() { return MakeShared<clazz>(); }        \
  bool g_##type##_Kernel_Creator __attribute__((unused)) = RegistCpuKernel(type, Creator_##type##_Kernel)

}  // namespace aicpu

#endif  // OPGEN_TWIN_CPU_KERNEL_H_
