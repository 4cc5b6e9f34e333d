#include "engine/config/model_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/config/quantization_config.h"

namespace vt {

namespace {

using nlohmann::json;

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Reads an optional integer field; a present field of the wrong type is an error.
Status GetInt(const json& j, const char* key, int64_t* out, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return required ? InvalidArgument(std::string("config.json: missing '") + key + "'") : Status::Ok();
  }
  if (!it->is_number_integer()) return InvalidArgument(std::string("config.json: '") + key + "' must be an integer");
  *out = it->get<int64_t>();
  return Status::Ok();
}

Status GetDouble(const json& j, const char* key, double* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_number()) return InvalidArgument(std::string("config.json: '") + key + "' must be a number");
  *out = it->get<double>();
  return Status::Ok();
}

Status GetBool(const json& j, const char* key, bool* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_boolean()) return InvalidArgument(std::string("config.json: '") + key + "' must be true or false");
  *out = it->get<bool>();
  return Status::Ok();
}

Status ParseTokenIds(const json& j, const char* key, std::vector<int32_t>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  out->clear();
  if (it->is_number_integer()) {
    out->push_back(it->get<int32_t>());
    return Status::Ok();
  }
  if (!it->is_array()) return InvalidArgument(std::string("'") + key + "' must be an id or a list of ids");
  for (const json& v : *it) {
    if (!v.is_number_integer()) return InvalidArgument(std::string("'") + key + "' must hold integers");
    out->push_back(v.get<int32_t>());
  }
  return Status::Ok();
}

Result<Architecture> ParseArchitecture(const json& j) {
  std::string name;
  auto arches = j.find("architectures");
  if (arches != j.end() && arches->is_array() && !arches->empty() && (*arches)[0].is_string()) {
    name = (*arches)[0].get<std::string>();
  } else if (j.contains("model_type") && j["model_type"].is_string()) {
    name = j["model_type"].get<std::string>();
  }
  if (name == "LlamaForCausalLM" || name == "llama") return Architecture::kLlama;
  if (name == "MistralForCausalLM" || name == "mistral") return Architecture::kMistral;
  if (name == "Qwen2ForCausalLM" || name == "qwen2") return Architecture::kQwen2;
  if (name == "Qwen3ForCausalLM" || name == "qwen3") return Architecture::kQwen3;
  if (name.empty()) return InvalidArgument("config.json: no 'architectures' or 'model_type'");
  return Unimplemented("config.json: architecture '" + name +
                       "' is not supported (supported: LlamaForCausalLM, MistralForCausalLM, "
                       "Qwen2ForCausalLM, Qwen3ForCausalLM)");
}

// rope_scaling (transformers 4) or rope_parameters (transformers 5).
Status ParseRope(const json& j, ModelConfig* c) {
  const json* rope = nullptr;
  if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) rope = &j["rope_parameters"];
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) rope = &j["rope_scaling"];
  VT_RETURN_IF_ERROR(GetDouble(j, "rope_theta", &c->rope_theta));
  if (rope == nullptr) return Status::Ok();
  VT_RETURN_IF_ERROR(GetDouble(*rope, "rope_theta", &c->rope_theta));
  std::string type = "default";
  for (const char* key : {"rope_type", "type"}) {
    if (rope->contains(key) && (*rope)[key].is_string()) type = (*rope)[key].get<std::string>();
  }
  if (type == "default") return Status::Ok();
  if (type != "llama3") {
    return Unimplemented("config.json: rope scaling type '" + type + "' is not supported (supported: llama3)");
  }
  double factor = 0, low = 1, high = 4;
  int64_t original = 0;
  VT_RETURN_IF_ERROR(GetDouble(*rope, "factor", &factor));
  VT_RETURN_IF_ERROR(GetDouble(*rope, "low_freq_factor", &low));
  VT_RETURN_IF_ERROR(GetDouble(*rope, "high_freq_factor", &high));
  VT_RETURN_IF_ERROR(GetInt(*rope, "original_max_position_embeddings", &original, true));
  if (factor <= 0 || low <= 0 || high <= low || original <= 0) {
    return InvalidArgument("config.json: llama3 rope scaling needs factor > 0 and 0 < low_freq_factor < "
                           "high_freq_factor");
  }
  c->rope_scaling = {true, static_cast<float>(factor), static_cast<float>(low), static_cast<float>(high), original};
  return Status::Ok();
}

