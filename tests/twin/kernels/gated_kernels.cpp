// A hand-written gated kernel tiled as ops-nn tiles GLU on A2/A3: the input viewed as (rows, 2, ny), out = a * sigmoid(b)
// with a = x[r, 0, :] and b = x[r, 1, :].
//   ny == 1          one contiguous copy of 2 * rows elements, GatherMask pattern 1 (even: a) and 2 (odd: b);
//   ny <= chunk      several rows per tile, each half moved by one strided DataCopyPad (blockCount = rows,
//                    blockLen = ny elements, srcStride = ny elements in GM bytes, UB rows 32-byte aligned);
//   ny >  chunk      each half-row moved in chunks.
// half is computed in float (Cast, Sigmoid, Mul, Cast back with CAST_RINT), as A2/A3 kernels do.
//
// Usage:
//   gated_kernels glu half|float ROWS NY CHUNK BLOCK_DIM DIR   DIR/x.bin -> DIR/y.bin; prints the GM bytes moved
//                                                              and each core's last rsvdCnt (GatherMask path)
//   gated_kernels gather_user half|float COUNT MASK REPEATS SRC0_BLK SRC0_REP SRC1_REP DIR
//                                                              GatherMask with a user pattern in counter mode
//                                                              (MASK 0: normal mode): DIR/src.bin, DIR/pattern.bin
//                                                              -> DIR/dst.bin; prints rsvdCnt
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

struct GluTiling {
  int64_t rows;
  int64_t ny;
  int64_t chunk;  // elements of one half a tile holds (a multiple of 128)
  int64_t maxRowsPerTile;
};

constexpr int64_t kMaxBlockCount = 4095;

