// GlobalTensor (GM) and LocalTensor (UB) of Ascend C.
#pragma once

#include <cstdint>

#include "opgen_twin/macros.h"
#include "opgen_twin/runtime.h"

namespace AscendC {

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX,
};
using QuePosition = TPosition;

enum class CacheMode : uint8_t {
  CACHE_MODE_DISABLE = 0,
  CACHE_MODE_NORMAL = 1,
  CACHE_MODE_LAST = 2,
  CACHE_MODE_PERSISTENT = 4,
};

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  // `bufferSize` in elements. The twin checks every later access against it (hardware does not).
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    address_ = buffer;
    size_ = bufferSize;
    extent_ = opgen_twin::detail::MakeGmExtent(buffer, bufferSize * sizeof(T), true);
  }
  // Without a size only the bounds of the allocation (GmAlloc / RegisterGmRegion) are checked.
  void SetGlobalBuffer(__gm__ T* buffer) {
    address_ = buffer;
    extent_ = opgen_twin::detail::MakeGmExtent(buffer, 0, false);
    size_ = extent_.bounded ? (extent_.end - reinterpret_cast<uintptr_t>(buffer)) / sizeof(T) : 0;
  }

  __gm__ T* GetPhyAddr() const { return address_; }
  __gm__ T* GetPhyAddr(const uint64_t offset) const { return address_ + offset; }
  uint64_t GetSize() const { return size_; }

  T GetValue(const uint64_t offset) const {
    opgen_twin::detail::CheckGmAccess("GlobalTensor::GetValue", extent_, address_ + offset, sizeof(T), false);
    return opgen_twin::detail::LoadElement<T>(reinterpret_cast<const uint8_t*>(address_), offset);
  }
  void SetValue(const uint64_t offset, const T& value) const {
    opgen_twin::detail::CheckGmAccess("GlobalTensor::SetValue", extent_, address_ + offset, sizeof(T), true);
    opgen_twin::detail::StoreElement<T>(reinterpret_cast<uint8_t*>(address_), offset, value);
  }
  // Bounds-checked; writes through the reference are not seen by the cross-core overlap check.
  T& operator()(const uint64_t offset) const {
    opgen_twin::detail::CheckGmAccess("GlobalTensor::operator()", extent_, address_ + offset, sizeof(T), false);
    return address_[offset];
  }

  // A view starting `offset` elements further; it keeps the extent of the original buffer.
  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor view = *this;
    view.address_ = address_ + offset;
    view.size_ = size_ > offset ? size_ - offset : 0;
    return view;
  }

  void SetL2CacheHint(CacheMode) {}

  // Twin internals.
  const opgen_twin::detail::GmExtent& twin_extent() const { return extent_; }

 private:
  T* address_ = nullptr;
  uint64_t size_ = 0;
  opgen_twin::detail::GmExtent extent_;
};

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  // Twin internals: a tensor over a UB range.
  LocalTensor(const opgen_twin::detail::UbRef& ref, TPosition position) : ref_(ref), position_(position) {}

  // A view starting `offset` elements further (its start must be 32-byte aligned to be used by an API).
  LocalTensor operator[](const uint32_t offset) const {
    const uint64_t shift = static_cast<uint64_t>(offset) * sizeof(T);
    if (shift > ref_.bytes) {
      opgen_twin::Fail("UB_OUT_OF_BOUNDS", "LocalTensor::operator[]",
                       opgen_twin::StringPrintf("offset %u elements is past the end of a %u-element tensor", offset,
                                          GetSize()));
    }
    LocalTensor view = *this;
    view.ref_.offset += static_cast<uint32_t>(shift);
    view.ref_.bytes -= static_cast<uint32_t>(shift);
    return view;
  }

  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    opgen_twin::detail::UbRef ref = ref_;
    ref.bytes = static_cast<uint32_t>(ref_.bytes / sizeof(U) * sizeof(U));
    return LocalTensor<U>(ref, position_);
  }

  T GetValue(const uint32_t index) const {
    opgen_twin::detail::CheckUbOperand("LocalTensor::GetValue", "tensor", ref_, uint64_t{index} * sizeof(T), sizeof(T),
                                       false, opgen_twin::detail::UbUse::kScalarRead);
    return opgen_twin::detail::LoadElement<T>(Base(), index);
  }
  void SetValue(const uint32_t index, const T& value) const {
    opgen_twin::detail::CheckUbOperand("LocalTensor::SetValue", "tensor", ref_, uint64_t{index} * sizeof(T), sizeof(T),
                                       false, opgen_twin::detail::UbUse::kScalarWrite);
    opgen_twin::detail::StoreElement<T>(Base(), index, value);
  }
  T& operator()(const uint32_t index) const {
    opgen_twin::detail::CheckUbOperand("LocalTensor::operator()", "tensor", ref_, uint64_t{index} * sizeof(T),
                                       sizeof(T), false, opgen_twin::detail::UbUse::kScalarRef);
    opgen_twin::detail::NoteRawUbAccess();
    return reinterpret_cast<T*>(Base())[index];
  }

  uint32_t GetSize() const { return static_cast<uint32_t>(ref_.bytes / sizeof(T)); }
  // Length in bytes.
  uint32_t GetLength() const { return ref_.bytes; }
  void SetSize(const uint32_t size) {
    if (uint64_t{size} * sizeof(T) > ref_.bytes) {
      opgen_twin::Fail("UB_OUT_OF_BOUNDS", "LocalTensor::SetSize",
                       opgen_twin::StringPrintf("size %u elements exceeds the tensor's %u", size, GetSize()));
    }
    ref_.bytes = static_cast<uint32_t>(uint64_t{size} * sizeof(T));
  }
  TPosition GetPosition() const { return position_; }
  void SetUserTag(const int32_t tag) { userTag_ = tag; }
  int32_t GetUserTag() const { return userTag_; }

  // A host pointer into the twin's UB (hardware returns the UB address).
  T* GetPhyAddr() const {
    opgen_twin::detail::NoteRawUbAccess();
    return reinterpret_cast<T*>(Base());
  }
  T* GetPhyAddr(const uint32_t offset) const { return GetPhyAddr() + offset; }

  // Twin internals.
  const opgen_twin::detail::UbRef& twin_ref() const { return ref_; }
  uint8_t* twin_bytes() const { return Base(); }

 private:
  uint8_t* Base() const { return opgen_twin::detail::UbBase("LocalTensor") + ref_.offset; }

  opgen_twin::detail::UbRef ref_;
  TPosition position_ = TPosition::VECCALC;
  int32_t userTag_ = 0;
};

}  // namespace AscendC
