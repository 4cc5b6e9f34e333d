// Writes safetensors files for tests, including deliberately broken ones.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vt::testing {

struct RawTensor {
  std::string name;
  std::string dtype;  // "BF16", "F16", "F32", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// The header as JSON, so a test can corrupt any field before serialising.
inline nlohmann::json SafetensorsHeader(const std::vector<RawTensor>& tensors) {
  nlohmann::json h = nlohmann::json::object();
  uint64_t offset = 0;
  for (const RawTensor& t : tensors) {
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  h["__metadata__"] = {{"format", "pt"}};
  return h;
}

inline std::string SafetensorsBytes(const nlohmann::json& header, const std::vector<RawTensor>& tensors) {
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');
  std::string out(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += text;
  for (const RawTensor& t : tensors) out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

inline void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("vt_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace vt::testing
