// Classic TPipe/TQue kernels (Init / CopyIn / Compute / CopyOut) run through the CPU debug entry points.
//
// Usage:
//   classic_kernels add half|float N BLOCK_DIM TILE DIR   z = x + y over DIR/x.bin, DIR/y.bin -> DIR/z.bin
//   classic_kernels leaky DIR                              the LeakyRelu API example: DIR/x.bin -> DIR/y.bin
//   classic_kernels trace_api                              prints what LastLaunch/AllLaunches/ClearTraces report
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_ELEMENTS_BYTES = 256;  // work is split between cores in 256-byte blocks

struct AddTilingData {
  uint32_t totalLength;  // elements
  uint32_t tileLength;   // elements per tile (a multiple of 32 bytes)
  uint32_t blockBytes;   // the 256-byte split unit
  uint32_t elementBytes;
};

REGISTER_TILING_DEFAULT(AddTilingData);

template <typename T>
class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}

  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddTilingData& tiling) {
    // Blocks of 256 bytes: blocks / cores each, the first `rest` cores one more; the last block may be partial.
    const uint32_t perBlock = tiling.blockBytes / tiling.elementBytes;
    const uint32_t blocks = (tiling.totalLength + perBlock - 1) / perBlock;
    const uint32_t cores = static_cast<uint32_t>(GetBlockNum());
    const uint32_t core = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t base = blocks / cores;
    const uint32_t rest = blocks % cores;
    const uint32_t myBlocks = base + (core < rest ? 1 : 0);
    const uint32_t firstBlock = core * base + (core < rest ? core : rest);
    start_ = firstBlock * perBlock;
    uint32_t end = (firstBlock + myBlocks) * perBlock;
    if (end > tiling.totalLength) end = tiling.totalLength;
    length_ = end > start_ ? end - start_ : 0;
    tileLength_ = tiling.tileLength;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start_, length_);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + start_, length_);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z) + start_, length_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(T));
  }

  __aicore__ inline void Process() {
    const uint32_t tiles = (length_ + tileLength_ - 1) / tileLength_;
    for (uint32_t i = 0; i < tiles; ++i) {
      const uint32_t count = i + 1 < tiles ? tileLength_ : length_ - i * tileLength_;
      CopyIn(i, count);
      Compute(count);
      CopyOut(i, count);
    }
  }

 private:
  // Whole 32-byte blocks go by DataCopy; a tail that is not goes by DataCopyPad.
  __aicore__ inline void CopyIn(uint32_t tile, uint32_t count) {
    LocalTensor<T> xLocal = inQueueX_.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY_.template AllocTensor<T>();
    if (count * sizeof(T) % 32 == 0) {
      DataCopy(xLocal, xGm_[tile * tileLength_], count);
      DataCopy(yLocal, yGm_[tile * tileLength_], count);
    } else {
      DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
      DataCopyPadExtParams<T> pad{false, 0, 0, 0};
      DataCopyPad(xLocal, xGm_[tile * tileLength_], params, pad);
      DataCopyPad(yLocal, yGm_[tile * tileLength_], params, pad);
    }
    inQueueX_.EnQue(xLocal);
    inQueueY_.EnQue(yLocal);
  }

  __aicore__ inline void Compute(uint32_t count) {
    LocalTensor<T> xLocal = inQueueX_.template DeQue<T>();
    LocalTensor<T> yLocal = inQueueY_.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ_.template AllocTensor<T>();
    Add(zLocal, xLocal, yLocal, count);
    outQueueZ_.template EnQue<T>(zLocal);
    inQueueX_.FreeTensor(xLocal);
    inQueueY_.FreeTensor(yLocal);
  }

  __aicore__ inline void CopyOut(uint32_t tile, uint32_t count) {
    LocalTensor<T> zLocal = outQueueZ_.template DeQue<T>();
    if (count * sizeof(T) % 32 == 0) {
      DataCopy(zGm_[tile * tileLength_], zLocal, count);
    } else {
      DataCopyPad(zGm_[tile * tileLength_], zLocal, DataCopyExtParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0});
    }
    outQueueZ_.FreeTensor(zLocal);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<T> xGm_, yGm_, zGm_;
  uint32_t start_ = 0;
  uint32_t length_ = 0;
  uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(tilingData, tiling);
  if (TILING_KEY_IS(1)) {
    KernelAdd<half> op;
    op.Init(x, y, z, tilingData);
    op.Process();
  } else if (TILING_KEY_IS(2)) {
    KernelAdd<float> op;
    op.Init(x, y, z, tilingData);
    op.Process();
  }
}

