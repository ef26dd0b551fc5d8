// gert::TilingParseContext: what a TilingParse (compile-info preparation) function sees.
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H_
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H_

#include "exe_graph/runtime/extended_kernel_context.h"

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace gert {

class TilingParseContext : public ExtendedKernelContext {
 public:
  fe::PlatFormInfos* GetPlatformInfo() const { return platformInfo_; }
  template <typename T>
  T* GetCompiledInfo() {
    return static_cast<T*>(compiledInfo_);
  }
  const char* GetCompiledJson() const { return "{}"; }

 private:
  friend class opgen_twin::acl::ContextFactory;
  fe::PlatFormInfos* platformInfo_ = nullptr;
  void* compiledInfo_ = nullptr;
};

}  // namespace gert

#endif  // OPGEN_TWIN_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H_
