// How the twin reports a failed check: one line on stderr and exit (default), or a C++ exception.
//
// The line reads `opgen-twin: error: <CHECK>: kernel=<k> core=<i> api=<API> <details>`; kernel and core
// are `-` outside a launch.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace opgen_twin {

enum class FailureMode {
  kExit,   // print the line, exit with kCheckExitCode
  kThrow,  // throw CheckError
};

// Exit status of a process stopped by a failed check.
constexpr int kCheckExitCode = 3;

// Overrides the mode chosen by env OPGEN_TWIN_ON_ERROR (`exit` or `throw`; default exit).
void SetFailureMode(FailureMode mode);
FailureMode GetFailureMode();

class CheckError : public std::runtime_error {
 public:
  CheckError(std::string check, std::string kernel, int64_t core, std::string api, std::string details,
             const std::string& message)
      : std::runtime_error(message),
        check_(std::move(check)),
        kernel_(std::move(kernel)),
        core_(core),
        api_(std::move(api)),
        details_(std::move(details)) {}

  // Check name, e.g. "GM_OUT_OF_BOUNDS".
  const std::string& check() const { return check_; }
  // Kernel name, "-" outside a launch.
  const std::string& kernel() const { return kernel_; }
  // Core index, -1 outside a launch.
  int64_t core() const { return core_; }
  const std::string& api() const { return api_; }
  const std::string& details() const { return details_; }

 private:
  std::string check_;
  std::string kernel_;
  int64_t core_;
  std::string api_;
  std::string details_;
};

// Reports a failed check in the current failure mode; never returns. Used by the kernel runtime and
// available to the ACL/aclnn runtime for its own checks.
[[noreturn]] void Fail(const char* check, const char* api, const std::string& details);

// printf-style formatting for check details.
std::string StringPrintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace opgen_twin