template <typename T>
class GatedKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR stats, const GluTiling& tiling) {
    tiling_ = tiling;
    const int64_t cores = GetBlockNum();
    const int64_t core = GetBlockIdx();
    firstRow_ = tiling.rows * core / cores;
    rowCount_ = tiling.rows * (core + 1) / cores - firstRow_;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), tiling.rows * 2 * tiling.ny);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), tiling.rows * tiling.ny);
    statsGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint64_t*>(stats) + core * 4, 4);
    const uint32_t bytes = static_cast<uint32_t>(tiling.chunk * sizeof(T));
    // The ny == 1 path copies both halves into inA (2 * chunk elements) and gathers into inB and tmp.
    pipe_.InitBuffer(inA_, 1, tiling.ny == 1 ? 2 * bytes : bytes);
    pipe_.InitBuffer(inB_, 1, bytes);
    pipe_.InitBuffer(out_, 1, bytes);
    pipe_.InitBuffer(gathered_, tiling.chunk * sizeof(float));  // a (ny == 1) or float scratch
    pipe_.InitBuffer(floatA_, tiling.chunk * sizeof(float));
    pipe_.InitBuffer(floatB_, tiling.chunk * sizeof(float));
  }

  __aicore__ inline void Process() {
    if (rowCount_ == 0) return;
    if (tiling_.ny == 1) {
      for (int64_t r = 0; r < rowCount_; r += tiling_.chunk) {
        SingleTile(firstRow_ + r, rowCount_ - r < tiling_.chunk ? rowCount_ - r : tiling_.chunk);
      }
    } else if (tiling_.ny <= tiling_.chunk) {
      const int64_t per = tiling_.maxRowsPerTile;
      for (int64_t r = 0; r < rowCount_; r += per) RowsTile(firstRow_ + r, rowCount_ - r < per ? rowCount_ - r : per);
    } else {
      for (int64_t r = firstRow_; r < firstRow_ + rowCount_; ++r) {
        for (int64_t c = 0; c < tiling_.ny; c += tiling_.chunk) {
          ChunkTile(r, c, tiling_.ny - c < tiling_.chunk ? tiling_.ny - c : tiling_.chunk);
        }
      }
    }
  }

 private:
  static constexpr int64_t Aligned(int64_t n) { return (n * sizeof(T) + 31) / 32 * 32 / sizeof(T); }

  // rows whole rows: each half one strided DataCopyPad, rows Aligned(ny) elements apart in UB.
  __aicore__ inline void RowsTile(int64_t row, int64_t rows) {
    const int64_t ny = tiling_.ny;
    const uint32_t len = static_cast<uint32_t>(ny * sizeof(T));
    const DataCopyExtParams in{static_cast<uint16_t>(rows), len, len, 0, 0};  // skip the other half in GM
    const DataCopyPadExtParams<T> pad{false, 0, 0, static_cast<T>(0)};
    LocalTensor<T> a = inA_.AllocTensor<T>();
    LocalTensor<T> b = inB_.AllocTensor<T>();
    DataCopyPad(a, xGm_[row * 2 * ny], in, pad);
    DataCopyPad(b, xGm_[row * 2 * ny + ny], in, pad);
    inA_.EnQue(a);
    inB_.EnQue(b);
    Compute(static_cast<int32_t>(rows * Aligned(ny)));
    LocalTensor<T> y = out_.DeQue<T>();
    DataCopyPad(yGm_[row * ny], y, DataCopyExtParams{static_cast<uint16_t>(rows), len, 0, 0, 0});
    out_.FreeTensor(y);
  }

  // count elements of row `row`'s halves from column `col`.
  __aicore__ inline void ChunkTile(int64_t row, int64_t col, int64_t count) {
    const int64_t ny = tiling_.ny;
    const DataCopyExtParams one{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
    const DataCopyPadExtParams<T> pad{false, 0, 0, static_cast<T>(0)};
    LocalTensor<T> a = inA_.AllocTensor<T>();
    LocalTensor<T> b = inB_.AllocTensor<T>();
    DataCopyPad(a, xGm_[row * 2 * ny + col], one, pad);
    DataCopyPad(b, xGm_[row * 2 * ny + ny + col], one, pad);
    inA_.EnQue(a);
    inB_.EnQue(b);
    Compute(static_cast<int32_t>(Aligned(count)));
    LocalTensor<T> y = out_.DeQue<T>();
    DataCopyPad(yGm_[row * ny + col], y, one);
    out_.FreeTensor(y);
  }

  // ny == 1: rows rows are 2 * rows contiguous elements; a and b interleave.
  __aicore__ inline void SingleTile(int64_t row, int64_t rows) {
    const DataCopyExtParams in{1, static_cast<uint32_t>(2 * rows * sizeof(T)), 0, 0, 0};
    LocalTensor<T> both = inA_.AllocTensor<T>();
    DataCopyPad(both, xGm_[row * 2], in, DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)});
    inA_.EnQue(both);
    both = inA_.DeQue<T>();
    LocalTensor<T> a = gathered_.Get<T>();
    LocalTensor<T> b = inB_.AllocTensor<T>();
    // Normal mode: whole 256-byte repeats of src0 (inA holds 2 * chunk elements, a multiple of 256 bytes).
    const uint16_t repeats = static_cast<uint16_t>((2 * rows * sizeof(T) + 255) / 256);
    uint64_t rsvdCnt = 0;
    GatherMask(a, both, 1, false, 0, {1, repeats, 8, 0}, rsvdCnt);
    statsGm_.SetValue(0, rsvdCnt);
    GatherMask(b, both, 2, false, 0, {1, repeats, 8, 0}, rsvdCnt);
    statsGm_.SetValue(1, rsvdCnt);
    PipeBarrier<PIPE_V>();
    inA_.FreeTensor(both);
    ComputeOn(a, b, static_cast<int32_t>(Aligned(rows)));
    inB_.FreeTensor(b);
    LocalTensor<T> y = out_.DeQue<T>();
    DataCopyPad(yGm_[row], y, DataCopyExtParams{1, static_cast<uint32_t>(rows * sizeof(T)), 0, 0, 0});
    out_.FreeTensor(y);
  }

  __aicore__ inline void Compute(int32_t count) {
    LocalTensor<T> a = inA_.DeQue<T>();
    LocalTensor<T> b = inB_.DeQue<T>();
    ComputeOn(a, b, count);
    inA_.FreeTensor(a);
    inB_.FreeTensor(b);
  }

  __aicore__ inline void ComputeOn(const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t count) {
    LocalTensor<T> y = out_.AllocTensor<T>();
    if constexpr (std::is_same<T, float>::value) {
      LocalTensor<float> s = floatA_.Get<float>();
      Sigmoid(s, b, static_cast<uint32_t>(count));
      PipeBarrier<PIPE_V>();
      Mul(y, a, s, count);
    } else {
      LocalTensor<float> af = floatA_.Get<float>();
      LocalTensor<float> bf = floatB_.Get<float>();
      Cast(af, a, RoundMode::CAST_NONE, count);
      Cast(bf, b, RoundMode::CAST_NONE, count);
      PipeBarrier<PIPE_V>();
      LocalTensor<float> s = gathered_.Get<float>();  // the ny == 1 path's a is already in af
      Sigmoid(s, bf, static_cast<uint32_t>(count));
      PipeBarrier<PIPE_V>();
      Mul(af, af, s, count);
      PipeBarrier<PIPE_V>();
      Cast(y, af, RoundMode::CAST_RINT, count);
    }
    out_.EnQue(y);
  }

  GluTiling tiling_{};
  int64_t firstRow_ = 0;
  int64_t rowCount_ = 0;
  TPipe pipe_;
  TQue<TPosition::VECIN, 1> inA_, inB_;
  TQue<TPosition::VECOUT, 1> out_;
  TBuf<TPosition::VECCALC> gathered_, floatA_, floatB_;
  GlobalTensor<T> xGm_, yGm_;
  GlobalTensor<uint64_t> statsGm_;
};

