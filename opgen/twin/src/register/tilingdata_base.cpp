// Packed serialisation of BEGIN_TILING_DATA_DEF classes and their per-op registry.
#include "register/tilingdata_base.h"

#include <algorithm>

namespace optiling {
namespace {
const TilingDef* StructAt(const TilingDef* owner, const TilingDef::FieldInfo& field) {
  return reinterpret_cast<const TilingDef*>(reinterpret_cast<const char*>(owner) + field.objectOffset);
}
}  // namespace

size_t TilingDef::GetDataSize() const {
  size_t size = 0;
  for (const auto& field : fields_) size += field.isStruct ? StructAt(this, field)->GetDataSize() : field.byteSize;
  // Trailing padding to the widest field, as the kernel-side struct has.
  size_t widest = WidestElement();
  return (size + widest - 1) / widest * widest;
}

size_t TilingDef::WidestElement() const {
  size_t widest = 1;
  for (const auto& field : fields_) widest = std::max(widest, field.elementSize);
  return widest;
}

const char* TilingDef::FindMisalignedField() const {
  size_t offset = 0;
  for (const auto& field : fields_) {
    if (field.elementSize > 0 && offset % field.elementSize != 0) return field.name;
    offset += field.isStruct ? StructAt(this, field)->GetDataSize() : field.byteSize;
  }
  return nullptr;
}

bool TilingDef::SaveToBuffer(void* data, size_t capacity) const {
  if (data == nullptr || GetDataSize() > capacity || FindMisalignedField() != nullptr) return false;
  auto* out = static_cast<char*>(data);
  std::memset(out, 0, GetDataSize());
  size_t offset = 0;
  for (const auto& field : fields_) {
    if (field.isStruct) {
      const TilingDef* nested = StructAt(this, field);
      nested->SaveToBuffer(out + offset, capacity - offset);
      offset += nested->GetDataSize();
    } else {
      std::memcpy(out + offset, reinterpret_cast<const char*>(this) + field.objectOffset, field.byteSize);
      offset += field.byteSize;
    }
  }
  return true;
}

CTilingDataClassFactory& CTilingDataClassFactory::GetInstance() {
  static auto* factory = new CTilingDataClassFactory();
  return *factory;
}

void CTilingDataClassFactory::RegisterTilingData(const char* opType, const TilingDataCreator& creator) {
  creators_.emplace_back(opType == nullptr ? "" : opType, creator);
}

std::shared_ptr<TilingDef> CTilingDataClassFactory::CreateTilingDataInstance(const char* opType) {
  for (const auto& entry : creators_) {
    if (entry.first == opType) return entry.second();
  }
  return nullptr;
}

}  // namespace optiling
