// Implementation of log/twin_log.h.
#include "log/twin_log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace opgen_twin {
namespace log {
namespace {

int ThresholdFromEnv() {
  const char* text = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return kError;
  int level = std::atoi(text);
  return level < kDebug ? kDebug : level;
}

const char* LevelName(Level level) {
  switch (level) {
    case kDebug:
      return "DEBUG";
    case kInfo:
      return "INFO";
    case kWarning:
      return "WARNING";
    default:
      return "ERROR";
  }
}

const char* BaseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash == nullptr ? path : slash + 1;
}

thread_local std::string g_apiName;

}  // namespace

bool Enabled(Level level) {
  static const int threshold = ThresholdFromEnv();
  // Errors are always shown unless logging is off (level 4 and above).
  return level == kError ? threshold <= kError : level >= threshold;
}

void Emit(Level level, const char* file, int line, const char* function, const std::string& tag,
          const std::string& message) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::string where = BaseName(file);
  if (line > 0) where += ":" + std::to_string(line);
  std::string text = std::string("[") + LevelName(level) + "] [" + where + "][" + function + "] ";
  if (!tag.empty()) text += tag + " ";
  text += message;
  // One line per message: embedded newlines would split it.
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  if (level == kError) {
    RecentErrors().push_back(text);
  }
}

std::vector<std::string>& RecentErrors() {
  // Error lines since the last aclGetRecentErrMsg, which returns and clears them (as on CANN).
  static thread_local std::vector<std::string> errors;
  return errors;
}

const char* CurrentApiName() { return g_apiName.c_str(); }
void SetCurrentApiName(const char* apiName) { g_apiName = apiName == nullptr ? "" : apiName; }

int CountConversions(const char* fmt) {
  if (fmt == nullptr) return 0;
  int count = 0;
  for (const char* p = fmt; *p != '\0'; ++p) {
    if (*p != '%') continue;
    if (p[1] == '%') {
      ++p;
      continue;
    }
    ++count;
    // A '*' width or precision consumes another argument.
    for (const char* q = p + 1; *q != '\0' && std::strchr("diouxXeEfFgGaAcspn", *q) == nullptr; ++q) {
      if (*q == '*') ++count;
    }
  }
  return count;
}

}  // namespace log
}  // namespace opgen_twin
