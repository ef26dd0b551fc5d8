// Scalar half / bfloat16_t conversions and arithmetic of kernel_operator.h, for comparison with numpy.
//
// Usage: float16_check DIR
//   DIR/floats.bin (float32)          -> DIR/to_half.bin, DIR/to_bf16.bin (uint16 bit patterns)
//   all 65536 bit patterns            -> DIR/half_to_float.bin, DIR/bf16_to_float.bin (float32)
//   DIR/a.bin, DIR/b.bin (uint16 half) -> DIR/{add,sub,mul,div}.bin (half results of a op b)
//   same for bf16 with DIR/ba.bin, DIR/bb.bin -> DIR/b{add,sub,mul,div}.bin
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace {

template <typename T>
std::vector<T> Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(static_cast<void*>(values.data()), bytes.data(), values.size() * sizeof(T));
  return values;
}

template <typename T>
void Write(const std::string& path, const std::vector<T>& values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
}

template <typename F>
void Arithmetic(const std::string& dir, const std::string& prefix, const std::string& a_file, const std::string& b_file) {
  const std::vector<F> a = Read<F>(dir + "/" + a_file);
  const std::vector<F> b = Read<F>(dir + "/" + b_file);
  std::vector<F> add(a.size()), sub(a.size()), mul(a.size()), div(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    add[i] = a[i] + b[i];
    sub[i] = a[i] - b[i];
    F product = a[i];
    product *= b[i];
    mul[i] = product;
    div[i] = a[i] / b[i];
  }
  Write(dir + "/" + prefix + "add.bin", add);
  Write(dir + "/" + prefix + "sub.bin", sub);
  Write(dir + "/" + prefix + "mul.bin", mul);
  Write(dir + "/" + prefix + "div.bin", div);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const std::vector<float> floats = Read<float>(dir + "/floats.bin");
  std::vector<half> to_half;
  std::vector<bfloat16_t> to_bf16;
  for (float f : floats) {
    to_half.push_back(half(f));
    to_bf16.push_back(bfloat16_t(f));
  }
  Write(dir + "/to_half.bin", to_half);
  Write(dir + "/to_bf16.bin", to_bf16);
  std::vector<float> half_to_float, bf16_to_float;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    half_to_float.push_back(half::FromBits(static_cast<uint16_t>(bits)));
    bf16_to_float.push_back(AscendC::ToFloat(bfloat16_t::FromBits(static_cast<uint16_t>(bits))));
  }
  Write(dir + "/half_to_float.bin", half_to_float);
  Write(dir + "/bf16_to_float.bin", bf16_to_float);
  Arithmetic<half>(dir, "", "a.bin", "b.bin");
  Arithmetic<bfloat16_t>(dir, "b", "ba.bin", "bb.bin");
  // Mixed expressions follow the builtin rules: with an integer the result stays half, with float it widens.
  const half h = 1.5;
  const auto with_int = h * 2;
  const auto with_float = h * 2.0f;
  std::printf("mixed %d %d %g %g\n", static_cast<int>(std::is_same<decltype(with_int), const half>::value),
              static_cast<int>(std::is_same<decltype(with_float), const float>::value), static_cast<float>(with_int),
              with_float);
  return 0;
}
