// Runs single Ascend C vector/copy API calls inside a one-core kernel, for comparison with numpy models.
//
// Usage: api_harness CASE_DIR...
// Each CASE_DIR holds case.txt ("api dtype dst_dtype count mode p0 .. p7"), a.bin, b.bin, mask.bin,
// scalar.bin and out.bin (the initial destination). The kernel copies a/b/mask/out into UB, calls the API,
// and copies the destination back; out.bin is overwritten with the result. A failed twin check writes
// error.txt (check name, then the message) instead.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

struct Case {
  std::string api;
  std::string dtype;
  std::string dst_dtype;
  int64_t count = 0;
  int mode = 0;
  int64_t p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<uint8_t> a, b, mask, scalar, out;
  uint8_t* gm_a = nullptr;
  uint8_t* gm_b = nullptr;
  uint8_t* gm_mask = nullptr;
  uint8_t* gm_out = nullptr;
};

Case g_case;

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

template <typename T>
T ScalarOf() {
  T value{};
  std::memcpy(static_cast<void*>(&value), g_case.scalar.data(), sizeof(T));
  return value;
}

CMPMODE CmpMode() { return static_cast<CMPMODE>(g_case.mode); }

template <typename T>
void RunSameType(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                 const LocalTensor<uint8_t>& mask) {
  const std::string& api = g_case.api;
  const int32_t n = static_cast<int32_t>(g_case.count);
  const T s = ScalarOf<T>();
  if (api == "Add") Add(dst, a, b, n);
  else if (api == "Sub") Sub(dst, a, b, n);
  else if (api == "Mul") Mul(dst, a, b, n);
  else if (api == "Div") Div(dst, a, b, n);
  else if (api == "Max") Max(dst, a, b, n);
  else if (api == "Min") Min(dst, a, b, n);
  else if (api == "Adds") Adds(dst, a, s, n);
  else if (api == "Muls") Muls(dst, a, s, n);
  else if (api == "Maxs") Maxs(dst, a, s, n);
  else if (api == "Mins") Mins(dst, a, s, n);
  else if (api == "LeakyRelu") LeakyRelu(dst, a, s, n);
  else if (api == "Exp") Exp(dst, a, n);
  else if (api == "Ln") Ln(dst, a, n);
  else if (api == "Abs") Abs(dst, a, n);
  else if (api == "Sqrt") Sqrt(dst, a, n);
  else if (api == "Reciprocal") Reciprocal(dst, a, n);
  else if (api == "Relu") Relu(dst, a, n);
  else if (api == "Rsqrt") Rsqrt(dst, a, n);
  else if (api == "Tanh") Tanh(dst, a, static_cast<uint32_t>(n));
  else if (api == "Erf") Erf(dst, a, static_cast<uint32_t>(n));
  else if (api == "Sigmoid") Sigmoid(dst, a, static_cast<uint32_t>(n));
  else if (api == "Sign") Sign(dst, a, static_cast<uint32_t>(n));
  else if (api == "Floor") Floor(dst, a, static_cast<uint32_t>(n));
  else if (api == "Trunc") Trunc(dst, a, static_cast<uint32_t>(n));
  else if (api == "ErfWithTmp") Erf(dst, a, mask, static_cast<uint32_t>(n));  // the mask buffer as scratch
  else if (api == "ErfTmpOverlap") Erf(dst, a, dst.template ReinterpretCast<uint8_t>(), static_cast<uint32_t>(n));
  else if (api == "TanhInPlace") Tanh(a, a, static_cast<uint32_t>(n));
  else if (api == "TruncWholeTensor") Trunc(dst, a);  // calCount = a.GetSize()
  else if (api == "Duplicate") Duplicate(dst, s, n);
  else if (api == "Select") {
    const SELMODE mode = static_cast<SELMODE>(g_case.mode);
    if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
      Select(dst, mask, a, s, mode, static_cast<uint32_t>(n));
    } else {
      Select(dst, mask, a, b, mode, static_cast<uint32_t>(n));
    }
  } else if (api == "AddMasked") {
    // count = repeat times, mode = continuous mask, p0..p5 = BinaryRepeatParams.
    BinaryRepeatParams params(static_cast<uint8_t>(g_case.p[0]), static_cast<uint8_t>(g_case.p[1]),
                              static_cast<uint8_t>(g_case.p[2]), static_cast<uint8_t>(g_case.p[3]),
                              static_cast<uint8_t>(g_case.p[4]), static_cast<uint8_t>(g_case.p[5]));
    Add(dst, a, b, static_cast<uint64_t>(g_case.mode), static_cast<uint8_t>(g_case.count), params);
  } else if (api == "MulsMaskedBits") {
    uint64_t bits[2];
    std::memcpy(bits, g_case.mask.data(), sizeof(bits));
    UnaryRepeatParams params(static_cast<uint16_t>(g_case.p[0]), static_cast<uint16_t>(g_case.p[1]),
                             static_cast<uint8_t>(g_case.p[2]), static_cast<uint8_t>(g_case.p[3]));
    Muls(dst, a, s, bits, static_cast<uint8_t>(g_case.count), params);
  } else if (api == "DuplicateMasked") {
    Duplicate(dst, s, static_cast<uint64_t>(g_case.mode), static_cast<uint8_t>(g_case.count),
              static_cast<uint16_t>(g_case.p[0]), static_cast<uint8_t>(g_case.p[1]));
  } else if (api == "DataCopyUbToUb") {
    DataCopy(dst, a, static_cast<uint32_t>(n));
  } else {
    std::fprintf(stderr, "api_harness: unknown same-type api %s\n", api.c_str());
    std::exit(2);
  }
}

