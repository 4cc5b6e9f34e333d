// The CPU engine against transformers (tests/fixtures/hf/make_hf_fixtures.py): tiny
// random-weight models of each architecture, saved as bf16 safetensors with
// their HF configs. Greedy output must match token for token up to the first
// step whose top-2 margin is below 1e-3 (where float rounding may
// legitimately flip the argmax), and first-step logits within 1e-4 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/exec/llm_engine.h"
#include "engine/loader/model_source.h"
#include "tests/engine/tiny_model.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

constexpr double kMarginFloor = 1e-3;
constexpr double kLogitRelTol = 1e-4;

fs::path FixtureRoot() { return fs::path(VT_SOURCE_DIR) / "tests/fixtures/hf"; }

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  if (fs::exists(FixtureRoot())) {
    for (const auto& e : fs::directory_iterator(FixtureRoot())) {
      if (fs::exists(e.path() / "expected.json")) names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(HfFixtures, MatchTransformers) {
  const std::vector<std::string> names = CaseNames();
  if (names.empty()) {
    GTEST_SKIP() << "no fixtures in tests/fixtures/hf: generate them with tests/fixtures/hf/make_hf_fixtures.py "
                    "where torch and transformers are installed";
  }
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const fs::path dir = FixtureRoot() / name;
    std::ifstream in(dir / "expected.json");
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json expected = nlohmann::json::parse(text.str());

    Result<LoadedModel> loaded = LoadModel(dir.string(), LoadFormat::kAuto, pool);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    Result<LoadedModel> again = LoadModel(dir.string(), LoadFormat::kAuto, pool);
    ASSERT_TRUE(again.ok()) << again.status().message();
    const int64_t vocab = loaded->config.vocab_size;
    DecoderModel model(loaded->config, std::move(loaded->weights), &pool);
    EngineConfig ec;
    ec.num_kv_blocks = 128;
    LlmEngine engine(testing::CpuRunner(again->config, std::move(again->weights), ec), ec);

    const auto prompts = expected["prompts"].get<std::vector<std::vector<int32_t>>>();
    const auto greedy = expected["greedy"].get<std::vector<std::vector<int32_t>>>();
    const auto margins = expected["margins"].get<std::vector<std::vector<double>>>();
    const auto logits = expected["first_step_logits"].get<std::vector<std::vector<double>>>();
    SamplingParams params;
    params.temperature = 0.0f;
    params.ignore_eos = true;
    params.max_tokens = static_cast<int64_t>(greedy[0].size());
    params.logprobs = 0;
    std::vector<RequestId> ids;
    for (const auto& p : prompts) ids.push_back(engine.AddRequest(p, params).value());

    // First-step logits: one forward of each prompt through the same model.
    for (size_t i = 0; i < prompts.size(); ++i) {
      KvCacheStorage cache(model.config(), 64, 16);
      std::vector<int32_t> table(64);
      for (int32_t b = 0; b < 64; ++b) table[b] = b;
      std::vector<float> got;
      const std::vector<ForwardSeq> batch = {
          {prompts[i].data(), static_cast<int64_t>(prompts[i].size()), 0, table.data(), 64, true}};
      ASSERT_TRUE(model.Forward(batch, &cache, &got).ok());
      ASSERT_EQ(got.size(), static_cast<size_t>(vocab));
      double scale = 0;
      for (double v : logits[i]) scale = std::max(scale, std::abs(v));
      for (int64_t v = 0; v < vocab; ++v) {
        ASSERT_NEAR(got[v], logits[i][v], kLogitRelTol * scale) << "prompt " << i << " logit " << v;
      }
    }

    while (engine.HasUnfinished()) ASSERT_TRUE(engine.Step().ok());
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::vector<int32_t> out = engine.TakeFinished(ids[i])->output;
      for (size_t s = 0; s < greedy[i].size(); ++s) {
        ASSERT_EQ(out[s], greedy[i][s]) << "prompt " << i << " step " << s << " (margin " << margins[i][s] << ")";
        if (margins[i][s] < kMarginFloor) break;  // later steps may diverge legitimately
      }
    }
  }
}

}  // namespace
}  // namespace vt
