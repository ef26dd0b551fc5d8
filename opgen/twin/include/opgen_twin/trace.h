// What each kernel launch did: bytes moved and vector work per core, UB high-water mark.
//
// Every launch (ICPU_RUN_KF or LaunchKernel) appends one LaunchTrace. If env OPGEN_TWIN_TRACE names a
// file, each launch also appends one JSON line to it (read by opgen/twin/trace.py).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace opgen_twin {

struct ApiCount {
  uint64_t calls = 0;
  uint64_t elements = 0;
};

struct CoreTrace {
  uint32_t core = 0;
  uint64_t gmToUbBytes = 0;
  uint64_t ubToGmBytes = 0;
  uint64_t ubToUbBytes = 0;
  uint64_t ubHighWater = 0;             // bytes of UB handed out by TPipe::InitBuffer, at most
  uint64_t copies = 0;                  // GM<->UB copy instructions (DataCopy, DataCopyPad) issued
  uint64_t ubCopyBytes = 0;             // UB bytes those copies occupy, each block padded to 32 bytes
  std::map<std::string, ApiCount> vector;  // vector instructions by API name
};

struct LaunchTrace {
  std::string kernel;
  uint32_t blockDim = 0;
  uint64_t tilingKey = 0;
  std::string soc;
  std::string status = "ok";  // "ok", or the name of the check that stopped the launch
  std::vector<CoreTrace> cores;

  // Sum over cores (ubHighWater: the maximum); core is set to blockDim.
  CoreTrace Totals() const;
};

// The most recent launch; an empty LaunchTrace if there was none. References stay valid until the next
// launch or ClearTraces().
const LaunchTrace& LastLaunch();
// Every launch since the start or the last ClearTraces(), in order (failed launches included). A process
// that goes on launching keeps the most recent ones: past 8192, the older half is dropped (the
// OPGEN_TWIN_TRACE file keeps them all).
const std::vector<LaunchTrace>& AllLaunches();
void ClearTraces();

// The JSON line written to OPGEN_TWIN_TRACE for a launch.
std::string LaunchTraceToJson(const LaunchTrace& trace);

}  // namespace opgen_twin
