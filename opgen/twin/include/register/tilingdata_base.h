// Host side of BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF / END_TILING_DATA_DEF:
// a class with set_<field>/get_<field> accessors whose SaveToBuffer writes the fields in
// declaration order, packed, the byte layout the kernel's tiling struct reads. CANN requires
// each field to sit at an offset that is a multiple of its size; SaveToBuffer refuses otherwise.
#ifndef OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H_
#define OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace optiling {

class TilingDef {
 public:
  virtual ~TilingDef() = default;
  // Writes the packed fields; false (and nothing written) if they do not fit or are misaligned.
  bool SaveToBuffer(void* data, size_t capacity) const;
  size_t GetDataSize() const;
  const char* GetTilingClassName() const { return className_; }
  // Twin check helper: the first misaligned field name, or nullptr.
  const char* FindMisalignedField() const;

  // One registered field, located by its byte offset inside the owning object (copy-safe).
  struct FieldInfo {
    const char* name;
    size_t objectOffset;  // where the value lives inside *this
    size_t elementSize;   // alignment unit: element size (arrays) or the struct's widest field
    size_t byteSize;
    bool isStruct;
  };
  void RegisterField(const void* field, const char* name, size_t elementSize, size_t byteSize, bool isStruct) {
    size_t offset = static_cast<size_t>(static_cast<const char*>(field) - reinterpret_cast<const char*>(this));
    fields_.push_back({name, offset, elementSize, byteSize, isStruct});
  }
  size_t WidestElement() const;

 protected:
  explicit TilingDef(const char* className) : className_(className) {}
  TilingDef(const TilingDef&) = default;
  TilingDef& operator=(const TilingDef&) = default;

 private:
  const char* className_;
  std::vector<FieldInfo> fields_;
};

// A member object placed right after each field; its constructor records the field.
struct TilingFieldRegistrar {
  TilingFieldRegistrar(TilingDef* owner, const void* field, const char* name, size_t elementSize, size_t byteSize,
                       bool isStruct = false) {
    owner->RegisterField(field, name, elementSize, byteSize, isStruct);
  }
  TilingFieldRegistrar(const TilingFieldRegistrar&) {}  // the copy's owner registered its own fields
  TilingFieldRegistrar& operator=(const TilingFieldRegistrar&) { return *this; }
};

using TilingDataCreator = std::function<std::shared_ptr<TilingDef>()>;

class CTilingDataClassFactory {
 public:
  static CTilingDataClassFactory& GetInstance();
  void RegisterTilingData(const char* opType, const TilingDataCreator& creator);
  std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* opType);

 private:
  std::vector<std::pair<std::string, TilingDataCreator>> creators_;
};

struct TilingDataClassRegistrar {
  TilingDataClassRegistrar(const char* opType, const TilingDataCreator& creator) {
    CTilingDataClassFactory::GetInstance().RegisterTilingData(opType, creator);
  }
};

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                            \
  class class_name : public ::optiling::TilingDef {                  \
   public:                                                           \
    class_name() : ::optiling::TilingDef(#class_name) {}             \
    class_name(const class_name& other) = default;                   \
    class_name& operator=(const class_name& other) = default;

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                       \
 public:                                                                                                   \
  data_type field_name = 0;                                                                                \
  void set_##field_name(data_type value) { field_name = value; }                                          \
  data_type get_##field_name() const { return field_name; }                                               \
                                                                                                           \
 private:                                                                                                  \
  ::optiling::TilingFieldRegistrar field_name##_registrar_{this, &field_name, #field_name, sizeof(data_type), \
                                                           sizeof(data_type)};                            \
                                                                                                           \
 public:

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                              \
 public:                                                                                                       \
  arr_type field_name[arr_size] = {};                                                                          \
  void set_##field_name(const arr_type* values) { std::memcpy(field_name, values, sizeof(field_name)); }      \
  arr_type* get_##field_name() { return field_name; }                                                        \
                                                                                                               \
 private:                                                                                                      \
  ::optiling::TilingFieldRegistrar field_name##_registrar_{this, field_name, #field_name, sizeof(arr_type),    \
                                                           sizeof(arr_type) * (arr_size)};                    \
                                                                                                               \
 public:

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                                   \
 public:                                                                                                       \
  struct_type field_name;                                                                                      \
                                                                                                               \
 private:                                                                                                      \
  ::optiling::TilingFieldRegistrar field_name##_registrar_{this, &field_name, #field_name,                     \
                                                           field_name.WidestElement(), 0, true};               \
                                                                                                               \
 public:

#define END_TILING_DATA_DEF \
  }                         \
  ;

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                     \
  class op_type##class_name##Helper {                                                       \
   public:                                                                                  \
    op_type##class_name##Helper() {                                                         \
      ::optiling::CTilingDataClassFactory::GetInstance().RegisterTilingData(                \
          #op_type, [] { return std::shared_ptr<::optiling::TilingDef>(new class_name()); }); \
    }                                                                                       \
  };                                                                                        \
  static op_type##class_name##Helper g_tilingdata_##op_type##class_name##helper;

#endif  // OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H_
