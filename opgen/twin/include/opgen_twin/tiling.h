// Kernel-side tiling macros: reading the tiling struct the host wrote to GM, and the tiling key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "opgen_twin/runtime.h"

namespace opgen_twin {
namespace detail {

template <typename Struct>
inline void LoadTilingStruct(Struct* destination, const void* tiling, const char* type_name) {
  static_assert(std::is_trivially_copyable<Struct>::value, "tiling data must be trivially copyable");
  LoadTiling(destination, sizeof(Struct), tiling, type_name);
}

}  // namespace detail
}  // namespace opgen_twin

// Declares `var` of type Struct and fills it from the tiling GM buffer.
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, var, tiling) \
  tiling_struct var;                                            \
  ::opgen_twin::detail::LoadTilingStruct(&var, (tiling), #tiling_struct)

// Names the struct GET_TILING_DATA reads (at namespace scope or inside the kernel function).
#define REGISTER_TILING_DEFAULT(tiling_struct) using OpgenTwinDefaultTilingData = tiling_struct

// Declares `var` of the struct registered with REGISTER_TILING_DEFAULT.
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(OpgenTwinDefaultTilingData, var, tiling)

// A pointer to the tiling struct in GM (checked against the allocation once).
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, pointer, tiling)                                       \
  ::opgen_twin::detail::LoadTiling(nullptr, sizeof(tiling_struct), (tiling), #tiling_struct);                 \
  const tiling_struct* pointer = reinterpret_cast<const tiling_struct*>(tiling)

// Declares `var` holding one member of the tiling struct.
#define GET_TILING_DATA_MEMBER(tiling_struct, member, var, tiling)                                            \
  decltype(tiling_struct::member) var;                                                                        \
  ::opgen_twin::detail::LoadTiling(&var, sizeof(var),                                                         \
                                   reinterpret_cast<const uint8_t*>(tiling) + offsetof(tiling_struct, member), \
                                   #tiling_struct "::" #member)

// True when the launch's tiling key equals `key`.
#define TILING_KEY_IS(key) (::opgen_twin::detail::CurrentTilingKey() == static_cast<uint64_t>(key))

// Kernel-side form of the tiling-definition macros: a plain struct with the fields in declaration order and
// natural alignment. (The host side of these macros comes from register/tilingdata_base.h.)
#ifndef BEGIN_TILING_DATA_DEF
#define BEGIN_TILING_DATA_DEF(class_name) struct class_name {
#define TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name;
#define TILING_DATA_FIELD_DEF_ARR(data_type, array_size, field_name) data_type field_name[array_size];
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name;
#define END_TILING_DATA_DEF }
#endif
