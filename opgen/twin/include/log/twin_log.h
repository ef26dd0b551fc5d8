// One-line logging shared by opdev/op_log.h (aclnn side: OP_LOGE(errno, fmt, ...)) and
// log/log.h (op_host side: OP_LOGE(nodeName|context, fmt, ...)). Errors always reach stderr as
// "[ERROR] [file:line][function] <tag> <message>"; lower levels follow ASCEND_GLOBAL_LOG_LEVEL
// (0 debug, 1 info, 2 warning, 3 error, 4 off; default 3) as on CANN.
#ifndef OPGEN_TWIN_LOG_TWIN_LOG_H_
#define OPGEN_TWIN_LOG_TWIN_LOG_H_

#include <cstdio>
#include <string>
#include <vector>
#include <type_traits>

namespace opgen_twin {
namespace log {

enum Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

bool Enabled(Level level);
// Error lines logged on this thread since the last aclGetRecentErrMsg.
std::vector<std::string>& RecentErrors();
void Emit(Level level, const char* file, int line, const char* function, const std::string& tag,
          const std::string& message);
// The aclnn API (L2_DFX_PHASE_1 / _2) running on this thread, or "".
const char* CurrentApiName();
void SetCurrentApiName(const char* apiName);

// Number of printf conversions in fmt ("%%" excluded).
int CountConversions(const char* fmt);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
template <typename... Args>
std::string Format(const char* fmt, Args... args) {
  if (fmt == nullptr) return "";
  int size = std::snprintf(nullptr, 0, fmt, args...);
  if (size <= 0) return fmt;
  std::string text(static_cast<size_t>(size) + 1, '\0');
  std::snprintf(&text[0], text.size(), fmt, args...);
  text.resize(static_cast<size_t>(size));
  return text;
}
#pragma GCC diagnostic pop

inline const char* NodeText(const char* name) { return name == nullptr ? "nil" : name; }
inline const char* NodeText(const std::string& name) { return name.c_str(); }
template <typename Context>
const char* NodeText(const Context* context) {
  return context == nullptr ? "nil" : context->GetNodeName();
}

// First argument an error code (aclnn OP_LOGE).
template <typename... Args>
void LogWithCode(Level level, const char* file, int line, const char* function, long long code, const char* fmt,
                 Args... args) {
  if (!Enabled(level)) return;
  std::string tag = "errno[" + std::to_string(code) + "]";
  if (CurrentApiName()[0] != '\0') tag += std::string(" OpName:[") + CurrentApiName() + "]";
  Emit(level, file, line, function, tag, Format(fmt, args...));
}

// First argument a node name or context (op_host OP_LOGx).
template <typename Node, typename... Args>
void LogWithNode(Level level, const char* file, int line, const char* function, const Node& node, const char* fmt,
                 Args... args) {
  if (!Enabled(level)) return;
  Emit(level, file, line, function, std::string("OpName:[") + NodeText(node) + "]", Format(fmt, args...));
}

template <typename Node, typename Fmt, typename... Args>
void LogWithNodeRest(Level level, const char* file, int line, const char* function, const Node& node, const Fmt& fmt,
                     const Args&... args) {
  if constexpr (std::is_convertible_v<const Fmt&, const char*>) {
    LogWithNode(level, file, line, function, node, static_cast<const char*>(fmt), args...);
  } else {
    Emit(level, file, line, function, std::string("OpName:[") + NodeText(node) + "]", "(unformattable log message)");
  }
}

// aclnn OP_LOGW/OP_LOGD/OP_LOGI take (fmt, args...) while op_host ones take (node, fmt, args...):
// a leading string whose conversions match the remaining arguments is the format.
template <typename First, typename... Rest>
void LogAmbiguous(Level level, const char* file, int line, const char* function, const First& first,
                  const Rest&... rest) {
  if (!Enabled(level)) return;
  if constexpr (std::is_convertible_v<const First&, const char*>) {
    const char* text = first;
    if constexpr (sizeof...(Rest) == 0) {
      Emit(level, file, line, function, "", text == nullptr ? "" : text);
      return;
    } else {
      if (CountConversions(text) == static_cast<int>(sizeof...(Rest))) {
        Emit(level, file, line, function, "", Format(text, rest...));
        return;
      }
      LogWithNodeRest(level, file, line, function, text, rest...);
    }
  } else {
    if constexpr (sizeof...(Rest) > 0) LogWithNodeRest(level, file, line, function, first, rest...);
  }
}

// OP_LOGE: error code (integral) or node name/context first, then format.
template <typename First, typename... Rest>
void LogError(const char* file, int line, const char* function, const First& first, const char* fmt,
              const Rest&... rest) {
  if constexpr (std::is_integral_v<First> || std::is_enum_v<First>) {
    LogWithCode(kError, file, line, function, static_cast<long long>(first), fmt, rest...);
  } else {
    LogWithNode(kError, file, line, function, first, fmt, rest...);
  }
}

}  // namespace log
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_LOG_TWIN_LOG_H_
