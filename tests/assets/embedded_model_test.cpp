// The token-exact gate of the embedded default model (assets/models/fortune-qwen3-7m):
// the CPU engine, running all 16 prompts as one continuously batched set, must reproduce
// the greedy continuations transformers computed in float32 on the same bf16 weights
// (tools/train_embedded_model.py), token for token up to the first step whose top-2
// margin is below 1e-3; and vt's tokenizer must encode the prompt texts to the ids the
// Hugging Face tokenizer produced.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/exec/llm_engine.h"
#include "engine/loader/model_source.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

constexpr double kMarginFloor = 1e-3;

const fs::path kModelDir = fs::path(VT_SOURCE_DIR) / "assets/models/fortune-qwen3-7m";
const fs::path kExpected = fs::path(VT_SOURCE_DIR) / "tests/fixtures/embedded_model/expected.json";

nlohmann::json ReadExpected() {
  std::ifstream in(kExpected);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

TEST(EmbeddedModel, TokenizerMatchesHuggingFaceOnThePrompts) {
  const nlohmann::json expected = ReadExpected();
  Result<std::shared_ptr<Tokenizer>> tok = Tokenizer::FromFile((kModelDir / "tokenizer.json").string());
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  const auto texts = expected["prompt_texts"].get<std::vector<std::string>>();
  const auto prompts = expected["prompts"].get<std::vector<std::vector<int32_t>>>();
  ASSERT_EQ(texts.size(), prompts.size());
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ((*tok)->Encode(texts[i]), prompts[i]) << texts[i];
}

TEST(EmbeddedModel, CpuEngineReproducesTransformersGreedy) {
  const nlohmann::json expected = ReadExpected();
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> loaded = LoadModel(kModelDir.string(), LoadFormat::kAuto, pool);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EngineConfig ec;
  ec.num_kv_blocks = 256;
  LlmEngine engine(std::make_unique<DecoderModel>(loaded->config, std::move(loaded->weights), &pool), ec);

  const auto prompts = expected["prompts"].get<std::vector<std::vector<int32_t>>>();
  const auto greedy = expected["greedy"].get<std::vector<std::vector<int32_t>>>();
  const auto margins = expected["margins"].get<std::vector<std::vector<double>>>();
  ASSERT_EQ(prompts.size(), 16u);
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = static_cast<int64_t>(greedy[0].size());
  std::vector<RequestId> ids;
  for (const auto& p : prompts) ids.push_back(engine.AddRequest(p, params).value());
  while (engine.HasUnfinished()) ASSERT_TRUE(engine.Step().ok());

  for (size_t i = 0; i < ids.size(); ++i) {
    const std::vector<int32_t> out = engine.TakeFinished(ids[i])->output;
    ASSERT_EQ(out.size(), greedy[i].size());
    for (size_t s = 0; s < greedy[i].size(); ++s) {
      ASSERT_EQ(out[s], greedy[i][s]) << "prompt " << i << " step " << s << " (margin " << margins[i][s] << ")";
      if (margins[i][s] < kMarginFloor) break;  // later steps may diverge legitimately
    }
  }
}

}  // namespace
}  // namespace vt
