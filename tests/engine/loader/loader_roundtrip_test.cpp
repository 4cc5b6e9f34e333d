// A model written to disk as an HF directory (config.json + safetensors) and
// loaded back generates exactly what the same weights do in memory; a wrong
// shape is an error naming the tensor.
#include <gtest/gtest.h>

#include "engine/loader/model_source.h"
#include "tests/engine/loader/safetensors_writer.h"
#include "tests/engine/tiny_model.h"

namespace vt::testing {
namespace {

namespace cpu = kernels::cpu;

const char* DTypeTag(cpu::DType t) { return cpu::DTypeName(t); }

RawTensor FromMatrix(const std::string& name, const WeightMatrix& m) {
  const auto* p = static_cast<const uint8_t*>(m.data);
  return {name, DTypeTag(m.dtype), {m.rows, m.cols},
          std::vector<uint8_t>(p, p + m.rows * m.cols * cpu::DTypeSize(m.dtype))};
}

RawTensor FromVector(const std::string& name, const std::vector<float>& v, cpu::DType t) {
  std::vector<uint8_t> bytes(v.size() * cpu::DTypeSize(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == cpu::DType::kF32) {
      std::memcpy(&bytes[4 * i], &v[i], 4);
    } else {
      const uint16_t bits = t == cpu::DType::kBF16 ? FloatToBf16(v[i]).bits : cpu::FloatToFp16(v[i]);
      std::memcpy(&bytes[2 * i], &bits, 2);
    }
  }
  return {name, DTypeTag(t), {static_cast<int64_t>(v.size())}, bytes};
}

std::vector<RawTensor> ToTensors(const ModelConfig& c, const ModelWeights& w, cpu::DType t) {
  std::vector<RawTensor> out = {FromMatrix("model.embed_tokens.weight", w.embed_tokens),
                                FromVector("model.norm.weight", w.final_norm, t)};
  if (!c.tie_word_embeddings) out.push_back(FromMatrix("lm_head.weight", w.lm_head));
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    out.push_back(FromVector(p + "input_layernorm.weight", l.input_norm, t));
    out.push_back(FromVector(p + "post_attention_layernorm.weight", l.post_attention_norm, t));
    out.push_back(FromMatrix(p + "self_attn.q_proj.weight", l.q_proj));
    out.push_back(FromMatrix(p + "self_attn.k_proj.weight", l.k_proj));
    out.push_back(FromMatrix(p + "self_attn.v_proj.weight", l.v_proj));
    out.push_back(FromMatrix(p + "self_attn.o_proj.weight", l.o_proj));
    if (c.qk_norm) {
      out.push_back(FromVector(p + "self_attn.q_norm.weight", l.q_norm, t));
      out.push_back(FromVector(p + "self_attn.k_norm.weight", l.k_norm, t));
    }
    if (c.attention_bias) {
      out.push_back(FromVector(p + "self_attn.q_proj.bias", l.q_bias, t));
      out.push_back(FromVector(p + "self_attn.k_proj.bias", l.k_bias, t));
      out.push_back(FromVector(p + "self_attn.v_proj.bias", l.v_bias, t));
    }
    out.push_back(FromMatrix(p + "mlp.gate_proj.weight", l.gate_proj));
    out.push_back(FromMatrix(p + "mlp.up_proj.weight", l.up_proj));
    out.push_back(FromMatrix(p + "mlp.down_proj.weight", l.down_proj));
  }
  return out;
}

std::string ConfigJson(const ModelConfig& c) {
  nlohmann::json j = {{"architectures", {ArchitectureName(c.arch)}},
                      {"hidden_size", c.hidden_size},
                      {"intermediate_size", c.intermediate_size},
                      {"num_hidden_layers", c.num_layers},
                      {"num_attention_heads", c.num_heads},
                      {"num_key_value_heads", c.num_kv_heads},
                      {"head_dim", c.head_dim},
                      {"vocab_size", c.vocab_size},
                      {"max_position_embeddings", c.max_position_embeddings},
                      {"rms_norm_eps", c.rms_norm_eps},
                      {"rope_theta", c.rope_theta},
                      {"tie_word_embeddings", c.tie_word_embeddings},
                      {"hidden_act", "silu"}};
  return j.dump();
}

class RoundTrip : public ::testing::TestWithParam<cpu::DType> {};

TEST_P(RoundTrip, LoadedCheckpointGeneratesLikeInMemoryWeights) {
  const cpu::DType dtype = GetParam();
  for (Architecture arch : {Architecture::kQwen3, Architecture::kQwen2}) {
    ModelConfig c = TinyConfig(arch);
    c.tie_word_embeddings = arch == Architecture::kQwen2;
    cpu::ThreadPool& pool = cpu::DefaultThreadPool();
    const ModelWeights w = MakeDummyWeights(c, dtype, 3, pool);
    const auto dir = TempDir(std::string("roundtrip_") + cpu::DTypeName(dtype));
    const auto tensors = ToTensors(c, w, dtype);
    WriteFile(dir / "model.safetensors", SafetensorsBytes(SafetensorsHeader(tensors), tensors));
    WriteFile(dir / "config.json", ConfigJson(c));

    Result<LoadedModel> loaded = LoadModel(dir.string(), LoadFormat::kAuto, pool);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    SamplingParams greedy;
    greedy.temperature = 0;
    greedy.max_tokens = 8;
    EngineConfig ec;
    ec.num_kv_blocks = 32;
    LlmEngine from_disk(CpuRunner(loaded->config, std::move(loaded->weights), ec), ec);
    auto in_memory = MakeEngine(c, ec, dtype, 3);
    const std::vector<std::vector<int32_t>> prompts = {Prompt(9, 1), Prompt(21, 2)};
    EXPECT_EQ(Generate(from_disk, prompts, greedy), Generate(*in_memory, prompts, greedy));
    std::filesystem::remove_all(dir);
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, RoundTrip, ::testing::Values(cpu::DType::kBF16, cpu::DType::kF16, cpu::DType::kF32));

TEST(RoundTrip, WrongShapeNamesTheTensor) {
  ModelConfig c = TinyConfig();
  cpu::ThreadPool& pool = cpu::DefaultThreadPool();
  const ModelWeights w = MakeDummyWeights(c, cpu::DType::kBF16, 3, pool);
  auto tensors = ToTensors(c, w, cpu::DType::kBF16);
  for (RawTensor& t : tensors) {
    if (t.name == "model.layers.1.mlp.up_proj.weight") t.shape = {c.hidden_size, c.intermediate_size};
  }
  const auto dir = TempDir("wrong_shape");
  WriteFile(dir / "model.safetensors", SafetensorsBytes(SafetensorsHeader(tensors), tensors));
  WriteFile(dir / "config.json", ConfigJson(c));
  Result<LoadedModel> loaded = LoadModel(dir.string(), LoadFormat::kAuto, pool);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("'model.layers.1.mlp.up_proj.weight'"), std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("[64, 96]"), std::string::npos) << loaded.status().message();
  std::filesystem::remove_all(dir);
}

TEST(DummyWeights, SeededAndIndependentOfThreadCount) {
  ModelConfig c = TinyConfig();
  c.vocab_size = 4096;  // an embedding of several generation chunks
  cpu::ThreadPool one(1), two(2);
  const ModelWeights a = MakeDummyWeights(c, cpu::DType::kBF16, 5, one);
  const ModelWeights b = MakeDummyWeights(c, cpu::DType::kBF16, 5, two);
  const ModelWeights other = MakeDummyWeights(c, cpu::DType::kBF16, 6, two);
  const size_t n = static_cast<size_t>(c.vocab_size * c.hidden_size) * 2;
  EXPECT_EQ(std::memcmp(a.embed_tokens.data, b.embed_tokens.data, n), 0);
  EXPECT_NE(std::memcmp(a.embed_tokens.data, other.embed_tokens.data, n), 0);
  EXPECT_EQ(a.weight_bytes, static_cast<uint64_t>(c.NumParameters()) * 2);
}

}  // namespace
}  // namespace vt::testing