extern "C" __global__ __aicore__ void gated_glu(GM_ADDR x, GM_ADDR y, GM_ADDR stats, GM_ADDR workspace,
                                                GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA_WITH_STRUCT(GluTiling, tilingData, tiling);
  if (TILING_KEY_IS(1)) {
    GatedKernel<half> op;
    op.Init(x, y, stats, tilingData);
    op.Process();
  } else {
    GatedKernel<float> op;
    op.Init(x, y, stats, tilingData);
    op.Process();
  }
}

struct GatherTiling {
  uint32_t mask;  // 0: normal mode
  uint16_t repeats;
  uint8_t src0BlockStride;
  uint16_t src0RepeatStride;
  uint8_t src1RepeatStride;
  uint32_t srcElements;
  uint32_t patternBytes;
};

template <typename T, typename U>
__aicore__ inline void GatherUser(GM_ADDR src, GM_ADDR pattern, GM_ADDR dst, GM_ADDR count, const GatherTiling& t) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> srcBuf, patternBuf, dstBuf;
  pipe.InitBuffer(srcBuf, t.srcElements * sizeof(T));
  pipe.InitBuffer(patternBuf, t.patternBytes);
  pipe.InitBuffer(dstBuf, t.srcElements * sizeof(T));
  GlobalTensor<T> srcGm, dstGm;
  GlobalTensor<U> patternGm;
  GlobalTensor<uint64_t> countGm;
  srcGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(src), t.srcElements);
  dstGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dst), t.srcElements);
  patternGm.SetGlobalBuffer(reinterpret_cast<__gm__ U*>(pattern), t.patternBytes / sizeof(U));
  countGm.SetGlobalBuffer(reinterpret_cast<__gm__ uint64_t*>(count), 1);
  LocalTensor<T> s = srcBuf.Get<T>();
  LocalTensor<U> p = patternBuf.Get<U>();
  LocalTensor<T> d = dstBuf.Get<T>();
  DataCopy(s, srcGm, t.srcElements);
  DataCopy(p, patternGm, t.patternBytes / sizeof(U));
  Duplicate(d, static_cast<T>(-7), static_cast<int32_t>(t.srcElements));
  uint64_t rsvdCnt = 0;
  GatherMask(d, s, p, t.mask != 0, t.mask, GatherMaskParams{t.src0BlockStride, t.repeats, t.src0RepeatStride,
                                                             t.src1RepeatStride},
             rsvdCnt);
  countGm.SetValue(0, rsvdCnt);
  DataCopy(dstGm, d, t.srcElements);
}

extern "C" __global__ __aicore__ void gather_user(GM_ADDR src, GM_ADDR pattern, GM_ADDR dst, GM_ADDR count,
                                                  GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(GatherTiling, t, tiling);
  if (TILING_KEY_IS(1)) {
    GatherUser<half, uint16_t>(src, pattern, dst, count, t);
  } else {
    GatherUser<float, uint32_t>(src, pattern, dst, count, t);
  }
}

namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const uint8_t* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

uint8_t* ToGm(const std::vector<uint8_t>& bytes) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(bytes.size()));
  std::memcpy(gm, bytes.data(), bytes.size());
  return gm;
}

template <typename Tiling>
uint8_t* TilingGm(const Tiling& tiling) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(sizeof(tiling)));
  std::memcpy(gm, &tiling, sizeof(tiling));
  return gm;
}

