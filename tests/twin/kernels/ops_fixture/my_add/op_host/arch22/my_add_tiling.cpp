// Host tiling of my_add.
#include "my_add_tiling_data.h"

MyAddTilingData MyAddTiling(uint32_t total, float alpha) { return MyAddTilingData{total, alpha}; }
