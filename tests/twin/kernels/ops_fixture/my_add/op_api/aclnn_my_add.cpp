// Runs the my_add kernel through the twin's kernel registry, as the aclnn layer does.
#include "aclnn_my_add.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "my_add_tiling_data.h"
#include "opgen_twin/kernel_registry.h"

MyAddTilingData MyAddTiling(uint32_t total, float alpha);
double MyAddAicpu(double x, double y, double alpha);

int aclnnMyAdd(const float* x, const float* y, float alpha, float* z, uint32_t n, uint32_t cores) {
  if (!opgen_twin::HasKernel("my_add")) return 1;
  const size_t bytes = n * sizeof(float);
  std::vector<uint8_t*> buffers;
  for (size_t size : {bytes, bytes, bytes, size_t{32}, sizeof(MyAddTilingData)}) {
    uint8_t* p = static_cast<uint8_t*>(std::malloc(size));
    opgen_twin::RegisterGmRegion(p, size);  // memory from outside GmAlloc, like aclrtMalloc
    buffers.push_back(p);
  }
  std::memcpy(buffers[0], x, bytes);
  std::memcpy(buffers[1], y, bytes);
  const MyAddTilingData tiling = MyAddTiling(n, alpha);
  std::memcpy(buffers[4], &tiling, sizeof(tiling));
  opgen_twin::LaunchKernel("my_add", cores, 0, buffers);
  std::memcpy(z, buffers[2], bytes);
  for (uint8_t* p : buffers) {
    opgen_twin::UnregisterGmRegion(p);
    std::free(p);
  }
  return 0;
}

double aclnnMyAddDouble(double x, double y, double alpha) { return MyAddAicpu(x, y, alpha); }
