// The embedded model's transformers fixture (tests/fixtures/embedded_model/expected.json: prompts,
// greedy continuations, per-step top-2 margins) and the token-exact gate every backend passes on it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/exec/llm_engine.h"

namespace vt::testing {

inline nlohmann::json ReadEmbeddedExpected(const std::filesystem::path& source_root) {
  std::ifstream in(source_root / "tests/fixtures/embedded_model/expected.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// Runs all fixture prompts greedily as one continuously batched set on `engine` and compares
// each continuation token for token with transformers', up to the first step whose reference
// top-2 margin is below `margin_floor` (from there on a different backend may legitimately pick
// the other token).
inline void ExpectFixtureGreedy(LlmEngine& engine, const nlohmann::json& expected, double margin_floor,
                                const std::string& label) {
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
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    ASSERT_TRUE(step.ok()) << label << ": " << step.status().message();
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::vector<int32_t> out = engine.TakeFinished(ids[i])->output;
    ASSERT_EQ(out.size(), greedy[i].size());
    for (size_t s = 0; s < greedy[i].size(); ++s) {
      if (margins[i][s] < margin_floor) break;
      ASSERT_EQ(out[s], greedy[i][s]) << label << ", prompt " << i << ", step " << s << " (margin " << margins[i][s]
                                      << ")";
    }
  }
}

}  // namespace vt::testing
