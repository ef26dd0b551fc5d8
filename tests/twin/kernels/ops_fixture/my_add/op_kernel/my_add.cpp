// my_add: z = x + alpha * y over float elements, one tile per core (a test operator for `opgen cc`).
#include "kernel_operator.h"
#include "my_add_tiling_data.h"

using namespace AscendC;

// extern "C" __global__ __aicore__ void commented_out_kernel(GM_ADDR x);

extern "C" __global__ __aicore__ void my_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling) {
  (void)workspace;
  REGISTER_TILING_DEFAULT(MyAddTilingData);
  GET_TILING_DATA_WITH_STRUCT(MyAddTilingData, tilingData, tiling);
  const uint32_t per_core = tilingData.totalLength / static_cast<uint32_t>(GetBlockNum());
  const uint64_t offset = per_core * static_cast<uint64_t>(GetBlockIdx());
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, yb;
  pipe.InitBuffer(xb, per_core * sizeof(float));
  pipe.InitBuffer(yb, per_core * sizeof(float));
  GlobalTensor<float> xg, yg, zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + offset, per_core);
  yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + offset, per_core);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + offset, per_core);
  LocalTensor<float> xl = xb.Get<float>();
  LocalTensor<float> yl = yb.Get<float>();
  DataCopy(xl, xg, per_core);
  DataCopy(yl, yg, per_core);
  Muls(yl, yl, tilingData.alpha, static_cast<int32_t>(per_core));
  Add(xl, xl, yl, static_cast<int32_t>(per_core));
  DataCopy(zg, xl, per_core);
}

extern "C" __global__ __aicore__ void my_fill(GM_ADDR z) {
  GlobalTensor<float> zg;
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + GetBlockIdx(), 1);
  zg.SetValue(0, 42.0f);
}