int RunGlu(const std::string& dtype, int64_t rows, int64_t ny, int64_t chunk, uint32_t blockDim,
           const std::string& dir) {
  const size_t elem = dtype == "half" ? 2 : 4;
  int64_t rowsPerTile = chunk / ((ny * static_cast<int64_t>(elem) + 31) / 32 * 32 / static_cast<int64_t>(elem));
  if (rowsPerTile > kMaxBlockCount) rowsPerTile = kMaxBlockCount;
  const GluTiling tiling{rows, ny, chunk, rowsPerTile};
  uint8_t* x = ToGm(ReadFile(dir + "/x.bin"));
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(rows * ny * elem));
  uint8_t* stats = static_cast<uint8_t*>(GmAlloc(blockDim * 4 * sizeof(uint64_t)));
  std::memset(stats, 0, blockDim * 4 * sizeof(uint64_t));
  uint8_t* workspace = static_cast<uint8_t*>(GmAlloc(32));
  uint8_t* tilingGm = TilingGm(tiling);
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(dtype == "half" ? 1 : 2);
  ICPU_RUN_KF(gated_glu, blockDim, x, y, stats, workspace, tilingGm);
  WriteFile(dir + "/y.bin", y, rows * ny * elem);
  const opgen_twin::CoreTrace total = opgen_twin::LastLaunch().Totals();
  std::printf("gm_to_ub=%llu ub_to_gm=%llu\n", static_cast<unsigned long long>(total.gmToUbBytes),
              static_cast<unsigned long long>(total.ubToGmBytes));
  for (uint32_t c = 0; c < blockDim; ++c) {
    const uint64_t* s = reinterpret_cast<const uint64_t*>(stats) + c * 4;
    std::printf("core=%u rsvd_a=%llu rsvd_b=%llu\n", c, static_cast<unsigned long long>(s[0]),
                static_cast<unsigned long long>(s[1]));
  }
  for (uint8_t* p : {x, y, stats, workspace, tilingGm}) GmFree(p);
  return 0;
}

int RunGatherUser(char** argv) {
  const std::string dtype = argv[2];
  const size_t elem = dtype == "half" ? 2 : 4;
  const std::string dir = argv[9];
  std::vector<uint8_t> src = ReadFile(dir + "/src.bin");
  std::vector<uint8_t> pattern = ReadFile(dir + "/pattern.bin");
  GatherTiling t{};
  t.mask = static_cast<uint32_t>(std::stoul(argv[4]));
  t.repeats = static_cast<uint16_t>(std::stoul(argv[5]));
  t.src0BlockStride = static_cast<uint8_t>(std::stoul(argv[6]));
  t.src0RepeatStride = static_cast<uint16_t>(std::stoul(argv[7]));
  t.src1RepeatStride = static_cast<uint8_t>(std::stoul(argv[8]));
  t.srcElements = static_cast<uint32_t>(src.size() / elem);
  t.patternBytes = static_cast<uint32_t>(pattern.size());
  (void)argv[3];
  uint8_t* srcGm = ToGm(src);
  uint8_t* patternGm = ToGm(pattern);
  uint8_t* dstGm = static_cast<uint8_t*>(GmAlloc(src.size()));
  uint8_t* countGm = static_cast<uint8_t*>(GmAlloc(sizeof(uint64_t)));
  uint8_t* tilingGm = TilingGm(t);
  ICPU_SET_TILING_KEY(dtype == "half" ? 1 : 2);
  ICPU_RUN_KF(gather_user, 1, srcGm, patternGm, dstGm, countGm, tilingGm);
  WriteFile(dir + "/dst.bin", dstGm, src.size());
  uint64_t count = 0;
  std::memcpy(&count, countGm, sizeof(count));
  std::printf("rsvdCnt=%llu\n", static_cast<unsigned long long>(count));
  for (uint8_t* p : {srcGm, patternGm, dstGm, countGm, tilingGm}) GmFree(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "glu" && argc == 8) {
    return RunGlu(argv[2], std::stoll(argv[3]), std::stoll(argv[4]), std::stoll(argv[5]),
                  static_cast<uint32_t>(std::stoul(argv[6])), argv[7]);
  }
  if (mode == "gather_user" && argc == 10) return RunGatherUser(argv);
  std::fprintf(stderr, "usage: gated_kernels glu|gather_user ...\n");
  return 2;
}