// The LeakyRelu API example: half, scalar 2, 512 elements, one core.
extern "C" __global__ __aicore__ void leaky_relu_example(GM_ADDR x, GM_ADDR y) {
  constexpr uint32_t kCount = 512;
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQueue;
  TQue<QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer(inQueue, 1, kCount * sizeof(half));
  pipe.InitBuffer(outQueue, 1, kCount * sizeof(half));
  GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), kCount);
  yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), kCount);

  LocalTensor<half> srcLocal = inQueue.AllocTensor<half>();
  DataCopy(srcLocal, xGm, kCount);
  inQueue.EnQue(srcLocal);

  LocalTensor<half> src = inQueue.DeQue<half>();
  LocalTensor<half> dstLocal = outQueue.AllocTensor<half>();
  half scalar = 2;
  LeakyRelu(dstLocal, src, scalar, kCount);
  PipeBarrier<PIPE_V>();
  outQueue.EnQue<half>(dstLocal);
  inQueue.FreeTensor(src);

  LocalTensor<half> dst = outQueue.DeQue<half>();
  // An explicit vector -> MTE3 handshake, as hand-written kernels do around scalar-written data.
  event_t eventId = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
  SetFlag<HardEvent::V_MTE3>(eventId);
  WaitFlag<HardEvent::V_MTE3>(eventId);
  DataCopy(yGm, dst, kCount);
  outQueue.FreeTensor(dst);
}

namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

uint8_t* ToGm(const std::vector<uint8_t>& bytes) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(bytes.size()));
  std::memcpy(gm, bytes.data(), bytes.size());
  return gm;
}

int RunAdd(const std::string& dtype, uint32_t n, uint32_t blockDim, uint32_t tile, const std::string& dir) {
  const uint32_t elementBytes = dtype == "half" ? 2 : 4;
  uint8_t* x = ToGm(ReadFile(dir + "/x.bin"));
  uint8_t* y = ToGm(ReadFile(dir + "/y.bin"));
  uint8_t* z = static_cast<uint8_t*>(GmAlloc(n * elementBytes));
  uint8_t* workspace = static_cast<uint8_t*>(GmAlloc(32));
  AddTilingData tilingData{n, tile, BLOCK_ELEMENTS_BYTES, elementBytes};
  uint8_t* tiling = static_cast<uint8_t*>(GmAlloc(sizeof(tilingData)));
  std::memcpy(tiling, &tilingData, sizeof(tilingData));
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(dtype == "half" ? 1 : 2);
  ICPU_RUN_KF(add_custom, blockDim, x, y, z, workspace, tiling);
  WriteFile(dir + "/z.bin", z, n * elementBytes);
  for (uint8_t* p : {x, y, z, workspace, tiling}) GmFree(p);
  return 0;
}

int RunLeaky(const std::string& dir) {
  uint8_t* x = ToGm(ReadFile(dir + "/x.bin"));
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(512 * sizeof(half)));
  ICPU_RUN_KF(leaky_relu_example, 1, x, y);
  WriteFile(dir + "/y.bin", y, 512 * sizeof(half));
  GmFree(x);
  GmFree(y);
  return 0;
}

int RunTraceApi() {
  std::vector<uint8_t> zeros(512 * sizeof(half), 0);
  uint8_t* x = ToGm(zeros);
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(zeros.size()));
  opgen_twin::ClearTraces();
  std::printf("before=%zu last_kernel='%s'\n", opgen_twin::AllLaunches().size(),
              opgen_twin::LastLaunch().kernel.c_str());
  ICPU_RUN_KF(leaky_relu_example, 1, x, y);
  ICPU_SET_TILING_KEY(7);
  ICPU_RUN_KF(leaky_relu_example, 1, x, y);
  const opgen_twin::LaunchTrace& last = opgen_twin::LastLaunch();
  const opgen_twin::CoreTrace total = last.Totals();
  std::printf("launches=%zu kernel=%s block_dim=%u tiling_key=%llu soc=%s status=%s\n",
              opgen_twin::AllLaunches().size(), last.kernel.c_str(), last.blockDim,
              static_cast<unsigned long long>(last.tilingKey), last.soc.c_str(), last.status.c_str());
  std::printf("gm_to_ub=%llu ub_to_gm=%llu ub_high_water=%llu leaky_calls=%llu leaky_elements=%llu\n",
              static_cast<unsigned long long>(total.gmToUbBytes), static_cast<unsigned long long>(total.ubToGmBytes),
              static_cast<unsigned long long>(total.ubHighWater),
              static_cast<unsigned long long>(total.vector.at("LeakyRelu").calls),
              static_cast<unsigned long long>(total.vector.at("LeakyRelu").elements));
  opgen_twin::ClearTraces();
  std::printf("after_clear=%zu\n", opgen_twin::AllLaunches().size());
  GmFree(x);
  GmFree(y);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "add" && argc == 7) {
    return RunAdd(argv[2], static_cast<uint32_t>(std::stoul(argv[3])), static_cast<uint32_t>(std::stoul(argv[4])),
                  static_cast<uint32_t>(std::stoul(argv[5])), argv[6]);
  }
  if (mode == "leaky" && argc == 3) return RunLeaky(argv[2]);
  if (mode == "trace_api") return RunTraceApi();
  std::fprintf(stderr, "usage: classic_kernels add|leaky|trace_api ...\n");
  return 2;
}