Status ParseInto(const json& j, ModelConfig* c) {
  Result<Architecture> arch = ParseArchitecture(j);
  if (!arch.ok()) return arch.status();
  c->arch = *arch;
  VT_RETURN_IF_ERROR(GetInt(j, "hidden_size", &c->hidden_size, true));
  VT_RETURN_IF_ERROR(GetInt(j, "intermediate_size", &c->intermediate_size, true));
  VT_RETURN_IF_ERROR(GetInt(j, "num_hidden_layers", &c->num_layers, true));
  VT_RETURN_IF_ERROR(GetInt(j, "num_attention_heads", &c->num_heads, true));
  c->num_kv_heads = c->num_heads;
  VT_RETURN_IF_ERROR(GetInt(j, "num_key_value_heads", &c->num_kv_heads, false));
  if (c->num_heads > 0) c->head_dim = c->hidden_size / c->num_heads;
  VT_RETURN_IF_ERROR(GetInt(j, "head_dim", &c->head_dim, false));
  VT_RETURN_IF_ERROR(GetInt(j, "vocab_size", &c->vocab_size, true));
  c->max_position_embeddings = 4096;
  VT_RETURN_IF_ERROR(GetInt(j, "max_position_embeddings", &c->max_position_embeddings, false));
  double eps = c->rms_norm_eps;
  VT_RETURN_IF_ERROR(GetDouble(j, "rms_norm_eps", &eps));
  c->rms_norm_eps = static_cast<float>(eps);
  VT_RETURN_IF_ERROR(ParseRope(j, c));

  // Qwen2 always has q/k/v biases and its config does not say so.
  c->attention_bias = c->arch == Architecture::kQwen2;
  VT_RETURN_IF_ERROR(GetBool(j, "attention_bias", &c->attention_bias));
  c->qk_norm = c->arch == Architecture::kQwen3;
  c->tie_word_embeddings = false;
  VT_RETURN_IF_ERROR(GetBool(j, "tie_word_embeddings", &c->tie_word_embeddings));

  bool mlp_bias = false;
  VT_RETURN_IF_ERROR(GetBool(j, "mlp_bias", &mlp_bias));
  if (mlp_bias) return Unimplemented("config.json: mlp_bias = true is not supported");
  if (j.contains("hidden_act") && j["hidden_act"] != "silu") {
    return Unimplemented("config.json: hidden_act '" + j["hidden_act"].dump() + "' is not supported (only silu)");
  }
  Result<std::optional<GptqConfig>> gptq = ParseQuantizationConfig(j);
  if (!gptq.ok()) return gptq.status();
  c->gptq = *gptq;
  bool use_sliding = c->arch == Architecture::kMistral;
  VT_RETURN_IF_ERROR(GetBool(j, "use_sliding_window", &use_sliding));
  int64_t window = 0;
  VT_RETURN_IF_ERROR(GetInt(j, "sliding_window", &window, false));
  if (use_sliding && window > 0 && window < c->max_position_embeddings) {
    if (c->arch != Architecture::kMistral) {
      return Unimplemented("config.json: sliding-window attention is not supported");
    }
    // Within the window, sliding-window attention is full attention; capping
    // the context there keeps Mistral v0.1 exact instead of approximating it.
    c->max_position_embeddings = window;
  }

  VT_RETURN_IF_ERROR(ParseTokenIds(j, "eos_token_id", &c->eos_token_ids));
  std::vector<int32_t> bos;
  VT_RETURN_IF_ERROR(ParseTokenIds(j, "bos_token_id", &bos));
  if (!bos.empty()) c->bos_token_id = bos[0];
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (j.contains(key) && j[key].is_string()) c->torch_dtype = j[key].get<std::string>();
  }
  return ValidateConfig(*c);
}

}  // namespace

const char* ArchitectureName(Architecture a) {
  switch (a) {
    case Architecture::kLlama: return "LlamaForCausalLM";
    case Architecture::kMistral: return "MistralForCausalLM";
    case Architecture::kQwen2: return "Qwen2ForCausalLM";
    case Architecture::kQwen3: return "Qwen3ForCausalLM";
  }
  return "?";
}

int64_t ModelConfig::NumParameters() const {
  const int64_t attn = hidden_size * (q_size() + 2 * kv_size()) + q_size() * hidden_size +
                       (attention_bias ? q_size() + 2 * kv_size() : 0) + (qk_norm ? 2 * head_dim : 0);
  const int64_t mlp = 3 * hidden_size * intermediate_size;
  const int64_t layer = attn + mlp + 2 * hidden_size;
  const int64_t embed = vocab_size * hidden_size;
  return num_layers * layer + embed * (tie_word_embeddings ? 1 : 2) + hidden_size;
}

Status ValidateConfig(const ModelConfig& c) {
  if (c.hidden_size <= 0 || c.intermediate_size <= 0 || c.num_layers <= 0 || c.num_heads <= 0 ||
      c.num_kv_heads <= 0 || c.head_dim <= 0 || c.vocab_size <= 0 || c.max_position_embeddings <= 0) {
    return InvalidArgument("config: sizes must be positive");
  }
  if (c.num_heads % c.num_kv_heads != 0) {
    return InvalidArgument("config: num_attention_heads (" + std::to_string(c.num_heads) +
                           ") is not a multiple of num_key_value_heads (" + std::to_string(c.num_kv_heads) + ")");
  }
  if (c.head_dim % 2 != 0) return InvalidArgument("config: head_dim must be even for RoPE");
  // Far above any real model, and low enough that no size product overflows.
  if (c.vocab_size > (1 << 24) || c.hidden_size > (1 << 17) || c.intermediate_size > (1 << 19) ||
      c.num_layers > 1024 || c.num_heads > 1024 || c.head_dim > 1024 || c.max_position_embeddings > (1 << 24)) {
    return InvalidArgument("config: sizes are implausibly large");
  }
  return Status::Ok();
}

Result<ModelConfig> ParseHfConfig(const std::string& json_text) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument("config.json: not a JSON object");
  ModelConfig c;
  try {
    VT_RETURN_IF_ERROR(ParseInto(j, &c));
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("config.json: ") + e.what());
  }
  return c;
}

Result<ModelConfig> LoadHfConfig(const std::string& model_dir) {
  Result<std::string> text = ReadFile(model_dir + "/config.json");
  if (!text.ok()) return text.status();
  Result<ModelConfig> config = ParseHfConfig(*text);
  if (!config.ok()) return Status(config.status().code(), model_dir + "/" + config.status().message());
  Result<std::string> gen = ReadFile(model_dir + "/generation_config.json");
  if (gen.ok()) {
    json g = json::parse(*gen, nullptr, false);
    std::vector<int32_t> eos;
    if (g.is_object() && ParseTokenIds(g, "eos_token_id", &eos).ok() && !eos.empty()) {
      config->eos_token_ids = eos;
    }
  }
  return config;
}

}  // namespace vt
