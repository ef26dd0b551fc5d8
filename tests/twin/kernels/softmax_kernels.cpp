// A hand-written softmax / log-softmax kernel for A2/A3, the design opgen's generated softmax family will follow.
// The input is viewed as (a1, r, a0) and reduced over r; everything is computed in float (half is Cast on load
// and Cast back with CAST_RINT on store).
//
// Paths (SoftmaxTiling::path, chosen by the host tiling below):
//   kRowsFit      a0 == 1, a row fits in a tile: as many whole rows per tile as fit, moved by one DataCopyPad
//                 (rows 32-byte aligned in UB); per row max, exp(x - max), sum, then the output.
//                 GM: x read once, y written once.
//   kRowChunks    a0 == 1, a row does not fit: the row in chunks of `tile` elements, three passes per row:
//                 1. the max over the chunks; 2. the sum of exp(x - max) over the chunks; 3. the output.
//                 GM: x read three times, y written once.
//   kColumnsFit   a0 > 1: no transpose through GM. A unit is (one a1 index, one tile of a0Tile columns); its r
//                 rows are loaded by strided DataCopyPad (a0 elements apart in GM), reduced along r with
//                 elementwise Max / Add between rows. GM: x read once, y written once.
//   kColumnChunks a0 > 1, r rows of a column tile do not fit: the same three passes over chunks of rChunk rows.
// Units (rows for a0 == 1, (a1, column tile) pairs otherwise) are split evenly across cores.
//
// Order of the sums (so results do not depend on the core count, the tile size or the path):
//   a0 == 1: the row is cut into groups of kSumWidth = 64 elements from its first element (a constant of the
//            algorithm, one 256-byte float repeat; every chunk is a multiple of it). Each group is summed by
//            WholeReduceSum (its fixed lane tree; the last group's missing lanes count as +0). The group sums
//            s_0 .. s_{n-1} are then added pairwise in a binary counter: s_k joins the block before it while
//            bit j of k is set, so the tree is that of aligned power-of-two blocks, and at the end the blocks
//            left (one per set bit of n) are added from the last to the first. kRowsFit and kRowChunks push
//            the same group sums in the same order, so they agree bit for bit.
//   a0 > 1:  per column the same binary counter over the rows 0 .. r-1 (each row one leaf), done with vector
//            Add on rows of the column tile. The max is folded row after row (Max is exact).
//
// Usage:
//   softmax_kernels run half|float A1 R A0 CORES DIR [log=0|1] [tile=N] [a0_tile=N] [r_chunk=N] [ub=BYTES]
//       DIR/x.bin -> DIR/y.bin; prints the tiling, the GM bytes moved and the UB high-water mark
//   softmax_kernels tiling half|float A1 R A0 [same keys]      prints the tiling only
// tile (a0 == 1): elements of a tile buffer (a multiple of 64; 0: as many as the UB holds). a0_tile, r_chunk
// (a0 > 1): columns per unit and rows per chunk (0: from the UB). ub: the UB budget (0: the SoC's usable UB).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

enum SoftmaxPath : int64_t { kRowsFit = 0, kRowChunks = 1, kColumnsFit = 2, kColumnChunks = 3 };

struct SoftmaxTiling {
  int64_t a1;
  int64_t r;
  int64_t a0;
  int64_t path;         // SoftmaxPath
  int64_t logSoftmax;   // 0: softmax, 1: log-softmax
  int64_t tile;         // elements of each tile buffer
  int64_t rowsPerTile;  // kRowsFit: whole rows per tile (at most 4095, one DataCopyPad)
  int64_t a0Tile;       // a0 > 1: columns per unit
  int64_t rChunk;       // a0 > 1: rows of r per load (r when kColumnsFit)
  int64_t levels;       // a0 > 1: slots of the binary counter (bits of r)
};

constexpr int64_t kSumWidth = 64;        // elements per group sum: one 256-byte repeat of float
constexpr int64_t kMaxBlockCount = 4095;  // rows one DataCopyPad moves
constexpr int64_t kMaxRepeat = 255;      // repeats of one WholeReduceSum
constexpr int64_t kScalarFloats = 16;    // the scalar exchange buffer (ReduceMax dst, Ln of the sum)

