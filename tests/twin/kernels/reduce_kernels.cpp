// One small kernel per reduction API call (WholeReduceMax/Sum, BlockReduceMax/Sum, PairReduceSum, ReduceMax/Sum
// level 0 and level 2), its arguments taken from the command line, for comparison with numpy models and for the
// documented limits.
//
// Usage: reduce_kernels API half|float DIR [key=value ...]
//   API: WholeReduceMax WholeReduceSum BlockReduceMax BlockReduceSum PairReduceSum ReduceMax0 ReduceSum0
//        ReduceMax2 ReduceSum2 (0: mask + repeatTime form, 2: count form)
//   keys (default): src_elems (256) dst_bytes (256) tmp_elems (256) dst_offset (0, elements into dst's buffer)
//        mask (128) bits (0: continuous mask; 1: mask[] = {bits0, bits1}) bits0 bits1 repeat (1) dst_rep (1)
//        src_blk (1) src_rep (8) order (0) count (0) cal_index (0)
//        in_place (0; 1: dst is the src buffer shifted by dst_offset) tmp_is_dst (0; 1: sharedTmpBuffer = dst)
// DIR/src.bin (src_elems elements, a multiple of 32 bytes) and DIR/dst.bin (dst_bytes) are loaded into UB; after
// the call DIR/out.bin holds the dst buffer (the src buffer with in_place).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

struct ReduceArgs {
  int32_t api;
  int32_t srcElems;
  int32_t dstBytes;
  int32_t tmpElems;
  int32_t dstOffset;
  int32_t mask;
  int32_t useBits;
  int32_t repeat;
  int32_t dstRep;
  int32_t srcBlk;
  int32_t srcRep;
  int32_t order;
  int32_t count;
  int32_t calIndex;
  int32_t inPlace;
  int32_t tmpIsDst;
  uint64_t bits[2];
};

enum ApiId { kWholeMax, kWholeSum, kBlockMax, kBlockSum, kPairSum, kMax0, kSum0, kMax2, kSum2 };

template <typename T>
__aicore__ inline void CallReduce(const ReduceArgs& a, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LocalTensor<T>& tmp) {
  uint64_t bits[2] = {a.bits[0], a.bits[1]};
  const bool useBits = a.useBits != 0;
  switch (a.api) {
    case kWholeMax:
      if (useBits) {
        WholeReduceMax<T>(dst, src, bits, a.repeat, a.dstRep, a.srcBlk, a.srcRep, static_cast<ReduceOrder>(a.order));
      } else {
        WholeReduceMax<T>(dst, src, a.mask, a.repeat, a.dstRep, a.srcBlk, a.srcRep, static_cast<ReduceOrder>(a.order));
      }
      break;
    case kWholeSum:
      if (useBits) {
        WholeReduceSum<T>(dst, src, bits, a.repeat, a.dstRep, a.srcBlk, a.srcRep);
      } else {
        WholeReduceSum<T>(dst, src, a.mask, a.repeat, a.dstRep, a.srcBlk, a.srcRep);
      }
      break;
    case kBlockMax:
      if (useBits) {
        BlockReduceMax<T>(dst, src, a.repeat, bits, a.dstRep, a.srcBlk, a.srcRep);
      } else {
        BlockReduceMax<T>(dst, src, a.repeat, a.mask, a.dstRep, a.srcBlk, a.srcRep);
      }
      break;
    case kBlockSum:
      if (useBits) {
        BlockReduceSum<T>(dst, src, a.repeat, bits, a.dstRep, a.srcBlk, a.srcRep);
      } else {
        BlockReduceSum<T>(dst, src, a.repeat, a.mask, a.dstRep, a.srcBlk, a.srcRep);
      }
      break;
    case kPairSum:
      if (useBits) {
        PairReduceSum<T>(dst, src, a.repeat, bits, a.dstRep, a.srcBlk, a.srcRep);
      } else {
        PairReduceSum<T>(dst, src, a.repeat, a.mask, a.dstRep, a.srcBlk, a.srcRep);
      }
      break;
    case kMax0:
      if (useBits) {
        ReduceMax<T>(dst, src, tmp, bits, a.repeat, a.srcRep, a.calIndex != 0);
      } else {
        ReduceMax<T>(dst, src, tmp, a.mask, a.repeat, a.srcRep, a.calIndex != 0);
      }
      break;
    case kSum0:
      if (useBits) {
        ReduceSum<T>(dst, src, tmp, bits, a.repeat, a.srcRep);
      } else {
        ReduceSum<T>(dst, src, tmp, a.mask, a.repeat, a.srcRep);
      }
      break;
    case kMax2:
      ReduceMax<T>(dst, src, tmp, a.count, a.calIndex != 0);
      break;
    case kSum2:
      ReduceSum<T>(dst, src, tmp, a.count);
      break;
    default:
      break;
  }
}

