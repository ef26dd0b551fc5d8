// Tiling data of the my_add test operator (shared by host and kernel code).
#pragma once
#include <cstdint>

struct MyAddTilingData {
  uint32_t totalLength;
  float alpha;
};