// Elements of T in a 32-byte aligned UB row of n elements.
template <typename T>
constexpr int64_t AlignedRow(int64_t n) {
  return (n * static_cast<int64_t>(sizeof(T)) + 31) / 32 * 32 / static_cast<int64_t>(sizeof(T));
}

constexpr int64_t CeilTo(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// Floats of the per-chunk group sums and of ReduceMax's sharedTmpBuffer (its documented minimum without
// calIndex: 2 * (count / 64) elements rounded up to a block) for chunks of `tile` elements.
constexpr int64_t GroupSumFloats(int64_t tile) { return CeilTo((tile + kSumWidth - 1) / kSumWidth, 8); }
constexpr int64_t MaxTmpFloats(int64_t tile) { return CeilTo(2 * (tile / kSumWidth > 0 ? tile / kSumWidth : 1), 8); }

// Pairwise sum of a sequence pushed in order (the binary counter of the header comment).
class PairwiseSum {
 public:
  __aicore__ inline void Push(float value) {
    uint64_t k = count_++;
    int level = 0;
    for (; (k & 1u) != 0; k >>= 1, ++level) value = blocks_[level] + value;
    blocks_[level] = value;
  }
  __aicore__ inline float Total() const {
    float total = 0.0f;
    bool any = false;
    for (int level = 0; level < 64; ++level) {
      if (((count_ >> level) & 1u) == 0) continue;
      total = any ? blocks_[level] + total : blocks_[level];
      any = true;
    }
    return total;
  }

 private:
  float blocks_[64] = {};
  uint64_t count_ = 0;
};

template <typename T>
class SoftmaxKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& tiling) {
    t_ = tiling;
    const int64_t total = t_.a1 * t_.r * t_.a0;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x), total);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), total);
    const uint32_t tileBytes = static_cast<uint32_t>(t_.tile * sizeof(T));
    pipe_.InitBuffer(inQ_, 1, tileBytes);
    pipe_.InitBuffer(outQ_, 1, tileBytes);
    if constexpr (!std::is_same<T, float>::value) pipe_.InitBuffer(xfBuf_, t_.tile * sizeof(float));
    pipe_.InitBuffer(eBuf_, t_.tile * sizeof(float));
    if (t_.a0 == 1) {
      pipe_.InitBuffer(groupBuf_, GroupSumFloats(t_.tile) * sizeof(float));
      pipe_.InitBuffer(maxTmpBuf_, MaxTmpFloats(t_.tile) * sizeof(float));
      pipe_.InitBuffer(scalarBuf_, kScalarFloats * sizeof(float));
    } else {
      pitch_ = AlignedRow<T>(t_.a0Tile);
      // max, then 1 / sum or ln(sum), scratch, and the binary counter's slots: one tile row each.
      pipe_.InitBuffer(columnBuf_, (3 + t_.levels) * pitch_ * sizeof(float));
    }
  }

  __aicore__ inline void Process() {
    const int64_t cores = GetBlockNum(), core = GetBlockIdx();
    if (t_.a0 == 1) {
      const int64_t first = t_.a1 * core / cores, end = t_.a1 * (core + 1) / cores;
      if (t_.path == kRowsFit) {
        for (int64_t row = first; row < end; row += t_.rowsPerTile) {
          RowsTile(row, end - row < t_.rowsPerTile ? end - row : t_.rowsPerTile);
        }
      } else {
        for (int64_t row = first; row < end; ++row) ChunkedRow(row);
      }
      return;
    }
    const int64_t tilesPerRow = (t_.a0 + t_.a0Tile - 1) / t_.a0Tile;
    const int64_t units = t_.a1 * tilesPerRow;
    for (int64_t u = units * core / cores; u < units * (core + 1) / cores; ++u) {
      const int64_t col = u % tilesPerRow * t_.a0Tile;
      ColumnTile(u / tilesPerRow, col, t_.a0 - col < t_.a0Tile ? t_.a0 - col : t_.a0Tile);
    }
  }

 private:
  static constexpr bool kFloat = std::is_same<T, float>::value;

  // --- moving data: GM -> UB as float, float -> UB -> GM ---

  // `rows` blocks of `len` elements, `gap` elements apart in GM, `pitch` elements apart in UB (a 32-byte
  // multiple); returns the queue tensor (freed by the caller) and sets *xf to its float view (the tensor itself,
  // or its Cast).
  __aicore__ inline LocalTensor<T> Load(int64_t offset, int64_t rows, int64_t len, int64_t gap, int64_t pitch,
                                        LocalTensor<float>* xf) {
    LocalTensor<T> x = inQ_.AllocTensor<T>();
    const DataCopyPadExtParams<T> pad{false, 0, 0, static_cast<T>(0)};
    const uint32_t skip = static_cast<uint32_t>((pitch - AlignedRow<T>(len)) * sizeof(T) / 32);  // UB blocks
    for (int64_t done = 0; done < rows; done += kMaxBlockCount) {
      const int64_t n = rows - done < kMaxBlockCount ? rows - done : kMaxBlockCount;
      const DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(T)),
                                     static_cast<uint32_t>(gap * sizeof(T)), skip, 0};
      DataCopyPad(x[done * pitch], xGm_[offset + done * (len + gap)], params, pad);
    }
    inQ_.EnQue(x);
    x = inQ_.DeQue<T>();
    if constexpr (kFloat) {
      *xf = x;
    } else {
      *xf = xfBuf_.Get<float>();
      Cast(*xf, x, RoundMode::CAST_NONE, static_cast<uint32_t>(rows * pitch));
      PipeBarrier<PIPE_V>();
    }
    return x;
  }

  // Where the float result of a tile goes: the output tensor itself (float), or `inPlace` (half, Cast later).
  __aicore__ inline LocalTensor<float> ResultView(const LocalTensor<T>& y, const LocalTensor<float>& inPlace) {
    if constexpr (kFloat) {
      (void)inPlace;
      return y;
    } else {
      (void)y;
      return inPlace;
    }
  }

  __aicore__ inline void Store(int64_t offset, LocalTensor<T>& y, const LocalTensor<float>& result, int64_t rows,
                               int64_t len, int64_t gap, int64_t pitch) {
    if constexpr (!kFloat) {
      PipeBarrier<PIPE_V>();
      Cast(y, result, RoundMode::CAST_RINT, static_cast<uint32_t>(rows * pitch));
    } else {
      (void)result;
    }
    outQ_.EnQue(y);
    y = outQ_.DeQue<T>();
    const uint32_t skip = static_cast<uint32_t>((pitch - AlignedRow<T>(len)) * sizeof(T) / 32);  // UB blocks
    for (int64_t done = 0; done < rows; done += kMaxBlockCount) {
      const int64_t n = rows - done < kMaxBlockCount ? rows - done : kMaxBlockCount;
      DataCopyPad(yGm_[offset + done * (len + gap)], y[done * pitch],
                  DataCopyExtParams{static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(T)), skip,
                                    static_cast<uint32_t>(gap * sizeof(T)), 0});
    }
    outQ_.FreeTensor(y);
  }

  // The scalar unit reads what the vector unit wrote only after a V_S flag.
  __aicore__ inline void WaitVector() {
    const TEventID id = pipe_.FetchEventID(HardEvent::V_S);
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
  }

  // --- a0 == 1: one row (or one chunk of a row) of n elements in float ---

  __aicore__ inline float SegmentMax(const LocalTensor<float>& x, int64_t n) {
    LocalTensor<float> scalar = scalarBuf_.Get<float>();
    ReduceMax(scalar, x, maxTmpBuf_.Get<float>(), static_cast<int32_t>(n));
    WaitVector();
    return scalar.GetValue(0);
  }

  // Pushes the group sums of e[0, n) (n a multiple of kSumWidth except for a row's last segment).
  __aicore__ inline void PushGroupSums(const LocalTensor<float>& e, int64_t n, PairwiseSum& sum) {
    LocalTensor<float> groups = groupBuf_.Get<float>();
    const int64_t whole = n / kSumWidth, tail = n % kSumWidth;
    for (int64_t g = 0; g < whole; g += kMaxRepeat) {
      const int64_t repeats = whole - g < kMaxRepeat ? whole - g : kMaxRepeat;
      WholeReduceSum(groups[g], e[g * kSumWidth], static_cast<int32_t>(kSumWidth), static_cast<int32_t>(repeats),
                     1, 1, 8);
    }
    if (tail != 0) WholeReduceSum(groups[whole], e[whole * kSumWidth], static_cast<int32_t>(tail), 1, 1, 1, 8);
    WaitVector();
    for (int64_t g = 0; g < whole + (tail != 0 ? 1 : 0); ++g) sum.Push(groups.GetValue(static_cast<uint32_t>(g)));
  }

  // What the output pass needs from the sum: 1 / sum (softmax) or ln(sum) (log-softmax, computed by Ln).
  __aicore__ inline float Finisher(float sum) {
    if (t_.logSoftmax == 0) return 1.0f / sum;
    LocalTensor<float> scalar = scalarBuf_.Get<float>();
    scalar.SetValue(0, sum);
    const TEventID id = pipe_.FetchEventID(HardEvent::S_V);
    SetFlag<HardEvent::S_V>(id);
    WaitFlag<HardEvent::S_V>(id);
    Ln(scalar, scalar, 1);
    WaitVector();
    return scalar.GetValue(0);
  }

  // x -= max in place; with `exp`, e = exp(x - max).
  __aicore__ inline void Shift(const LocalTensor<float>& x, const LocalTensor<float>& e, int64_t n, float max,
                               bool exp) {
    Adds(x, x, -max, static_cast<int32_t>(n));
    PipeBarrier<PIPE_V>();
    if (exp) {
      Exp(e, x, static_cast<int32_t>(n));
      PipeBarrier<PIPE_V>();
    }
  }

  // out = e * (1 / sum) (softmax) or x - ln(sum) (log-softmax), x already shifted.
  __aicore__ inline void SegmentOutput(const LocalTensor<float>& out, const LocalTensor<float>& x,
                                       const LocalTensor<float>& e, int64_t n, float finisher) {
    if (t_.logSoftmax == 0) {
      Muls(out, e, finisher, static_cast<int32_t>(n));
    } else {
      Adds(out, x, -finisher, static_cast<int32_t>(n));
    }
  }

  // kRowsFit: `rows` whole rows from `row`.
  __aicore__ inline void RowsTile(int64_t row, int64_t rows) {
    const int64_t r = t_.r, pitch = AlignedRow<T>(r);
    LocalTensor<float> xf;
    LocalTensor<T> x = Load(row * r, rows, r, 0, pitch, &xf);
    LocalTensor<float> e = eBuf_.Get<float>();
    LocalTensor<T> y = outQ_.AllocTensor<T>();
    LocalTensor<float> out = ResultView(y, t_.logSoftmax == 0 ? e : xf);
    for (int64_t i = 0; i < rows; ++i) {
      const LocalTensor<float> xi = xf[i * pitch], ei = e[i * pitch];
      Shift(xi, ei, r, SegmentMax(xi, r), true);
      PairwiseSum sum;
      PushGroupSums(ei, r, sum);
      SegmentOutput(out[i * pitch], xi, ei, r, Finisher(sum.Total()));
    }
    inQ_.FreeTensor(x);
    Store(row * r, y, out, rows, r, 0, pitch);
  }

  // kRowChunks: one row in chunks of t_.tile elements, three passes over x.
  __aicore__ inline void ChunkedRow(int64_t row) {
    const int64_t r = t_.r, base = row * r;
    LocalTensor<float> e = eBuf_.Get<float>();
    float max = 0.0f;
    for (int64_t c = 0; c < r; c += t_.tile) {  // pass 1: the max (the first NaN, else the first largest)
      const int64_t n = r - c < t_.tile ? r - c : t_.tile;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + c, 1, n, 0, AlignedRow<T>(n), &xf);
      const float m = SegmentMax(xf, n);
      inQ_.FreeTensor(x);
      const bool maxIsNan = max != max, mIsNan = m != m;
      if (c == 0 || (!maxIsNan && (mIsNan || m > max))) max = m;
    }
    PairwiseSum sum;
    for (int64_t c = 0; c < r; c += t_.tile) {  // pass 2: the sum of exp(x - max)
      const int64_t n = r - c < t_.tile ? r - c : t_.tile;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + c, 1, n, 0, AlignedRow<T>(n), &xf);
      Shift(xf, e, n, max, true);
      inQ_.FreeTensor(x);
      PushGroupSums(e, n, sum);
    }
    const float finisher = Finisher(sum.Total());
    for (int64_t c = 0; c < r; c += t_.tile) {  // pass 3: the output
      const int64_t n = r - c < t_.tile ? r - c : t_.tile;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + c, 1, n, 0, AlignedRow<T>(n), &xf);
      Shift(xf, e, n, max, t_.logSoftmax == 0);
      LocalTensor<T> y = outQ_.AllocTensor<T>();
      LocalTensor<float> out = ResultView(y, t_.logSoftmax == 0 ? e : xf);
      SegmentOutput(out, xf, e, n, finisher);
      inQ_.FreeTensor(x);
      Store(base + c, y, out, 1, n, 0, AlignedRow<T>(n));
    }
  }

  // --- a0 > 1: a unit of `cols` columns from `col` of slice b, rows of pitch_ floats in UB ---

  __aicore__ inline LocalTensor<float> Column(int64_t slot) { return columnBuf_.Get<float>()[slot * pitch_]; }

  // Folds rows [0, rows) of xf into the running max (slot 0), row after row.
  __aicore__ inline void FoldMax(const LocalTensor<float>& xf, int64_t rows, bool first) {
    LocalTensor<float> max = Column(0);
    const int32_t n = static_cast<int32_t>(pitch_);
    for (int64_t i = 0; i < rows; ++i) {
      if (first && i == 0) {
        Muls(max, xf, 1.0f, n);  // an exact copy
      } else {
        Max(max, max, xf[i * pitch_], n);
      }
      PipeBarrier<PIPE_V>();
    }
  }

  // Pushes rows [0, rows) of e as leaves number pushed, pushed + 1, ... of the column-wise binary counter.
  __aicore__ inline void PushRows(const LocalTensor<float>& e, int64_t rows, int64_t& pushed) {
    const int32_t n = static_cast<int32_t>(pitch_);
    for (int64_t i = 0; i < rows; ++i) {
      uint64_t k = static_cast<uint64_t>(pushed++);
      LocalTensor<float> carry = e[i * pitch_];
      int64_t level = 0;
      for (; (k & 1u) != 0; k >>= 1, ++level) {
        LocalTensor<float> block = Column(3 + level);
        Add(block, block, carry, n);
        PipeBarrier<PIPE_V>();
        carry = block;
      }
      Muls(Column(3 + level), carry, 1.0f, n);
      PipeBarrier<PIPE_V>();
    }
  }

  // The counter's blocks from the last to the first into slot 1, then slot 1 = 1 / sum or ln(sum).
  __aicore__ inline void FinishColumns(int64_t pushed) {
    LocalTensor<float> total = Column(1);
    const int32_t n = static_cast<int32_t>(pitch_);
    bool any = false;
    for (int64_t level = 0; level < t_.levels; ++level) {
      if (((static_cast<uint64_t>(pushed) >> level) & 1u) == 0) continue;
      if (any) {
        Add(total, Column(3 + level), total, n);
      } else {
        Muls(total, Column(3 + level), 1.0f, n);
      }
      any = true;
      PipeBarrier<PIPE_V>();
    }
    if (t_.logSoftmax == 0) {
      LocalTensor<float> one = Column(2);
      Duplicate(one, 1.0f, n);
      PipeBarrier<PIPE_V>();
      Div(total, one, total, n);
    } else {
      Ln(total, total, n);
    }
    PipeBarrier<PIPE_V>();
  }

  // x - max in place, row by row; with `exp`, e = exp(x - max) over all rows.
  __aicore__ inline void ShiftRows(const LocalTensor<float>& xf, const LocalTensor<float>& e, int64_t rows, bool exp) {
    for (int64_t i = 0; i < rows; ++i) Sub(xf[i * pitch_], xf[i * pitch_], Column(0), static_cast<int32_t>(pitch_));
    PipeBarrier<PIPE_V>();
    if (exp) {
      Exp(e, xf, static_cast<int32_t>(rows * pitch_));
      PipeBarrier<PIPE_V>();
    }
  }

  // The output of rows whose xf is already shifted (and e = exp(xf) for softmax).
  __aicore__ inline void ColumnOutput(const LocalTensor<float>& out, const LocalTensor<float>& xf,
                                      const LocalTensor<float>& e, int64_t rows) {
    for (int64_t i = 0; i < rows; ++i) {
      if (t_.logSoftmax == 0) {
        Mul(out[i * pitch_], e[i * pitch_], Column(1), static_cast<int32_t>(pitch_));
      } else {
        Sub(out[i * pitch_], xf[i * pitch_], Column(1), static_cast<int32_t>(pitch_));
      }
    }
  }

  __aicore__ inline void ColumnTile(int64_t b, int64_t col, int64_t cols) {
    const int64_t r = t_.r, base = b * r * t_.a0 + col, gap = t_.a0 - cols;
    LocalTensor<float> e = eBuf_.Get<float>();
    int64_t pushed = 0;
    if (t_.path == kColumnsFit) {  // one load: max, sum and output from UB
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base, r, cols, gap, pitch_, &xf);
      FoldMax(xf, r, true);
      ShiftRows(xf, e, r, true);
      PushRows(e, r, pushed);
      FinishColumns(pushed);
      LocalTensor<T> y = outQ_.AllocTensor<T>();
      LocalTensor<float> out = ResultView(y, t_.logSoftmax == 0 ? e : xf);
      ColumnOutput(out, xf, e, r);
      inQ_.FreeTensor(x);
      Store(base, y, out, r, cols, gap, pitch_);
      return;
    }
    const int64_t step = t_.rChunk;
    for (int64_t i = 0; i < r; i += step) {  // pass 1: the max
      const int64_t rows = r - i < step ? r - i : step;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + i * t_.a0, rows, cols, gap, pitch_, &xf);
      FoldMax(xf, rows, i == 0);
      inQ_.FreeTensor(x);
    }
    for (int64_t i = 0; i < r; i += step) {  // pass 2: the sum of exp(x - max)
      const int64_t rows = r - i < step ? r - i : step;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + i * t_.a0, rows, cols, gap, pitch_, &xf);
      ShiftRows(xf, e, rows, true);
      PushRows(e, rows, pushed);
      inQ_.FreeTensor(x);
    }
    FinishColumns(pushed);
    for (int64_t i = 0; i < r; i += step) {  // pass 3: the output
      const int64_t rows = r - i < step ? r - i : step;
      LocalTensor<float> xf;
      LocalTensor<T> x = Load(base + i * t_.a0, rows, cols, gap, pitch_, &xf);
      ShiftRows(xf, e, rows, t_.logSoftmax == 0);
      LocalTensor<T> y = outQ_.AllocTensor<T>();
      LocalTensor<float> out = ResultView(y, t_.logSoftmax == 0 ? e : xf);
      ColumnOutput(out, xf, e, rows);
      inQ_.FreeTensor(x);
      Store(base + i * t_.a0, y, out, rows, cols, gap, pitch_);
    }
  }

  SoftmaxTiling t_{};
  int64_t pitch_ = 0;
  TPipe pipe_;
  TQue<TPosition::VECIN, 1> inQ_;
  TQue<TPosition::VECOUT, 1> outQ_;
  TBuf<TPosition::VECCALC> xfBuf_, eBuf_, groupBuf_, maxTmpBuf_, scalarBuf_, columnBuf_;
  GlobalTensor<T> xGm_, yGm_;
};

