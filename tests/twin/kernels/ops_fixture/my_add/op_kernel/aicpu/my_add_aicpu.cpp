// Host-CPU fallback of my_add for doubles (stands in for an AICPU kernel).
#include <cstddef>

double MyAddAicpu(double x, double y, double alpha) { return x + alpha * y; }
