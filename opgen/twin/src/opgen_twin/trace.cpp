// The per-launch trace: kept in memory and, with env OPGEN_TWIN_TRACE set, appended to a JSON-lines file.
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core_state.h"

namespace opgen_twin {
namespace {

constexpr size_t kKeptLaunches = 8192;

std::vector<LaunchTrace>& Launches() {
  static std::vector<LaunchTrace> launches;
  return launches;
}

std::string JsonString(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      quoted += StringPrintf("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

std::string Number(uint64_t value) { return std::to_string(value); }

std::string CoreJson(const CoreTrace& core) {
  std::string json = "{\"core\": " + Number(core.core) + ", \"gm_to_ub_bytes\": " + Number(core.gmToUbBytes) +
                     ", \"ub_to_gm_bytes\": " + Number(core.ubToGmBytes) + ", \"ub_to_ub_bytes\": " +
                     Number(core.ubToUbBytes) + ", \"ub_high_water\": " + Number(core.ubHighWater) +
                     ", \"copies\": " + Number(core.copies) + ", \"ub_copy_bytes\": " + Number(core.ubCopyBytes) +
                     ", \"vector\": {";
  bool first = true;
  for (const auto& entry : core.vector) {
    if (!first) json += ", ";
    first = false;
    json += JsonString(entry.first) + ": {\"calls\": " + Number(entry.second.calls) +
            ", \"elements\": " + Number(entry.second.elements) + "}";
  }
  return json + "}}";
}

}  // namespace

CoreTrace LaunchTrace::Totals() const {
  CoreTrace total;
  total.core = blockDim;
  for (const CoreTrace& core : cores) {
    total.gmToUbBytes += core.gmToUbBytes;
    total.ubToGmBytes += core.ubToGmBytes;
    total.ubToUbBytes += core.ubToUbBytes;
    if (core.ubHighWater > total.ubHighWater) total.ubHighWater = core.ubHighWater;
    total.copies += core.copies;
    total.ubCopyBytes += core.ubCopyBytes;
    for (const auto& entry : core.vector) {
      ApiCount& sum = total.vector[entry.first];
      sum.calls += entry.second.calls;
      sum.elements += entry.second.elements;
    }
  }
  return total;
}

const LaunchTrace& LastLaunch() {
  static const LaunchTrace kNone;
  return Launches().empty() ? kNone : Launches().back();
}

const std::vector<LaunchTrace>& AllLaunches() { return Launches(); }

void ClearTraces() { Launches().clear(); }

std::string LaunchTraceToJson(const LaunchTrace& trace) {
  std::string json = "{\"kernel\": " + JsonString(trace.kernel) + ", \"block_dim\": " + Number(trace.blockDim) +
                     ", \"tiling_key\": " + Number(trace.tilingKey) + ", \"soc\": " + JsonString(trace.soc) +
                     ", \"status\": " + JsonString(trace.status) + ", \"cores\": [";
  for (size_t i = 0; i < trace.cores.size(); ++i) {
    if (i > 0) json += ", ";
    json += CoreJson(trace.cores[i]);
  }
  return json + "]}";
}

namespace detail {

void RecordLaunch(LaunchTrace trace) {
  const char* path = std::getenv("OPGEN_TWIN_TRACE");
  if (path != nullptr && *path != '\0') {
    std::FILE* file = std::fopen(path, "a");
    if (file != nullptr) {  // tracing must never stop a kernel
      const std::string line = LaunchTraceToJson(trace) + "\n";
      std::fwrite(line.data(), 1, line.size(), file);
      std::fclose(file);
    }
  }
  std::vector<LaunchTrace>& launches = Launches();
  if (launches.size() >= kKeptLaunches) {
    // A process that launches without end (a binding in a training loop) keeps only the recent history.
    launches.erase(launches.begin(), launches.begin() + static_cast<std::ptrdiff_t>(kKeptLaunches / 2));
  }
  launches.push_back(std::move(trace));
}

}  // namespace detail
}  // namespace opgen_twin