extern "C" __global__ __aicore__ void softmax_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA_WITH_STRUCT(SoftmaxTiling, tilingData, tiling);
  if (TILING_KEY_IS(1)) {
    SoftmaxKernel<half> op;
    op.Init(x, y, tilingData);
    op.Process();
  } else {
    SoftmaxKernel<float> op;
    op.Init(x, y, tilingData);
    op.Process();
  }
}

// --- host side: the tiling, and the program around the launch ---
namespace {

constexpr int64_t kQueueSlack = 32;  // each InitBuffer rounds up to 32 bytes

int64_t BitLength(int64_t n) {
  int64_t bits = 0;
  for (; n > 0; n >>= 1) ++bits;
  return bits;
}

// UB bytes the kernel's InitBuffer calls take for `t` (elem: sizeof the input type).
int64_t UbBytes(const SoftmaxTiling& t, int64_t elem) {
  int64_t bytes = 2 * CeilTo(t.tile * elem, 32) + 4 * t.tile * (elem == 2 ? 2 : 1);
  if (t.a0 == 1) return bytes + 4 * (GroupSumFloats(t.tile) + MaxTmpFloats(t.tile) + kScalarFloats);
  const int64_t pitch = elem == 2 ? AlignedRow<half>(t.a0Tile) : AlignedRow<float>(t.a0Tile);
  return bytes + 4 * (3 + t.levels) * pitch;
}

// The tiling a generated op_host would compute. Tile buffers: input and output in T, the float copy (half
// only) and exp(x - max) in float: `perElement` bytes per element of a tile.
SoftmaxTiling MakeTiling(int64_t elem, int64_t a1, int64_t r, int64_t a0, std::map<std::string, int64_t> keys) {
  SoftmaxTiling t{};
  t.a1 = a1;
  t.r = r;
  t.a0 = a0;
  t.logSoftmax = keys["log"];
  const int64_t ub = keys["ub"] > 0 ? keys["ub"] : static_cast<int64_t>(opgen_twin::CurrentSoc().ubUsableBytes);
  const int64_t perElement = 2 * elem + 4 + (elem == 2 ? 4 : 0);
  const int64_t aligned = elem == 2 ? AlignedRow<half>(r) : AlignedRow<float>(r);
  if (a0 == 1) {
    // The group sums and ReduceMax's tmp add 3 floats per 64 elements.
    t.tile = keys["tile"] > 0 ? keys["tile"]
                              : (ub - 4 * kScalarFloats - 8 * kQueueSlack) * kSumWidth / (perElement * kSumWidth + 12) /
                                    kSumWidth * kSumWidth;
    if (aligned <= t.tile) {
      t.path = kRowsFit;
      t.rowsPerTile = t.tile / aligned < kMaxBlockCount ? t.tile / aligned : kMaxBlockCount;
    } else {
      t.path = kRowChunks;
    }
    return t;
  }
  t.levels = BitLength(r);
  const int64_t unit = elem == 2 ? 16 : 8;  // columns per 32 bytes of T
  const int64_t perColumn = r * perElement + 4 * (3 + t.levels);
  if (keys["a0_tile"] > 0) {
    t.a0Tile = keys["a0_tile"];
  } else {
    const int64_t fit = (ub - 8 * kQueueSlack) / perColumn / unit * unit;  // columns whose r rows all fit
    t.a0Tile = fit >= a0 ? a0 : (fit >= unit ? fit : (a0 < 64 ? a0 : 64));
  }
  const int64_t pitch = elem == 2 ? AlignedRow<half>(t.a0Tile) : AlignedRow<float>(t.a0Tile);
  if (keys["r_chunk"] > 0) {
    t.rChunk = keys["r_chunk"] < r ? keys["r_chunk"] : r;
  } else {
    const int64_t rows = (ub - 8 * kQueueSlack - 4 * (3 + t.levels) * pitch) / (pitch * perElement);
    t.rChunk = rows < r ? rows : r;
  }
  t.path = t.rChunk >= r ? kColumnsFit : kColumnChunks;
  t.tile = t.rChunk * pitch;
  return t;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const uint8_t* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

const char* PathName(int64_t path) {
  static const char* const kNames[] = {"rows_fit", "row_chunks", "columns_fit", "column_chunks"};
  return kNames[path];
}

void PrintTiling(const SoftmaxTiling& t, int64_t elem) {
  std::printf("path=%s tile=%lld rows_per_tile=%lld a0_tile=%lld r_chunk=%lld levels=%lld ub_planned=%lld\n",
              PathName(t.path), static_cast<long long>(t.tile), static_cast<long long>(t.rowsPerTile),
              static_cast<long long>(t.a0Tile), static_cast<long long>(t.rChunk), static_cast<long long>(t.levels),
              static_cast<long long>(UbBytes(t, elem)));
}

int Run(const SoftmaxTiling& tiling, int64_t elem, uint32_t cores, const std::string& dir) {
  const size_t bytes = static_cast<size_t>(tiling.a1 * tiling.r * tiling.a0 * elem);
  const std::vector<uint8_t> input = ReadFile(dir + "/x.bin");
  if (input.size() != bytes) {
    std::fprintf(stderr, "x.bin has %zu bytes, the shape needs %zu\n", input.size(), bytes);
    return 2;
  }
  uint8_t* x = static_cast<uint8_t*>(GmAlloc(bytes));
  std::memcpy(x, input.data(), bytes);
  uint8_t* y = static_cast<uint8_t*>(GmAlloc(bytes));
  uint8_t* workspace = static_cast<uint8_t*>(GmAlloc(32));
  uint8_t* tilingGm = static_cast<uint8_t*>(GmAlloc(sizeof(tiling)));
  std::memcpy(tilingGm, &tiling, sizeof(tiling));
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(elem == 2 ? 1 : 2);
  ICPU_RUN_KF(softmax_kernel, cores, x, y, workspace, tilingGm);
  WriteFile(dir + "/y.bin", y, bytes);
  const opgen_twin::CoreTrace total = opgen_twin::LastLaunch().Totals();
  std::printf("gm_to_ub=%llu ub_to_gm=%llu ub_high_water=%llu\n", static_cast<unsigned long long>(total.gmToUbBytes),
              static_cast<unsigned long long>(total.ubToGmBytes), static_cast<unsigned long long>(total.ubHighWater));
  for (uint8_t* p : {x, y, workspace, tilingGm}) GmFree(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int first_key = mode == "run" ? 8 : 6;
  if ((mode != "run" && mode != "tiling") || argc < first_key) {
    std::fprintf(stderr, "usage: softmax_kernels run|tiling half|float A1 R A0 [CORES DIR] [key=value ...]\n");
    return 2;
  }
  const int64_t elem = std::string(argv[2]) == "half" ? 2 : 4;
  std::map<std::string, int64_t> keys;
  for (int i = first_key; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    keys[arg.substr(0, eq)] = std::stoll(arg.substr(eq + 1));
  }
  if (keys["tile"] % kSumWidth != 0) {  // a chunk must hold whole groups of the fixed sum order
    std::fprintf(stderr, "tile=%lld is not a multiple of %lld\n", static_cast<long long>(keys["tile"]),
                 static_cast<long long>(kSumWidth));
    return 2;
  }
  const SoftmaxTiling tiling = MakeTiling(elem, std::stoll(argv[3]), std::stoll(argv[4]), std::stoll(argv[5]), keys);
  PrintTiling(tiling, elem);
  if (mode == "tiling") return 0;
  return Run(tiling, elem, static_cast<uint32_t>(std::stoul(argv[6])), argv[7]);
}
