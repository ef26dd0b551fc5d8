// SoC selection: SetSoc, env OPGEN_SOC, the compile-time default -DOPGEN_TWIN_SOC, the table default.
#include <cstdlib>
#include <cstring>
#include <string>

#include "core_state.h"

namespace opgen_twin {
namespace {

const SocInfo kSocs[] = {
#define OPGEN_TWIN_SOC_ROW(name, arch, cores, physical, usable, bf16_arith, bf16, certain) \
  {name, arch, cores, physical, usable, bf16_arith, bf16, certain},
#include "opgen_twin/soc_table.inc"
#undef OPGEN_TWIN_SOC_ROW
};

const char* TableDefault() {
#define OPGEN_TWIN_SOC_DEFAULT_NAME(name) return name;
#include "opgen_twin/soc_table.inc"
#undef OPGEN_TWIN_SOC_DEFAULT_NAME
}

const SocInfo* g_selected = nullptr;

}  // namespace
}  // namespace opgen_twin

// `opgen cc --soc NAME` links a one-line unit defining this, so the runtime's own objects need not be
// rebuilt per SoC; a runtime compiled with -DOPGEN_TWIN_SOC="NAME" uses the macro instead.
extern "C" const char* const opgen_twin_default_soc __attribute__((weak));

namespace opgen_twin {
namespace {

std::string KnownNames() {
  std::string names;
  for (const SocInfo& soc : kSocs) {
    if (!names.empty()) names += ", ";
    names += soc.name;
  }
  return names;
}

}  // namespace

const SocInfo* FindSoc(const char* name) {
  if (name == nullptr) return nullptr;
  for (const SocInfo& soc : kSocs) {
    if (std::strcmp(soc.name, name) == 0) return &soc;
  }
  return nullptr;
}

const SocInfo* AllSocs(size_t* count) {
  if (count != nullptr) *count = sizeof(kSocs) / sizeof(kSocs[0]);
  return kSocs;
}

const SocInfo& CurrentSoc() {
  if (g_selected == nullptr) {
    const char* env = std::getenv("OPGEN_SOC");
    const char* source = "OPGEN_SOC";
    const char* name = env;
    if (name == nullptr || *name == '\0') {
#ifdef OPGEN_TWIN_SOC
      name = OPGEN_TWIN_SOC;
      source = "-DOPGEN_TWIN_SOC";
#else
      if (&opgen_twin_default_soc != nullptr) {
        name = opgen_twin_default_soc;
        source = "opgen cc --soc";
      } else {
        name = TableDefault();
        source = "default";
      }
#endif
    }
    const SocInfo* soc = FindSoc(name);
    if (soc == nullptr) {
      Fail("UNKNOWN_SOC", source, StringPrintf("soc=%s is not a known SoC (known: %s)", name, KnownNames().c_str()));
    }
    g_selected = soc;
  }
  return *g_selected;
}

void SetSoc(const char* name) {
  const SocInfo* soc = FindSoc(name);
  if (soc == nullptr) {
    Fail("UNKNOWN_SOC", "SetSoc",
         StringPrintf("soc=%s is not a known SoC (known: %s)", name ? name : "(null)", KnownNames().c_str()));
  }
  if (detail::ActiveLaunch() != nullptr) {
    Fail("INVALID_ARGUMENT", "SetSoc", StringPrintf("soc=%s: the SoC cannot change while a kernel runs", name));
  }
  g_selected = soc;
}

namespace detail {

const SocInfo& ActiveSoc() {
  const LaunchState* launch = ActiveLaunch();
  return launch != nullptr ? *launch->soc : CurrentSoc();
}

}  // namespace detail
}  // namespace opgen_twin
