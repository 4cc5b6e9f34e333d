// The token-exact gate of the embedded default model (assets/models/fortune-qwen3-7m):
// the CPU engine, running all 16 prompts as one continuously batched set, must reproduce
// the greedy continuations transformers computed in float32 on the same bf16 weights
// (assets/models/fortune-qwen3-7m/train_embedded_model.py), token for token up to the first step whose top-2
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
#include "tests/engine/tiny_model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/assets/embedded_fixture.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

constexpr double kMarginFloor = 1e-3;

const fs::path kModelDir = fs::path(VT_SOURCE_DIR) / "assets/models/fortune-qwen3-7m";

nlohmann::json ReadExpected() { return testing::ReadEmbeddedExpected(VT_SOURCE_DIR); }

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
  LlmEngine engine(testing::CpuRunner(loaded->config, std::move(loaded->weights), ec), ec);

  testing::ExpectFixtureGreedy(engine, expected, kMarginFloor, "cpu");
}

}  // namespace
}  // namespace vt
