// Logits adjustments (penalties, biases, min_tokens): their arithmetic on one row, then through
// the engine on a tiny model, where they must change what is drawn.
#include "engine/sample/logits_adjust.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/sample/sampler.h"
#include "tests/engine/tiny_model.h"

namespace vt {
namespace {

TEST(LogitsAdjust, RepetitionPenaltyShrinksSeenTokensTowardsLessLikely) {
  std::vector<float> l = {2.0f, -2.0f, 2.0f, 1.0f};
  SamplingParams p;
  p.repetition_penalty = 2.0f;
  AdjustLogits(l.data(), 4, p, /*prompt=*/{0, 0}, /*output=*/{1}, {});
  EXPECT_FLOAT_EQ(l[0], 1.0f);   // positive: divided, once however often it was seen
  EXPECT_FLOAT_EQ(l[1], -4.0f);  // negative: multiplied
  EXPECT_FLOAT_EQ(l[2], 2.0f);   // unseen
  EXPECT_FLOAT_EQ(l[3], 1.0f);
}

TEST(LogitsAdjust, FrequencyAndPresenceCountOutputTokensOnly) {
  std::vector<float> l = {0.0f, 0.0f, 0.0f};
  SamplingParams p;
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 1.0f;
  AdjustLogits(l.data(), 3, p, /*prompt=*/{2, 2, 2}, /*output=*/{0, 0, 0, 1}, {});
  EXPECT_FLOAT_EQ(l[0], -2.5f);  // 3 x 0.5 + 1
  EXPECT_FLOAT_EQ(l[1], -1.5f);  // 1 x 0.5 + 1
  EXPECT_FLOAT_EQ(l[2], 0.0f);   // in the prompt only
}

TEST(LogitsAdjust, BiasAddsAndMinTokensMasksEosAndStopTokensUntilReached) {
  std::vector<float> l = {1.0f, 1.0f, 1.0f, 1.0f};
  SamplingParams p;
  p.logit_bias = {{3, 5.0f}, {9, 100.0f}};  // an id outside the vocabulary is ignored
  p.min_tokens = 2;
  p.stop_token_ids = {1};
  AdjustLogits(l.data(), 4, p, {}, /*output=*/{2}, /*eos=*/{0});
  EXPECT_TRUE(std::isinf(l[0]) && l[0] < 0);
  EXPECT_TRUE(std::isinf(l[1]) && l[1] < 0);
  EXPECT_FLOAT_EQ(l[3], 6.0f);
  std::vector<float> after = {1.0f, 1.0f, 1.0f, 1.0f};
  AdjustLogits(after.data(), 4, p, {}, /*output=*/{2, 2}, /*eos=*/{0});
  EXPECT_FLOAT_EQ(after[0], 1.0f);  // two tokens out: EOS may come
  EXPECT_FLOAT_EQ(after[1], 1.0f);
}

TEST(LogitsAdjust, LogprobsStayThoseOfTheRawRow) {
  const std::vector<float> raw = {0.0f, 3.0f, 1.0f};
  std::vector<float> adjusted = raw;
  SamplingParams p;
  p.temperature = 0.0f;
  p.logprobs = 1;
  p.logit_bias = {{0, 10.0f}};
  AdjustLogits(adjusted.data(), 3, p, {}, {}, {});
  const SampledToken t = Sample(adjusted.data(), 3, p, 1, 0, raw.data());
  EXPECT_EQ(t.token, 0);                    // drawn from the adjusted row
  ASSERT_EQ(t.top.size(), 1u);
  EXPECT_EQ(t.top[0].token, 1);             // the model's own favourite
  EXPECT_LT(t.logprob, t.top[0].logprob);   // token 0 is unlikely under the raw row
}

TEST(LogitsAdjust, PlanListsEachTokenOnceInsideTheVocabularyAndKeepsBiasOrder) {
  SamplingParams p;
  p.repetition_penalty = 1.5f;
  p.frequency_penalty = 0.5f;
  p.logit_bias = {{2, 1.0f}, {7, 3.0f}, {2, -0.5f}};
  p.min_tokens = 5;
  p.stop_token_ids = {3, 3, 9};
  LogitsAdjustment plan;
  PlanAdjustment(5, p, /*prompt=*/{4, 1, 4, -1}, /*output=*/{1, 0, 1, 1}, /*eos=*/{0, 3}, &plan);
  EXPECT_EQ(plan.masked, (std::vector<int32_t>{3, 0}));
  EXPECT_EQ(plan.bias, (std::vector<std::pair<int32_t, float>>{{2, 1.0f}, {2, -0.5f}}));
  EXPECT_EQ(plan.repeated, (std::vector<int32_t>{4, 1, 0}));
  EXPECT_EQ(plan.counted, (std::vector<std::pair<int32_t, float>>{{1, 3.0f}, {0, 1.0f}}));
  EXPECT_EQ(plan.entries(), 9u);
  PlanAdjustment(5, SamplingParams{}, {4}, {1}, {0}, &plan);  // reused: nothing left of the last row
  EXPECT_TRUE(plan.empty());
}

// Through the engine: a request's adjustments must reach the sampler (greedy steps included) and
// leave the other requests of the batch alone.
TEST(LogitsAdjustEngine, BiasAndMinTokensChangeWhatTheEngineDraws) {
  const ModelConfig c = testing::TinyConfig();
  auto engine = testing::MakeEngine(c);
  SamplingParams plain;
  plain.temperature = 0.0f;
  plain.max_tokens = 6;
  SamplingParams biased = plain;
  biased.logit_bias = {{42, 100.0f}};
  SamplingParams eos_first = plain;  // token 7 plays EOS through stop_token_ids
  eos_first.logit_bias = {{7, 100.0f}};
  eos_first.stop_token_ids = {7};
  SamplingParams eos_later = eos_first;
  eos_later.min_tokens = 3;
  const std::vector<int32_t> prompt = testing::Prompt(12, 3);
  const auto out = testing::Generate(*engine, {prompt, prompt, prompt, prompt}, plain);
  const auto alone_plain = out[0];
  auto run = [&](const SamplingParams& p) {
    std::vector<RequestId> ids;
    ids.push_back(engine->AddRequest(prompt, plain).value());
    ids.push_back(engine->AddRequest(prompt, p).value());
    while (engine->HasUnfinished()) EXPECT_TRUE(engine->Step().ok());
    std::vector<std::vector<int32_t>> outs;
    for (RequestId id : ids) outs.push_back(engine->TakeFinished(id)->output);
    return outs;
  };
  const auto with_bias = run(biased);
  EXPECT_EQ(with_bias[0], alone_plain);  // the neighbour is untouched
  EXPECT_EQ(with_bias[1], std::vector<int32_t>(6, 42));
  const auto stopped = run(eos_first);
  EXPECT_EQ(stopped[1], std::vector<int32_t>{7});
  const auto held = run(eos_later);
  ASSERT_EQ(held[1].size(), 4u);  // three tokens that are not 7, then 7
  EXPECT_EQ(std::count(held[1].begin(), held[1].begin() + 3, 7), 0);
  EXPECT_EQ(held[1].back(), 7);
}

// Steps without logprobs hand adjusted rows to the runner's ForwardSample; with logprobs they come
// to the engine's host sampler. Both must draw the same tokens.
TEST(LogitsAdjustEngine, RunnerDrawsAndHostDrawsAgree) {
  const ModelConfig c = testing::TinyConfig();
  auto engine = testing::MakeEngine(c);
  SamplingParams p;
  p.temperature = 0.0f;
  p.max_tokens = 10;
  p.logit_bias = {{42, 12.0f}, {5, -3.0f}};
  p.frequency_penalty = 3.0f;
  p.presence_penalty = 1.0f;
  p.repetition_penalty = 1.4f;
  const std::vector<int32_t> prompt = testing::Prompt(9, 2);
  const auto drawn_by_runner = testing::Generate(*engine, {prompt, prompt}, p);
  p.logprobs = 0;
  EXPECT_EQ(testing::Generate(*engine, {prompt, prompt}, p), drawn_by_runner);
  EXPECT_EQ(drawn_by_runner[0][0], 42);
}

TEST(LogitsAdjustEngine, FrequencyPenaltyBreaksARepeatedToken) {
  const ModelConfig c = testing::TinyConfig();
  auto engine = testing::MakeEngine(c);
  SamplingParams p;
  p.temperature = 0.0f;
  p.max_tokens = 8;
  p.logit_bias = {{42, 30.0f}};  // 42 wins every step by ~30
  const std::vector<int32_t> prompt = testing::Prompt(5, 1);
  const auto repeated = testing::Generate(*engine, {prompt}, p)[0];
  EXPECT_EQ(std::count(repeated.begin(), repeated.end(), 42), 8);
  p.frequency_penalty = 20.0f;  // the second 42 costs 20, the third 40: beaten from then on
  const auto varied = testing::Generate(*engine, {prompt}, p)[0];
  EXPECT_LE(std::count(varied.begin(), varied.end(), 42), 2);
  EXPECT_EQ(varied[0], 42);
}

}  // namespace
}  // namespace vt
