// Failure reporting (exit or throw) and the names used in messages.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core_state.h"

namespace opgen_twin {
namespace {

enum class ModeSource { kUnset, kSet };

FailureMode g_mode = FailureMode::kExit;
ModeSource g_mode_source = ModeSource::kUnset;

}  // namespace

void SetFailureMode(FailureMode mode) {
  g_mode = mode;
  g_mode_source = ModeSource::kSet;
}

FailureMode GetFailureMode() {
  if (g_mode_source == ModeSource::kUnset) {
    const char* env = std::getenv("OPGEN_TWIN_ON_ERROR");
    g_mode = (env != nullptr && std::strcmp(env, "throw") == 0) ? FailureMode::kThrow : FailureMode::kExit;
    g_mode_source = ModeSource::kSet;
  }
  return g_mode;
}

std::string StringPrintf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(&text[0], text.size() + 1, format, args);
  va_end(args);
  return text;
}

void Fail(const char* check, const char* api, const std::string& details) {
  std::string kernel = "-";
  int64_t core = -1;
  detail::DescribeLaunch(&kernel, &core);
  const std::string core_text = core < 0 ? std::string("-") : std::to_string(core);
  const std::string line =
      "opgen-twin: error: " + std::string(check) + ": kernel=" + kernel + " core=" + core_text + " api=" + api +
      (details.empty() ? "" : " " + details);
  if (GetFailureMode() == FailureMode::kThrow) {
    throw CheckError(check, kernel, core, api, details, line);
  }
  detail::OnFatalCheck(check);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(kCheckExitCode);
}

const char* DTypeName(DType type) {
  switch (type) {
    case DType::kBool: return "bool";
    case DType::kInt8: return "int8_t";
    case DType::kUint8: return "uint8_t";
    case DType::kInt16: return "int16_t";
    case DType::kUint16: return "uint16_t";
    case DType::kInt32: return "int32_t";
    case DType::kUint32: return "uint32_t";
    case DType::kInt64: return "int64_t";
    case DType::kUint64: return "uint64_t";
    case DType::kHalf: return "half";
    case DType::kBfloat16: return "bfloat16_t";
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kCount: break;
  }
  return "?";
}

const char* ApiName(Api api) {
  static const char* const kNames[] = {
      "DataCopy", "DataCopyPad", "Add",  "Sub",        "Mul",  "Div",       "Max",     "Min",
      "Adds",     "Muls",        "Maxs", "Mins",       "LeakyRelu", "Exp",  "Ln",      "Abs",
      "Sqrt",     "Reciprocal",  "Relu", "Duplicate",  "Compare",   "Compares", "CompareScalar", "Select",
      "Cast",     "Rsqrt",       "Tanh", "Erf",        "Sigmoid",   "Sign",     "Floor",         "Trunc",
      "GatherMask", "Gather", "WholeReduceMax", "WholeReduceSum", "BlockReduceMax", "BlockReduceSum", "PairReduceSum",
      "ReduceMax",  "ReduceSum"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Api::kCount), "one name per Api");
  const size_t index = static_cast<size_t>(api);
  return index < static_cast<size_t>(Api::kCount) ? kNames[index] : "?";
}

namespace detail {

const char* CmpModeName(AscendC::CMPMODE mode) {
  static const char* const kNames[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  const size_t index = static_cast<size_t>(mode);
  return index < 6 ? kNames[index] : "?";
}

const char* SelModeName(AscendC::SELMODE mode) {
  static const char* const kNames[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"};
  const size_t index = static_cast<size_t>(mode);
  return index < 3 ? kNames[index] : "?";
}

const char* RoundModeName(int round_mode) {
  static const char* const kNames[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return round_mode >= 0 && round_mode < 7 ? kNames[round_mode] : "?";
}

const char* HardEventName(int hard_event) {
  static const char* const kNames[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M",    "M_MTE1",    "MTE2_V",    "V_MTE2",   "MTE3_V",   "V_MTE3",
      "M_V",       "V_M",       "V_V",       "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",   "MTE2_M",   "M_MTE2",
      "V_MTE1",    "M_FIX",     "FIX_M",     "MTE3_MTE2", "MTE2_MTE3", "S_V",      "V_S",      "S_MTE2",
      "MTE2_S",    "S_MTE3",    "MTE3_S",    "MTE2_FIX",  "FIX_MTE2",  "FIX_S",    "M_S",      "FIX_MTE3",
      "MTE1_FIX",  "FIX_MTE1",  "FIX_FIX",   "MAX"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kHardEventCount, "one name per HardEvent");
  return hard_event >= 0 && static_cast<size_t>(hard_event) < kHardEventCount ? kNames[hard_event] : "?";
}

const char* PositionName(int position) {
  static const char* const kNames[] = {"GM",  "A1",     "A2",      "B1",  "B2",   "C1",        "C2",
                                       "CO1", "CO2",    "VECIN",   "VECOUT", "VECCALC", "SPM", "TSCM",
                                       "C2PIPE2GM", "C2PIPE2LOCAL", "MAX"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kPositionCount, "one name per TPosition");
  return position >= 0 && static_cast<size_t>(position) < kPositionCount ? kNames[position] : "?";
}

}  // namespace detail
}  // namespace opgen_twin
