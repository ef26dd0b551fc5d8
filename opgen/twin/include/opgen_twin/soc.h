// The SoC the twin models. The table is generated from opgen/spec/socs.py (soc_table.inc).
//
// Selection, strongest first: SetSoc("name"); env OPGEN_SOC; the compile-time default
// -DOPGEN_TWIN_SOC="name" (set by `opgen cc --soc`); the table's default (ascend910b).
#pragma once

#include <cstddef>
#include <cstdint>

namespace opgen_twin {

struct SocInfo {
  const char* name;          // CANN SoC name, e.g. "ascend910b"
  const char* arch;          // ops-nn arch directory, e.g. "arch22"
  uint32_t vectorCores;      // AIV cores (GetCoreNumAiv on the platform)
  uint64_t ubPhysicalBytes;  // Unified Buffer per vector core
  uint64_t ubUsableBytes;    // what TPipe::InitBuffer may hand out
  bool bf16VectorArith;      // vector arithmetic accepts bfloat16_t directly
  bool bf16Supported;        // bfloat16_t tensors exist at all (Cast to/from float)
  bool figuresCertain;       // false where the figures are conservative guesses
};

// The selected SoC. Fails with UNKNOWN_SOC if env OPGEN_SOC names no known SoC.
const SocInfo& CurrentSoc();
// Selects a SoC by name; fails with UNKNOWN_SOC for an unknown name.
void SetSoc(const char* name);
// The table row for `name`, or nullptr.
const SocInfo* FindSoc(const char* name);
// All rows of the table.
const SocInfo* AllSocs(size_t* count);

}  // namespace opgen_twin