template <typename T, typename D>
void RunApi(const LocalTensor<D>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
            const LocalTensor<uint8_t>& mask) {
  const std::string& api = g_case.api;
  if (api == "Cast") {
    Cast(dst, a, static_cast<RoundMode>(g_case.mode), static_cast<uint32_t>(g_case.count));
  } else if (api == "Compare" || api == "Compares" || api == "CompareScalar") {
    if constexpr (std::is_same<D, uint8_t>::value) {
      const uint32_t n = static_cast<uint32_t>(g_case.count);
      if (api == "Compare") Compare(dst, a, b, CmpMode(), n);
      else if (api == "Compares") Compares(dst, a, ScalarOf<T>(), CmpMode(), n);
      else CompareScalar(dst, a, ScalarOf<T>(), CmpMode(), n);
    }
  } else if constexpr (std::is_same<T, D>::value) {
    RunSameType<T>(dst, a, b, mask);
  }
}

template <typename T, typename D>
void Body() {
  Case& c = g_case;
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf_a, buf_b, buf_mask, buf_out;
  pipe.InitBuffer(buf_a, static_cast<uint32_t>(c.a.size()));
  pipe.InitBuffer(buf_b, static_cast<uint32_t>(c.b.size()));
  pipe.InitBuffer(buf_mask, static_cast<uint32_t>(c.mask.size()));
  const bool pad_in = c.api == "DataCopyPadIn";
  const bool pad_out = c.api == "DataCopyPadOut";
  const uint32_t ub_out_bytes = pad_out ? 32u : static_cast<uint32_t>(c.out.size());
  pipe.InitBuffer(buf_out, ub_out_bytes);

  GlobalTensor<T> gm_a, gm_b;
  GlobalTensor<uint8_t> gm_mask;
  GlobalTensor<D> gm_out;
  gm_a.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(c.gm_a), c.a.size() / sizeof(T));
  gm_b.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(c.gm_b), c.b.size() / sizeof(T));
  gm_mask.SetGlobalBuffer(c.gm_mask, c.mask.size());
  gm_out.SetGlobalBuffer(reinterpret_cast<__gm__ D*>(c.gm_out), c.out.size() / sizeof(D));

  LocalTensor<T> a = buf_a.Get<T>();
  LocalTensor<T> b = buf_b.Get<T>();
  LocalTensor<uint8_t> mask = buf_mask.Get<uint8_t>();
  LocalTensor<D> out = buf_out.Get<D>();
  if (!pad_in) DataCopy(a, gm_a, static_cast<uint32_t>(c.a.size() / sizeof(T)));
  DataCopy(b, gm_b, static_cast<uint32_t>(c.b.size() / sizeof(T)));
  DataCopy(mask, gm_mask, static_cast<uint32_t>(c.mask.size()));
  if (!pad_out) DataCopy(out, gm_out, static_cast<uint32_t>(c.out.size() / sizeof(D)));

  if (pad_in) {
    if constexpr (std::is_same<T, D>::value) {
      DataCopyExtParams params(static_cast<uint16_t>(c.p[0]), static_cast<uint32_t>(c.p[1]),
                               static_cast<uint32_t>(c.p[2]), static_cast<uint32_t>(c.p[3]), 0);
      DataCopyPadExtParams<T> pad(c.p[4] != 0, static_cast<uint8_t>(c.p[5]), static_cast<uint8_t>(c.p[6]),
                                  ScalarOf<T>());
      DataCopyPad(out, gm_a, params, pad);
    }
  } else if (pad_out) {
    if constexpr (std::is_same<T, D>::value) {
      DataCopyExtParams params(static_cast<uint16_t>(c.p[0]), static_cast<uint32_t>(c.p[1]),
                               static_cast<uint32_t>(c.p[2]), static_cast<uint32_t>(c.p[3]), 0);
      DataCopyPad(gm_out, a, params);
    }
  } else {
    RunApi<T, D>(out, a, b, mask);
  }
  if (!pad_out) DataCopy(gm_out, out, static_cast<uint32_t>(c.out.size() / sizeof(D)));
}

