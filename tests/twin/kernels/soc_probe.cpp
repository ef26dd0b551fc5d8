// Reports the SoC the twin selected and which API/dtype combinations it accepts there.
//
// Usage: soc_probe table            one line per SoC row: name arch cores ub_physical ub_usable bf16_arith bf16
//        soc_probe current [NAME]   the selected SoC (then, with NAME, after SetSoc(NAME))
//        soc_probe rules            "<probe> ok" or "<probe> <CHECK>" for each probe kernel
#include <cstdio>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

template <typename T>
LocalTensor<T> Scratch(TPipe& pipe, TBuf<TPosition::VECCALC>& buf) {
  pipe.InitBuffer(buf, 1024);
  return buf.Get<T>();
}

}  // namespace

extern "C" __global__ __aicore__ void exp_bf16() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<bfloat16_t> t = Scratch<bfloat16_t>(pipe, buf);
  Exp(t, t, 128);
}

extern "C" __global__ __aicore__ void add_bf16() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<bfloat16_t> t = Scratch<bfloat16_t>(pipe, buf);
  Add(t, t, t, 128);
}

extern "C" __global__ __aicore__ void leaky_relu_half() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<half> t = Scratch<half>(pipe, buf);
  LeakyRelu(t, t, half(0.5), 128);
}

extern "C" __global__ __aicore__ void cast_float_to_bf16() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  LocalTensor<float> src = Scratch<float>(pipe, a);
  LocalTensor<bfloat16_t> dst = Scratch<bfloat16_t>(pipe, b);
  Cast(dst, src, RoundMode::CAST_RINT, 128);
}

extern "C" __global__ __aicore__ void duplicate_bf16() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<bfloat16_t> t = Scratch<bfloat16_t>(pipe, buf);
  Duplicate(t, bfloat16_t(1), 128);
}

extern "C" __global__ __aicore__ void datacopypad_half(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<half> t = Scratch<half>(pipe, buf);
  GlobalTensor<half> gm;
  gm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), 64);
  DataCopyPad(t, gm, DataCopyExtParams{1, 10, 0, 0, 0}, DataCopyPadExtParams<half>{false, 0, 0, 0});
}

extern "C" __global__ __aicore__ void div_int32() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<int32_t> t = Scratch<int32_t>(pipe, buf);
  Duplicate(t, 1, 64);
  Div(t, t, t, 64);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "table") {
    size_t count = 0;
    const opgen_twin::SocInfo* rows = opgen_twin::AllSocs(&count);
    for (size_t i = 0; i < count; ++i) {
      const opgen_twin::SocInfo& s = rows[i];
      std::printf("%s %s %u %llu %llu %d %d %d\n", s.name, s.arch, s.vectorCores,
                  static_cast<unsigned long long>(s.ubPhysicalBytes), static_cast<unsigned long long>(s.ubUsableBytes),
                  s.bf16VectorArith, s.bf16Supported, s.figuresCertain);
    }
    return 0;
  }
  if (mode == "current") {
    std::printf("%s\n", opgen_twin::CurrentSoc().name);
    if (argc > 2) {
      opgen_twin::SetSoc(argv[2]);
      std::printf("%s %u %llu\n", opgen_twin::CurrentSoc().name, opgen_twin::CurrentSoc().vectorCores,
                  static_cast<unsigned long long>(opgen_twin::CurrentSoc().ubUsableBytes));
    }
    return 0;
  }
  if (mode == "rules") {
    opgen_twin::SetFailureMode(opgen_twin::FailureMode::kThrow);
    uint8_t* x = static_cast<uint8_t*>(GmAlloc(128));
    struct Probe {
      const char* name;
      void (*run)(uint8_t*);
    };
    const Probe probes[] = {
        {"Exp<bf16>", [](uint8_t*) { ICPU_RUN_KF(exp_bf16, 1); }},
        {"Add<bf16>", [](uint8_t*) { ICPU_RUN_KF(add_bf16, 1); }},
        {"LeakyRelu<half>", [](uint8_t*) { ICPU_RUN_KF(leaky_relu_half, 1); }},
        {"Cast<float->bf16>", [](uint8_t*) { ICPU_RUN_KF(cast_float_to_bf16, 1); }},
        {"Duplicate<bf16>", [](uint8_t*) { ICPU_RUN_KF(duplicate_bf16, 1); }},
        {"DataCopyPad<half>", [](uint8_t* gm) { ICPU_RUN_KF(datacopypad_half, 1, gm); }},
        {"Div<int32>", [](uint8_t*) { ICPU_RUN_KF(div_int32, 1); }},
    };
    for (const Probe& probe : probes) {
      try {
        probe.run(x);
        std::printf("%s ok\n", probe.name);
      } catch (const opgen_twin::CheckError& error) {
        std::printf("%s %s\n", probe.name, error.check().c_str());
      }
    }
    GmFree(x);
    return 0;
  }
  return 2;
}