template <typename T>
__aicore__ inline void RunReduce(GM_ADDR srcGm, GM_ADDR dstGm, const ReduceArgs& a) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> srcBuf, dstBuf, tmpBuf;
  const uint32_t srcBytes = static_cast<uint32_t>(a.srcElems) * sizeof(T);
  pipe.InitBuffer(srcBuf, srcBytes);
  pipe.InitBuffer(dstBuf, static_cast<uint32_t>(a.dstBytes));
  pipe.InitBuffer(tmpBuf, static_cast<uint32_t>(a.tmpElems) * sizeof(T));
  GlobalTensor<T> srcG, dstG;
  srcG.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(srcGm), a.srcElems);
  dstG.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(dstGm), a.dstBytes / sizeof(T));
  LocalTensor<T> src = srcBuf.Get<T>();
  LocalTensor<T> dstAll = dstBuf.Get<T>();
  DataCopy(src, srcG, a.srcElems);
  DataCopy(dstAll, dstG, a.dstBytes / sizeof(T));
  PipeBarrier<PIPE_ALL>();
  LocalTensor<T> dst = a.inPlace != 0 ? src[a.dstOffset] : dstAll[a.dstOffset];
  LocalTensor<T> tmp = a.tmpIsDst != 0 ? dst : tmpBuf.Get<T>();
  CallReduce<T>(a, dst, src, tmp);
  PipeBarrier<PIPE_ALL>();
  if (a.inPlace != 0) {
    DataCopy(srcG, src, a.srcElems);
  } else {
    DataCopy(dstG, dstAll, a.dstBytes / sizeof(T));
  }
}

extern "C" __global__ __aicore__ void reduce_api(GM_ADDR src, GM_ADDR dst, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ReduceArgs, a, tiling);
  if (TILING_KEY_IS(1)) {
    RunReduce<half>(src, dst, a);
  } else {
    RunReduce<float>(src, dst, a);
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

uint8_t* ToGm(const std::vector<uint8_t>& bytes, size_t size) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(size));
  std::memset(gm, 0, size);
  std::memcpy(gm, bytes.data(), bytes.size() < size ? bytes.size() : size);
  return gm;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const std::map<std::string, int32_t> apis = {{"WholeReduceMax", kWholeMax}, {"WholeReduceSum", kWholeSum},
                                               {"BlockReduceMax", kBlockMax}, {"BlockReduceSum", kBlockSum},
                                               {"PairReduceSum", kPairSum},   {"ReduceMax0", kMax0},
                                               {"ReduceSum0", kSum0},         {"ReduceMax2", kMax2},
                                               {"ReduceSum2", kSum2}};
  const auto api = apis.find(argv[1]);
  if (api == apis.end()) return 2;
  const std::string dtype = argv[2];
  const std::string dir = argv[3];
  std::map<std::string, long long> kv = {{"src_elems", 256}, {"dst_bytes", 256}, {"tmp_elems", 256},
                                         {"dst_offset", 0},  {"mask", 128},      {"bits", 0},
                                         {"bits0", 0},       {"bits1", 0},       {"repeat", 1},
                                         {"dst_rep", 1},     {"src_blk", 1},     {"src_rep", 8},
                                         {"order", 0},       {"count", 0},       {"cal_index", 0},
                                         {"in_place", 0},    {"tmp_is_dst", 0}};
  for (int i = 4; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || kv.count(arg.substr(0, eq)) == 0) return 2;
    kv[arg.substr(0, eq)] = static_cast<long long>(std::strtoull(arg.c_str() + eq + 1, nullptr, 0));
  }
  ReduceArgs a{};
  a.api = api->second;
  a.srcElems = static_cast<int32_t>(kv["src_elems"]);
  a.dstBytes = static_cast<int32_t>(kv["dst_bytes"]);
  a.tmpElems = static_cast<int32_t>(kv["tmp_elems"]);
  a.dstOffset = static_cast<int32_t>(kv["dst_offset"]);
  a.mask = static_cast<int32_t>(kv["mask"]);
  a.useBits = static_cast<int32_t>(kv["bits"]);
  a.bits[0] = static_cast<uint64_t>(kv["bits0"]);
  a.bits[1] = static_cast<uint64_t>(kv["bits1"]);
  a.repeat = static_cast<int32_t>(kv["repeat"]);
  a.dstRep = static_cast<int32_t>(kv["dst_rep"]);
  a.srcBlk = static_cast<int32_t>(kv["src_blk"]);
  a.srcRep = static_cast<int32_t>(kv["src_rep"]);
  a.order = static_cast<int32_t>(kv["order"]);
  a.count = static_cast<int32_t>(kv["count"]);
  a.calIndex = static_cast<int32_t>(kv["cal_index"]);
  a.inPlace = static_cast<int32_t>(kv["in_place"]);
  a.tmpIsDst = static_cast<int32_t>(kv["tmp_is_dst"]);
  const size_t elem = dtype == "half" ? 2 : 4;
  const size_t srcBytes = static_cast<size_t>(a.srcElems) * elem;
  uint8_t* srcGm = ToGm(ReadFile(dir + "/src.bin"), srcBytes);
  uint8_t* dstGm = ToGm(ReadFile(dir + "/dst.bin"), static_cast<size_t>(a.dstBytes));
  uint8_t* tilingGm = static_cast<uint8_t*>(GmAlloc(sizeof(a)));
  std::memcpy(tilingGm, &a, sizeof(a));
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_SET_TILING_KEY(dtype == "half" ? 1 : 2);
  ICPU_RUN_KF(reduce_api, 1, srcGm, dstGm, tilingGm);
  if (a.inPlace != 0) {
    WriteFile(dir + "/out.bin", srcGm, srcBytes);
  } else {
    WriteFile(dir + "/out.bin", dstGm, static_cast<size_t>(a.dstBytes));
  }
  for (uint8_t* p : {srcGm, dstGm, tilingGm}) GmFree(p);
  return 0;
}
