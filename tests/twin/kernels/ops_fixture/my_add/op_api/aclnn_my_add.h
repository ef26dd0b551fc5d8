// Public entry of the my_add test operator.
#pragma once
#include <cstdint>

// z = x + alpha * y on `cores` cores; n must split into whole 32-byte blocks per core.
int aclnnMyAdd(const float* x, const float* y, float alpha, float* z, uint32_t n, uint32_t cores);
double aclnnMyAddDouble(double x, double y, double alpha);