using BodyFn = void (*)();

template <typename T, typename D>
bool Pick(const char* src, const char* dst, BodyFn* fn) {
  if (g_case.dtype == src && g_case.dst_dtype == dst) {
    *fn = &Body<T, D>;
    return true;
  }
  return false;
}

BodyFn PickBody() {
  BodyFn fn = nullptr;
  // Same-type cases.
  Pick<half, half>("half", "half", &fn) || Pick<float, float>("float", "float", &fn) ||
      Pick<bfloat16_t, bfloat16_t>("bf16", "bf16", &fn) || Pick<int16_t, int16_t>("int16", "int16", &fn) ||
      Pick<int32_t, int32_t>("int32", "int32", &fn) || Pick<uint8_t, uint8_t>("uint8", "uint8", &fn) ||
      // Compare outputs.
      Pick<half, uint8_t>("half", "uint8", &fn) || Pick<float, uint8_t>("float", "uint8", &fn) ||
      Pick<bfloat16_t, uint8_t>("bf16", "uint8", &fn) || Pick<int32_t, uint8_t>("int32", "uint8", &fn) ||
      // Cast pairs.
      Pick<half, float>("half", "float", &fn) || Pick<float, half>("float", "half", &fn) ||
      Pick<bfloat16_t, float>("bf16", "float", &fn) || Pick<float, bfloat16_t>("float", "bf16", &fn) ||
      Pick<half, bfloat16_t>("half", "bf16", &fn) || Pick<float, int32_t>("float", "int32", &fn) ||
      Pick<int32_t, float>("int32", "float", &fn) || Pick<half, int32_t>("half", "int32", &fn) ||
      Pick<half, int8_t>("half", "int8", &fn) || Pick<int8_t, half>("int8", "half", &fn) ||
      Pick<float, int16_t>("float", "int16", &fn) || Pick<int16_t, half>("int16", "half", &fn) ||
      Pick<int16_t, float>("int16", "float", &fn) || Pick<uint8_t, half>("uint8", "half", &fn) ||
      Pick<float, int64_t>("float", "int64", &fn) || Pick<int64_t, float>("int64", "float", &fn) ||
      Pick<bfloat16_t, int32_t>("bf16", "int32", &fn);
  return fn;
}

void HarnessKernel() { PickBody()(); }

bool LoadCase(const std::string& dir) {
  g_case = Case();
  std::ifstream spec(dir + "/case.txt");
  spec >> g_case.api >> g_case.dtype >> g_case.dst_dtype >> g_case.count >> g_case.mode;
  for (int64_t& value : g_case.p) spec >> value;
  g_case.a = ReadFile(dir + "/a.bin");
  g_case.b = ReadFile(dir + "/b.bin");
  g_case.mask = ReadFile(dir + "/mask.bin");
  g_case.scalar = ReadFile(dir + "/scalar.bin");
  g_case.out = ReadFile(dir + "/out.bin");
  g_case.scalar.resize(16, 0);
  return PickBody() != nullptr;
}

uint8_t* ToGm(const std::vector<uint8_t>& bytes) {
  uint8_t* gm = static_cast<uint8_t*>(GmAlloc(bytes.size()));
  if (!bytes.empty()) std::memcpy(gm, bytes.data(), bytes.size());
  return gm;
}

}  // namespace

int main(int argc, char** argv) {
  opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
  for (int i = 1; i < argc; ++i) {
    const std::string dir = argv[i];
    if (!LoadCase(dir)) {
      std::fprintf(stderr, "api_harness: %s: unsupported dtypes %s -> %s\n", dir.c_str(), g_case.dtype.c_str(),
                   g_case.dst_dtype.c_str());
      return 2;
    }
    g_case.gm_a = ToGm(g_case.a);
    g_case.gm_b = ToGm(g_case.b);
    g_case.gm_mask = ToGm(g_case.mask);
    g_case.gm_out = ToGm(g_case.out);
    try {
      ICPU_RUN_KF(HarnessKernel, 1);
      WriteFile(dir + "/out.bin", g_case.gm_out, g_case.out.size());
    } catch (const opgen_twin::CheckError& error) {
      const std::string text = error.check() + "\n" + error.what() + "\n";
      WriteFile(dir + "/error.txt", text.data(), text.size());
    }
    GmFree(g_case.gm_a);
    GmFree(g_case.gm_b);
    GmFree(g_case.gm_mask);
    GmFree(g_case.gm_out);
  }
  return 0;
}
