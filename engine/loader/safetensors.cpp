#include "engine/loader/safetensors.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/loader/mapped_file.h"

namespace vt {

namespace {

using nlohmann::json;

// Larger headers are not produced by any writer; refusing them bounds the
// memory a hostile file can make the JSON parser use.
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

Result<TensorDType> ParseDType(const std::string& s) {
  if (s == "BF16") return TensorDType::kBF16;
  if (s == "F16") return TensorDType::kF16;
  if (s == "F32") return TensorDType::kF32;
  if (s == "I32") return TensorDType::kI32;
  static const char* kKnown[] = {"F64", "I64", "I16", "I8", "U8", "U16", "U32", "U64", "BOOL",
                                 "F8_E4M3", "F8_E5M2"};
  for (const char* k : kKnown) {
    if (s == k) return Unimplemented("dtype " + s + " is not supported (BF16, F16, F32, I32 are)");
  }
  return DataLoss("unknown dtype '" + s + "'");
}

struct Span {
  uint64_t begin;
  uint64_t end;
  std::string name;
};

Status ParseEntry(const std::string& name, const json& entry, uint64_t data_size, TensorInfo* info, Span* span) {
  if (!entry.is_object()) return DataLoss("entry is not an object");
  auto dtype_it = entry.find("dtype");
  auto shape_it = entry.find("shape");
  auto offsets_it = entry.find("data_offsets");
  if (dtype_it == entry.end() || !dtype_it->is_string()) return DataLoss("missing or non-string 'dtype'");
  if (shape_it == entry.end() || !shape_it->is_array()) return DataLoss("missing or non-array 'shape'");
  if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2) {
    return DataLoss("'data_offsets' must be a [begin, end] pair");
  }
  Result<TensorDType> dtype = ParseDType(dtype_it->get<std::string>());
  if (!dtype.ok()) return dtype.status();
  info->dtype = *dtype;

  uint64_t elements = 1;
  for (const json& d : *shape_it) {
    if (!d.is_number_unsigned()) return DataLoss("shape " + shape_it->dump() + " has a non-integer or negative size");
    uint64_t v = d.get<uint64_t>();
    if (v > (1ull << 40) || __builtin_mul_overflow(elements, v, &elements)) {
      return DataLoss("shape " + shape_it->dump() + " is too large");
    }
    info->shape.push_back(static_cast<int64_t>(v));
  }
  const json& b = (*offsets_it)[0];
  const json& e = (*offsets_it)[1];
  if (!b.is_number_unsigned() || !e.is_number_unsigned()) return DataLoss("data_offsets must be non-negative integers");
  span->begin = b.get<uint64_t>();
  span->end = e.get<uint64_t>();
  span->name = name;
  if (span->begin > span->end) return DataLoss("data_offsets " + offsets_it->dump() + " end before they begin");
  if (span->end > data_size) {
    return DataLoss("data_offsets " + offsets_it->dump() + " end past the data section (" +
                    std::to_string(data_size) + " bytes; the file is truncated or corrupt)");
  }
  uint64_t nbytes;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(TensorDTypeSize(info->dtype)), &nbytes) ||
      nbytes != span->end - span->begin) {
    return DataLoss("shape " + ShapeString(info->shape) + " of " + TensorDTypeName(info->dtype) + " needs " +
                    std::to_string(elements * TensorDTypeSize(info->dtype)) + " bytes but data_offsets span " +
                    std::to_string(span->end - span->begin));
  }
  info->nbytes = nbytes;
  return Status::Ok();
}

}  // namespace

Status ParseSafetensors(const uint8_t* data, size_t size, const std::string& label, TensorStore* store) {
  if (size < 8) return DataLoss(label + ": " + std::to_string(size) + " bytes, too short for a safetensors header");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | data[i];
  if (header_len > size - 8) {
    return DataLoss(label + ": header length " + std::to_string(header_len) + " exceeds the file size (" +
                    std::to_string(size) + " bytes)");
  }
  if (header_len > kMaxHeaderBytes) return DataLoss(label + ": header length " + std::to_string(header_len) + " is implausibly large");
  const char* header = reinterpret_cast<const char*>(data + 8);
  json j = json::parse(header, header + header_len, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return DataLoss(label + ": header is not a JSON object");

  const uint64_t data_begin = 8 + header_len;
  const uint64_t data_size = size - data_begin;
  std::vector<Span> spans;
  std::vector<std::pair<std::string, TensorInfo>> parsed;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    TensorInfo info;
    Span span;
    Status s = ParseEntry(it.key(), it.value(), data_size, &info, &span);
    if (!s.ok()) return Status(s.code(), label + ": tensor '" + it.key() + "': " + s.message());
    if ((data_begin + span.begin) % TensorDTypeSize(info.dtype) != 0) {
      return DataLoss(label + ": tensor '" + it.key() + "' is not aligned to its element size");
    }
    info.data = data + data_begin + span.begin;
    info.file = label;
    spans.push_back(span);
    parsed.emplace_back(it.key(), std::move(info));
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].begin < spans[i - 1].end) {
      return DataLoss(label + ": tensor '" + spans[i].name + "' overlaps tensor '" + spans[i - 1].name + "'");
    }
  }
  for (auto& [name, info] : parsed) {
    if (!store->Add(name, std::move(info))) return DataLoss(label + ": tensor '" + name + "' appears twice");
  }
  return Status::Ok();
}

Status AddSafetensorsFile(const std::string& path, TensorStore* store) {
  Result<std::shared_ptr<MappedFile>> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  VT_RETURN_IF_ERROR(ParseSafetensors((*file)->data(), (*file)->size(), path, store));
  store->KeepAlive(*file);
  return Status::Ok();
}

}  // namespace vt
