// The safetensors reader on valid, sharded and corrupt files: every corrupt
// header is an error naming the tensor, never a crash or an out-of-bounds read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "engine/loader/checkpoint.h"
#include "engine/loader/safetensors.h"
#include "kernels/bf16.h"
#include "tests/engine/loader/safetensors_writer.h"

namespace vt::testing {
namespace {

std::vector<uint8_t> Bf16Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t bits = FloatToBf16(v[i]).bits;
    std::memcpy(&b[2 * i], &bits, 2);
  }
  return b;
}

std::vector<uint8_t> F32Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<RawTensor> TwoTensors() {
  return {{"a.weight", "BF16", {2, 3}, Bf16Bytes({1, 2, 3, 4, 5, 6})},
          {"b.bias", "F32", {3}, F32Bytes({0.5f, -1.5f, 2.25f})}};
}

Status Parse(const std::string& bytes, TensorStore* store) {
  return ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "test.safetensors", store);
}

TEST(Safetensors, ReadsTensorsInPlace) {
  const auto tensors = TwoTensors();
  const std::string bytes = SafetensorsBytes(SafetensorsHeader(tensors), tensors);
  TensorStore store;
  ASSERT_TRUE(Parse(bytes, &store).ok());
  const TensorInfo* a = store.Find("a.weight");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->dtype, TensorDType::kBF16);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_FLOAT_EQ(kernels::cpu::LoadAsFloat(DType::kBF16, a->data, 4), 5.0f);
  const TensorInfo* b = store.Find("b.bias");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->dtype, TensorDType::kF32);
  EXPECT_FLOAT_EQ(kernels::cpu::LoadAsFloat(DType::kF32, b->data, 2), 2.25f);
  EXPECT_EQ(store.Find("__metadata__"), nullptr);
  EXPECT_EQ(store.TotalBytes(), 12u + 12u);
}

struct Corruption {
  const char* name;
  std::function<std::string()> make;
  const char* message_part;
};

std::string WithHeader(const std::function<void(nlohmann::json&)>& edit) {
  const auto tensors = TwoTensors();
  nlohmann::json h = SafetensorsHeader(tensors);
  edit(h);
  return SafetensorsBytes(h, tensors);
}

std::vector<Corruption> Corruptions() {
  const auto tensors = TwoTensors();
  const std::string good = SafetensorsBytes(SafetensorsHeader(tensors), tensors);
  return {
      {"empty", [] { return std::string(); }, "too short"},
      {"short_length", [] { return std::string("\x10\x00\x00", 3); }, "too short"},
      {"header_past_end", [good] { std::string s = good; s[5] = '\x7f'; return s; }, "exceeds the file size"},
      {"truncated_data", [good] { return good.substr(0, good.size() - 4); }, "tensor 'b.bias'"},
      {"not_json", [] { std::string s(8, '\0'); s[0] = 4; return s + "{{{{"; }, "not a JSON object"},
      {"offsets_past_end", [] { return WithHeader([](auto& h) { h["b.bias"]["data_offsets"] = {12, 9000}; }); },
       "tensor 'b.bias': data_offsets [12,9000] end past the data section"},
      {"offsets_reversed", [] { return WithHeader([](auto& h) { h["a.weight"]["data_offsets"] = {12, 0}; }); },
       "tensor 'a.weight'"},
      {"shape_size_mismatch", [] { return WithHeader([](auto& h) { h["a.weight"]["shape"] = {3, 3}; }); },
       "tensor 'a.weight': shape [3, 3] of BF16 needs 18 bytes but data_offsets span 12"},
      {"negative_dim", [] { return WithHeader([](auto& h) { h["a.weight"]["shape"] = {-2, -3}; }); },
       "tensor 'a.weight'"},
      {"overflowing_shape",
       [] { return WithHeader([](auto& h) { h["a.weight"]["shape"] = {1ll << 40, 1ll << 40, 1ll << 40}; }); },
       "too large"},
      {"unknown_dtype", [] { return WithHeader([](auto& h) { h["a.weight"]["dtype"] = "Q9"; }); },
       "tensor 'a.weight': unknown dtype 'Q9'"},
      {"unsupported_dtype", [] { return WithHeader([](auto& h) { h["a.weight"]["dtype"] = "I64"; }); },
       "not supported"},
      {"missing_offsets", [] { return WithHeader([](auto& h) { h["a.weight"].erase("data_offsets"); }); },
       "tensor 'a.weight'"},
      {"entry_not_object", [] { return WithHeader([](auto& h) { h["a.weight"] = 5; }); }, "tensor 'a.weight'"},
      {"overlap", [] { return WithHeader([](auto& h) {
         h["b.bias"]["data_offsets"] = {0, 12};
         h["b.bias"]["shape"] = {3};
       }); },
       "overlaps"},
      {"misaligned", [] { return WithHeader([](auto& h) {
         h["b.bias"]["dtype"] = "BF16";
         h["b.bias"]["shape"] = {2};
         h["b.bias"]["data_offsets"] = {13, 17};
       }); },
       "aligned"},
  };
}

