#include <gtest/gtest.h>

#include "engine/config/model_config.h"
#include "engine/config/presets.h"

namespace vt {
namespace {

TEST(HfConfig, Llama31WithLlama3RopeScaling) {
  Result<ModelConfig> c = ParseHfConfig(R"({
    "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "hidden_act": "silu",
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "tie_word_embeddings": false, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009],
    "torch_dtype": "bfloat16"})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->arch, Architecture::kLlama);
  EXPECT_EQ(c->head_dim, 128);
  EXPECT_TRUE(c->rope_scaling.llama3);
  EXPECT_FLOAT_EQ(c->rope_scaling.factor, 8.0f);
  EXPECT_EQ(c->rope_scaling.original_max_position, 8192);
  EXPECT_EQ(c->eos_token_ids, (std::vector<int32_t>{128001, 128008, 128009}));
  EXPECT_FALSE(c->attention_bias);
  EXPECT_FALSE(c->qk_norm);
  EXPECT_FLOAT_EQ(c->rms_norm_eps, 1e-5f);
}

TEST(HfConfig, Qwen3HasQkNormAndExplicitHeadDim) {
  Result<ModelConfig> c = ParseHfConfig(R"({
    "architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024, "intermediate_size": 3072,
    "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
    "rope_scaling": null, "tie_word_embeddings": true, "attention_bias": false, "sliding_window": null,
    "use_sliding_window": false, "eos_token_id": 151645})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->head_dim, 128);  // not hidden / heads = 64
  EXPECT_TRUE(c->qk_norm);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e6);
  EXPECT_FALSE(c->rope_scaling.llama3);
}

TEST(HfConfig, Qwen2HasQkvBiasWithoutSayingSo) {
  Result<ModelConfig> c = ParseHfConfig(R"({
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "intermediate_size": 4864,
    "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
    "max_position_embeddings": 32768, "sliding_window": 32768, "use_sliding_window": false,
    "tie_word_embeddings": true})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->attention_bias);
  EXPECT_EQ(c->head_dim, 64);
  EXPECT_FALSE(c->qk_norm);
}

TEST(HfConfig, MistralSlidingWindowCapsTheContext) {
  Result<ModelConfig> c = ParseHfConfig(R"({
    "architectures": ["MistralForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "max_position_embeddings": 32768, "sliding_window": 4096, "rope_theta": 10000.0})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->arch, Architecture::kMistral);
  EXPECT_EQ(c->max_position_embeddings, 4096);
}

TEST(HfConfig, Transformers5RopeParameters) {
  Result<ModelConfig> c = ParseHfConfig(R"({
    "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
    "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0, "original_max_position_embeddings": 64}})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->rope_theta, 500000.0);
  EXPECT_TRUE(c->rope_scaling.llama3);
  EXPECT_EQ(c->num_kv_heads, 4);
}

#define VT_BASE \
  R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100)"

TEST(HfConfig, GptqInt4) {
  Result<ModelConfig> plain = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], )" VT_BASE "}");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->gptq.has_value());
  Result<ModelConfig> c = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "quantization_config":
      {"quant_method": "gptq", "bits": 4, "group_size": -1, "sym": true, "desc_act": false, "damp_percent": 0.01}, )"
      VT_BASE "}");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->gptq.has_value());
  EXPECT_EQ(c->gptq->bits, 4);
  EXPECT_EQ(c->gptq->group_size, -1);
  Result<ModelConfig> g128 = ParseHfConfig(R"({"architectures": ["LlamaForCausalLM"], "quantization_config":
      {"quant_method": "gptq", "bits": 4}, )" VT_BASE "}");
  ASSERT_TRUE(g128.ok()) << g128.status().message();
  EXPECT_EQ(g128->gptq->group_size, 128);
}

struct Rejection {
  const char* json;
  const char* message_part;
};

class HfConfigRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(HfConfigRejects, WithAMessageNamingTheProblem) {
  Result<ModelConfig> c = ParseHfConfig(GetParam().json);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(GetParam().message_part), std::string::npos) << c.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HfConfigRejects,
    ::testing::Values(
        Rejection{R"({"architectures": ["GPT2LMHeadModel"], )" VT_BASE "}", "GPT2LMHeadModel"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "rope_scaling": {"rope_type": "yarn", "factor": 4}, )" VT_BASE
                  "}",
                  "yarn"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "gelu", )" VT_BASE "}", "gelu"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "mlp_bias": true, )" VT_BASE "}", "mlp_bias"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "awq"}, )" VT_BASE
                  "}",
                  "quantization_config.quant_method 'awq' is not supported"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq", "bits": 8}, )"
                  VT_BASE "}",
                  "GPTQ bits = 8 unsupported"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq", "bits": 4,
                     "desc_act": true}, )" VT_BASE "}",
                  "GPTQ desc_act = true"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq", "bits": 4,
                     "sym": false}, )" VT_BASE "}",
                  "GPTQ sym = false"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq", "bits": 4,
                     "group_size": 64}, )" VT_BASE "}",
                  "GPTQ group_size = 64 unsupported"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq",
                     "bits": "4"}, )" VT_BASE "}",
                  "quantization_config.bits must be"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "quantization_config": {"quant_method": "gptq"}, )" VT_BASE
                  "}",
                  "missing 'bits'"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "num_key_value_heads": 3, )" VT_BASE "}",
                  "multiple of num_key_value_heads"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "hidden_size": "64"})", "hidden_size"},
        Rejection{R"({"architectures": ["Qwen2ForCausalLM"], "use_sliding_window": true, "sliding_window": 16, )" VT_BASE
                  "}",
                  "sliding-window"},
        Rejection{R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4000000000, "intermediate_size": 128,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})",
                  "implausibly large"},
        Rejection{"not json", "not a JSON object"}));

TEST(Presets, RealShapes) {
  Result<ModelConfig> q = PresetConfig("qwen3-0.6b");
  ASSERT_TRUE(q.ok());
  // Qwen3-0.6B: 0.6B parameters, 0.44B without the (tied) embedding.
  EXPECT_NEAR(q->NumParameters() / 1e9, 0.596, 0.01);
  EXPECT_NEAR((q->NumParameters() - q->vocab_size * q->hidden_size) / 1e9, 0.44, 0.01);
  EXPECT_NEAR(PresetConfig("qwen3-1.7b")->NumParameters() / 1e9, 1.72, 0.02);
  EXPECT_NEAR(PresetConfig("qwen3-8b")->NumParameters() / 1e9, 8.19, 0.05);
  EXPECT_NEAR(PresetConfig("qwen3-32b")->NumParameters() / 1e9, 32.8, 0.2);
  EXPECT_NEAR(PresetConfig("llama3-8b")->NumParameters() / 1e9, 8.03, 0.02);
  EXPECT_TRUE(PresetConfig("llama3.1-8b")->rope_scaling.llama3);
  EXPECT_NEAR(PresetConfig("llama3-70b")->NumParameters() / 1e9, 70.55, 0.05);
  EXPECT_EQ(PresetConfig("qwen3-1.7b-hd256")->head_dim, 256);
  for (const std::string& name : PresetNames()) EXPECT_TRUE(ValidateConfig(PresetConfig(name).value()).ok()) << name;
  Result<ModelConfig> unknown = PresetConfig("gpt-5");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("qwen3-0.6b"), std::string::npos);
}

TEST(Presets, GptqSuffixQuantisesTheSameShape) {
  Result<ModelConfig> q = PresetConfig("llama3-8b-gptq");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_TRUE(q->gptq.has_value());
  EXPECT_EQ(q->gptq->group_size, 128);
  EXPECT_EQ(q->hidden_size, PresetConfig("llama3-8b")->hidden_size);
  EXPECT_FALSE(PresetConfig("llama3-8b")->gptq.has_value());
  EXPECT_FALSE(PresetConfig("gpt-5-gptq").ok());
  EXPECT_FALSE(PresetConfig("-gptq").ok());
}

}  // namespace
}  // namespace vt
