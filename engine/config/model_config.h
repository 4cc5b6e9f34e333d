// ModelConfig: everything the engine needs to know about a dense decoder of
// the Llama / Mistral / Qwen2 / Qwen3 family, whichever way it was described
// (an HF config.json or a named preset).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/cpu/rope.h"

namespace vt {

enum class Architecture { kLlama, kMistral, kQwen2, kQwen3 };

const char* ArchitectureName(Architecture a);  // the HF class name

// config.json's quantization_config of a GPTQ checkpoint, as the file states it
// (ParseHfConfig accepts only what the W4A16 path supports).
struct GptqConfig {
  int bits = 4;
  int group_size = 128;  // -1: one group over all of K
  bool sym = true;
  bool desc_act = false;
};

struct ModelConfig {
  Architecture arch = Architecture::kLlama;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t vocab_size = 0;
  int64_t max_position_embeddings = 0;
  float rms_norm_eps = 1e-6f;
  double rope_theta = 10000.0;
  kernels::cpu::RopeScaling rope_scaling;
  bool attention_bias = false;  // q/k/v projections carry a bias (Qwen2)
  bool qk_norm = false;         // per-head RMSNorm on q and k before RoPE (Qwen3)
  bool tie_word_embeddings = false;
  std::vector<int32_t> eos_token_ids;
  int32_t bos_token_id = -1;
  std::string torch_dtype = "bfloat16";
  std::optional<GptqConfig> gptq;  // set when the decoder projections are GPTQ int4

  int64_t q_size() const { return num_heads * head_dim; }
  int64_t kv_size() const { return num_kv_heads * head_dim; }
  // Parameters, counting a tied embedding once.
  int64_t NumParameters() const;
};

// Checks the shape invariants every path relies on (divisibility, positivity).
Status ValidateConfig(const ModelConfig& c);

// Parses an HF config.json text. Unknown architectures and options vt does not
// implement are rejected with a message naming them.
Result<ModelConfig> ParseHfConfig(const std::string& json_text);

// Reads <dir>/config.json, and generation_config.json's eos ids when present.
Result<ModelConfig> LoadHfConfig(const std::string& model_dir);

}  // namespace vt