TEST(Safetensors, CorruptFilesAreErrorsNamingTheProblem) {
  for (const Corruption& c : Corruptions()) {
    SCOPED_TRACE(c.name);
    // Copy into an exactly sized heap buffer so AddressSanitizer or valgrind
    // would flag any read past the end.
    const std::string bytes = c.make();
    std::unique_ptr<uint8_t[]> buf(new uint8_t[bytes.size() + 1]);
    std::memcpy(buf.get(), bytes.data(), bytes.size());
    TensorStore store;
    Status s = ParseSafetensors(buf.get(), bytes.size(), "test.safetensors", &store);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.message();
    EXPECT_EQ(s.message().rfind("test.safetensors", 0), 0u) << s.message();
  }
}

// Random byte flips and truncations of a valid file: every outcome is a
// value (ok or an error), and accepted tensors always lie inside the buffer.
TEST(Safetensors, MutatedFilesNeverReadOutOfBounds) {
  const auto tensors = TwoTensors();
  const std::string good = SafetensorsBytes(SafetensorsHeader(tensors), tensors);
  std::mt19937 rng(42);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t pos = rng() % bytes.size();
      bytes[pos] = static_cast<char>(rng() % 4 == 0 ? "0123456789-,[]{}\"e"[rng() % 17] : rng() % 256);
    }
    if (rng() % 5 == 0) bytes.resize(rng() % bytes.size());
    std::unique_ptr<uint8_t[]> buf(new uint8_t[bytes.size() + 1]);
    std::memcpy(buf.get(), bytes.data(), bytes.size());
    TensorStore store;
    if (!ParseSafetensors(buf.get(), bytes.size(), "fuzz.safetensors", &store).ok()) {
      ++rejected;
      continue;
    }
    for (const auto& [name, t] : store.tensors()) {
      const auto* p = static_cast<const uint8_t*>(t.data);
      ASSERT_GE(p, buf.get());
      ASSERT_LE(p + t.nbytes, buf.get() + bytes.size()) << name;
    }
  }
  EXPECT_GT(rejected, 1000);
}

TEST(Checkpoint, ShardedIndex) {
  const auto dir = TempDir("sharded");
  const auto tensors = TwoTensors();
  std::vector<RawTensor> first = {tensors[0]}, second = {tensors[1]};
  WriteFile(dir / "model-00001-of-00002.safetensors", SafetensorsBytes(SafetensorsHeader(first), first));
  WriteFile(dir / "model-00002-of-00002.safetensors", SafetensorsBytes(SafetensorsHeader(second), second));
  WriteFile(dir / "model.safetensors.index.json",
            R"({"metadata": {}, "weight_map": {"a.weight": "model-00001-of-00002.safetensors",
                "b.bias": "model-00002-of-00002.safetensors"}})");
  Result<std::shared_ptr<TensorStore>> store = OpenCheckpoint(dir.string());
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_NE((*store)->Find("a.weight"), nullptr);
  EXPECT_NE((*store)->Find("b.bias"), nullptr);

  WriteFile(dir / "model.safetensors.index.json", R"({"weight_map": {"a.weight": "../../etc/passwd"}})");
  Result<std::shared_ptr<TensorStore>> escaped = OpenCheckpoint(dir.string());
  ASSERT_FALSE(escaped.ok());
  EXPECT_NE(escaped.status().message().find("invalid file name"), std::string::npos);

  WriteFile(dir / "model.safetensors.index.json",
            R"({"weight_map": {"c.weight": "model-00001-of-00002.safetensors"}})");
  Result<std::shared_ptr<TensorStore>> missing = OpenCheckpoint(dir.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'c.weight'"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Checkpoint, MissingFilesAreNotFound) {
  const auto dir = TempDir("empty");
  Result<std::shared_ptr<TensorStore>> store = OpenCheckpoint(dir.string());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vt::testing
