// Advanced math APIs of Ascend C (asc-devkit adv_api/math/{tanh,erf,sign,floor,trunc}.h and
// adv_api/activation/sigmoid.h), declared as the A2/A3 headers declare them: `template <typename T, bool
// isReuseSource = false>` with the sharedTmpBuffer and calCount overloads, and the whole-tensor ones where the
// header has them (Ascend 950's Tanh/Erf add a config template parameter with a default, which callers never spell).
//
// Numerics: the hardware evaluates polynomial approximations whose exact error is not public; the twin computes
// each element in double and rounds once (through float for half), the correctly rounded result the numpy
// model of a kernel (opgen.plan.kernel_model) also computes. The calCount forms take their scratch space from
// the reserved stack area of UB (the 8 KB the tiling never hands out), so they need no buffer here.
// The Tanh, Erf and Trunc headers forbid any overlap of dst with src or sharedTmpBuffer, and the twin stops a
// kernel that does it; it holds Sigmoid, Sign and Floor (whose headers are silent) to the same rule, which keeps
// a kernel on the safe side.
#pragma once

#include <cmath>
#include <cstdint>

#include "opgen_twin/runtime.h"
#include "opgen_twin/tensor.h"
#include "opgen_twin/vector_ops.h"

namespace opgen_twin {
namespace detail {

struct TanhOp {
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::tanh(static_cast<double>(a))); }
};
struct ErfOp {
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::erf(static_cast<double>(a))); }
};
struct SigmoidOp {
  template <typename C>
  C operator()(C a) const { return static_cast<C>(1.0 / (1.0 + std::exp(-static_cast<double>(a)))); }
};
// Two compares with 0 and two selects on hardware: -1, 0 or 1, and 0 for NaN (no comparison holds).
struct SignOp {
  template <typename C>
  C operator()(C a) const { return a > C(0) ? C(1) : (a < C(0) ? C(-1) : C(0)); }
};
struct FloorOp {
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::floor(static_cast<double>(a))); }
};
struct TruncOp {
  template <typename C>
  C operator()(C a) const { return static_cast<C>(std::trunc(static_cast<double>(a))); }
};

template <typename T, typename Op>
void AdvancedUnary(Api api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const AscendC::LocalTensor<uint8_t>* tmp, uint32_t count, Op op) {
  const char* name = ApiName(api);
  RequireDtype(api, kDTypeOf<T>);
  const uint64_t n = count;
  CheckCountOperand(name, "dstTensor", dst, n, UbUse::kVectorWrite);
  CheckCountOperand(name, "srcTensor", src, n, UbUse::kVectorRead);
  const uint64_t bytes = n * sizeof(T);
  if (UbOverlap(dst.twin_ref(), bytes, src.twin_ref(), bytes)) {
    Fail("OPERAND_OVERLAP", name,
         StringPrintf("dstTensor (UB offset %u) and srcTensor (UB offset %u) overlap within %llu bytes: the API "
                      "forbids it",
                      dst.twin_ref().offset, src.twin_ref().offset, static_cast<unsigned long long>(bytes)));
  }
  if (tmp != nullptr) {
    const UbRef& scratch = tmp->twin_ref();
    CheckUbOperand(name, "sharedTmpBuffer", scratch, 0, scratch.bytes, true, UbUse::kVectorWrite);
    const bool hits_dst = UbOverlap(scratch, scratch.bytes, dst.twin_ref(), bytes);
    if (hits_dst || UbOverlap(scratch, scratch.bytes, src.twin_ref(), bytes)) {
      Fail("OPERAND_OVERLAP", name,
           StringPrintf("sharedTmpBuffer (UB offset %u, %u bytes) overlaps %s: the API forbids it", scratch.offset,
                        scratch.bytes, hits_dst ? "dstTensor" : "srcTensor"));
    }
  }
  uint8_t* out = dst.twin_bytes();
  const uint8_t* in = src.twin_bytes();
  for (uint64_t i = 0; i < n; ++i) StoreElement<T>(out, i, Narrow<T>(op(Widen(LoadElement<T>(in, i)))));
  CountVector(api, n);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// The calCount forms, with and without sharedTmpBuffer.
#define OPGEN_TWIN_MATH_API(Name, Op)                                                                               \
  template <typename T, bool isReuseSource = false>                                                                \
  inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                               \
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {                         \
    opgen_twin::detail::AdvancedUnary(opgen_twin::Api::k##Name, dstTensor, srcTensor, &sharedTmpBuffer, calCount,  \
                                      opgen_twin::detail::Op{});                                                   \
  }                                                                                                                \
  template <typename T, bool isReuseSource = false>                                                                \
  inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) {    \
    opgen_twin::detail::AdvancedUnary(opgen_twin::Api::k##Name, dstTensor, srcTensor, nullptr, calCount,           \
                                      opgen_twin::detail::Op{});                                                   \
  }

// The whole-tensor forms (calCount = srcTensor.GetSize()); Floor has none.
#define OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Name)                                                                      \
  template <typename T, bool isReuseSource = false>                                                                \
  inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                               \
                   const LocalTensor<uint8_t>& sharedTmpBuffer) {                                                  \
    Name<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());                            \
  }                                                                                                                \
  template <typename T, bool isReuseSource = false>                                                                \
  inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {                             \
    Name<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());                                             \
  }

OPGEN_TWIN_MATH_API(Tanh, TanhOp)
OPGEN_TWIN_MATH_API(Erf, ErfOp)
OPGEN_TWIN_MATH_API(Sigmoid, SigmoidOp)
OPGEN_TWIN_MATH_API(Sign, SignOp)
OPGEN_TWIN_MATH_API(Floor, FloorOp)
OPGEN_TWIN_MATH_API(Trunc, TruncOp)
OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Tanh)
OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Erf)
OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Sigmoid)
OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Sign)
OPGEN_TWIN_MATH_WHOLE_TENSOR_API(Trunc)
#undef OPGEN_TWIN_MATH_WHOLE_TENSOR_API
#undef OPGEN_TWIN_MATH_API

}  // namespace AscendC
