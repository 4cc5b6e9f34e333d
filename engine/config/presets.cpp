#include "engine/config/presets.h"

#include <functional>
#include <map>
#include <string_view>

namespace vt {

namespace {

ModelConfig Qwen3(int64_t hidden, int64_t inter, int64_t layers, int64_t heads, int64_t kv_heads, bool tied) {
  ModelConfig c;
  c.arch = Architecture::kQwen3;
  c.hidden_size = hidden;
  c.intermediate_size = inter;
  c.num_layers = layers;
  c.num_heads = heads;
  c.num_kv_heads = kv_heads;
  c.head_dim = 128;
  c.vocab_size = 151936;
  c.max_position_embeddings = 40960;
  c.rms_norm_eps = 1e-6f;
  c.rope_theta = 1000000.0;
  c.qk_norm = true;
  c.tie_word_embeddings = tied;
  c.bos_token_id = 151643;
  c.eos_token_ids = {151645, 151643};
  return c;
}

ModelConfig Llama3(bool rope_scaling, int64_t hidden = 4096, int64_t inter = 14336, int64_t layers = 32,
                   int64_t heads = 32) {
  ModelConfig c;
  c.arch = Architecture::kLlama;
  c.hidden_size = hidden;
  c.intermediate_size = inter;
  c.num_layers = layers;
  c.num_heads = heads;
  c.num_kv_heads = 8;
  c.head_dim = 128;
  c.vocab_size = 128256;
  c.max_position_embeddings = rope_scaling ? 131072 : 8192;
  c.rms_norm_eps = 1e-5f;
  c.rope_theta = 500000.0;
  c.bos_token_id = 128000;
  c.eos_token_ids = {128001, 128009};
  if (rope_scaling) c.rope_scaling = {true, 8.0f, 1.0f, 4.0f, 8192};
  return c;
}

const std::map<std::string, std::function<ModelConfig()>>& Presets() {
  static const std::map<std::string, std::function<ModelConfig()>> presets = {
      {"qwen3-0.6b", [] { return Qwen3(1024, 3072, 28, 16, 8, true); }},
      {"qwen3-1.7b", [] { return Qwen3(2048, 6144, 28, 16, 8, true); }},
      {"qwen3-8b", [] { return Qwen3(4096, 12288, 36, 32, 8, false); }},
      {"qwen3-32b", [] { return Qwen3(5120, 25600, 64, 64, 8, false); }},
      // Qwen3-1.7B with 256-wide heads (8 query, 4 KV heads, same q width):
      // no published checkpoint of this family has head_dim 256, but the CUDA
      // decode kernels have an arm for it and need a model to run it in.
      {"qwen3-1.7b-hd256",
       [] {
         ModelConfig c = Qwen3(2048, 6144, 28, 8, 4, true);
         c.head_dim = 256;
         return c;
       }},
      {"llama3-8b", [] { return Llama3(false); }},
      {"llama3.1-8b", [] { return Llama3(true); }},
      // ~141 GB of bf16 weights: more than one H200 holds (tensor parallelism, issue #19).
      {"llama3-70b", [] { return Llama3(false, 8192, 28672, 80, 64); }},
  };
  return presets;
}

}  // namespace

Result<ModelConfig> PresetConfig(const std::string& name) {
  constexpr std::string_view kGptqSuffix = "-gptq";
  if (name.size() > kGptqSuffix.size() && name.ends_with(kGptqSuffix)) {
    Result<ModelConfig> base = PresetConfig(name.substr(0, name.size() - kGptqSuffix.size()));
    if (!base.ok()) return base.status();
    base->gptq = GptqConfig{};  // 4 bits, group 128, symmetric, no act-order
    return base;
  }
  auto it = Presets().find(name);
  if (it == Presets().end()) {
    std::string known;
    for (const std::string& n : PresetNames()) known += (known.empty() ? "" : ", ") + n;
    return NotFound("unknown preset '" + name + "' (known: " + known + "; each also as NAME-gptq)");
  }
  return it->second();
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const auto& [name, make] : Presets()) names.push_back(name);
  return names;
}

}  // namespace vt
