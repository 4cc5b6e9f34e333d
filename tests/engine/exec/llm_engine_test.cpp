// Engine-level guarantees over a real (tiny) model: batching, preemption,
// chunked prefill and prefix caching never change a request's output.
#include <gtest/gtest.h>

#include <set>

#include "tests/engine/tiny_model.h"

namespace vt::testing {
namespace {

std::vector<std::vector<int32_t>> MixedPrompts() {
  std::vector<std::vector<int32_t>> prompts;
  const int lengths[] = {1, 5, 17, 3, 40, 16, 9, 33};
  for (int i = 0; i < 8; ++i) prompts.push_back(Prompt(lengths[i], i));
  return prompts;
}

SamplingParams Greedy(int max_tokens) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.max_tokens = max_tokens;
  return p;
}

std::vector<std::vector<int32_t>> AloneOutputs(const ModelConfig& c, const std::vector<std::vector<int32_t>>& prompts,
                                               const SamplingParams& params) {
  std::vector<std::vector<int32_t>> out;
  for (const auto& p : prompts) {
    auto engine = MakeEngine(c);
    out.push_back(Generate(*engine, {p}, params)[0]);
  }
  return out;
}

class BatchingTest : public ::testing::TestWithParam<Architecture> {};

TEST_P(BatchingTest, GreedyOutputIsTheSameAloneAndInAMixedBatchOfEight) {
  const ModelConfig c = TinyConfig(GetParam());
  const auto prompts = MixedPrompts();
  const auto alone = AloneOutputs(c, prompts, Greedy(12));
  auto engine = MakeEngine(c);
  const auto batched = Generate(*engine, prompts, Greedy(12));
  ASSERT_EQ(batched.size(), alone.size());
  std::set<std::vector<int32_t>> distinct;
  for (size_t i = 0; i < alone.size(); ++i) {
    EXPECT_EQ(batched[i], alone[i]) << "prompt " << i;
    EXPECT_EQ(alone[i].size(), 12u);
    distinct.insert(alone[i]);
  }
  // Different prompts must lead to different continuations, or the test
  // could not tell a broken forward from a working one.
  EXPECT_GT(distinct.size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(Architectures, BatchingTest,
                         ::testing::Values(Architecture::kLlama, Architecture::kQwen2, Architecture::kQwen3));

TEST(Preemption, ATinyKvPoolStillFinishesEveryRequestWithIdenticalOutput) {
  const ModelConfig c = TinyConfig();
  const auto prompts = MixedPrompts();
  const auto alone = AloneOutputs(c, prompts, Greedy(20));
  EngineConfig ec;
  ec.num_kv_blocks = 5;  // the longest request (40 + 20 tokens) needs 4 blocks of 16
  ec.prefix_caching = false;
  auto engine = MakeEngine(c, ec);
  const auto squeezed = Generate(*engine, prompts, Greedy(20));
  EXPECT_EQ(squeezed, alone);
  EXPECT_GT(engine->scheduler().num_preemptions(), 0);
  EXPECT_EQ(engine->kv().num_free_blocks(), 5);
}

TEST(Preemption, WithPrefixCachingToo) {
  const ModelConfig c = TinyConfig();
  const auto prompts = MixedPrompts();
  const auto alone = AloneOutputs(c, prompts, Greedy(20));
  EngineConfig ec;
  ec.num_kv_blocks = 6;
  auto engine = MakeEngine(c, ec);
  EXPECT_EQ(Generate(*engine, prompts, Greedy(20)), alone);
  EXPECT_GT(engine->scheduler().num_preemptions(), 0);
}

TEST(ChunkedPrefill, SmallTokenBudgetGivesIdenticalOutput) {
  const ModelConfig c = TinyConfig();
  const auto prompts = MixedPrompts();
  const auto alone = AloneOutputs(c, prompts, Greedy(6));
  EngineConfig ec;
  ec.scheduler.max_num_batched_tokens = 7;
  auto engine = MakeEngine(c, ec);
  EXPECT_EQ(Generate(*engine, prompts, Greedy(6)), alone);
}

TEST(PrefixCache, HitsReturnIdenticalOutput) {
  const ModelConfig c = TinyConfig();
  const std::vector<int32_t> shared = Prompt(48, 99);
  std::vector<int32_t> longer = shared;
  for (int32_t t : Prompt(7, 5)) longer.push_back(t);
  const auto expected = AloneOutputs(c, {shared, longer}, Greedy(10));

  auto engine = MakeEngine(c);
  EXPECT_EQ(Generate(*engine, {shared}, Greedy(10))[0], expected[0]);
  EXPECT_EQ(engine->kv().prefix_hit_tokens(), 0);
  EXPECT_EQ(Generate(*engine, {shared}, Greedy(10))[0], expected[0]);
  // 48 tokens: two full blocks reused, the last block recomputed for its logits.
  EXPECT_EQ(engine->kv().prefix_hit_tokens(), 32);
  EXPECT_EQ(Generate(*engine, {longer}, Greedy(10))[0], expected[1]);
  EXPECT_EQ(engine->kv().prefix_hit_tokens(), 32 + 48);
}

TEST(Sampling, SeededRequestIsIndependentOfItsBatchCompany) {
  const ModelConfig c = TinyConfig();
  SamplingParams p;
  p.temperature = 0.9f;
  p.top_p = 0.95f;
  p.seed = 1234;
  p.max_tokens = 16;
  const std::vector<int32_t> prompt = Prompt(10, 3);
  auto alone_engine = MakeEngine(c);
  const auto alone = Generate(*alone_engine, {prompt}, p)[0];

  auto engine = MakeEngine(c);
  std::vector<RequestId> others;
  SamplingParams other = p;
  for (int i = 0; i < 5; ++i) {
    other.seed = 100 + i;
    others.push_back(engine->AddRequest(Prompt(5 + 3 * i, 50 + i), other).value());
  }
  const RequestId id = engine->AddRequest(prompt, p).value();
  while (engine->HasUnfinished()) ASSERT_TRUE(engine->Step().ok());
  EXPECT_EQ(engine->TakeFinished(id)->output, alone);

  p.seed = 4321;
  auto reseeded = MakeEngine(c);
  EXPECT_NE(Generate(*reseeded, {prompt}, p)[0], alone);
}

TEST(Cancellation, AbortFreesBlocksAndOthersFinish) {
  const ModelConfig c = TinyConfig();
  auto engine = MakeEngine(c);
  const RequestId a = engine->AddRequest(Prompt(30, 1), Greedy(50)).value();
  const RequestId b = engine->AddRequest(Prompt(20, 2), Greedy(5)).value();
  ASSERT_TRUE(engine->Step().ok());
  engine->Abort(a);
  while (engine->HasUnfinished()) ASSERT_TRUE(engine->Step().ok());
  EXPECT_EQ(engine->TakeFinished(a)->finish, FinishReason::kAborted);
  EXPECT_EQ(engine->TakeFinished(b)->output.size(), 5u);
  EXPECT_EQ(engine->kv().num_free_blocks(), engine->kv().num_blocks());
}

TEST(Stopping, EosAndStopIdsEndTheRequest) {
  ModelConfig c = TinyConfig();
  const std::vector<int32_t> prompt = Prompt(8, 4);
  auto probe = MakeEngine(c);
  const auto free_run = Generate(*probe, {prompt}, Greedy(8))[0];

  SamplingParams stop = Greedy(8);
  stop.stop_token_ids = {free_run[2]};
  auto engine = MakeEngine(c);
  const RequestId id = engine->AddRequest(prompt, stop).value();
  while (engine->HasUnfinished()) ASSERT_TRUE(engine->Step().ok());
  auto r = engine->TakeFinished(id);
  EXPECT_EQ(r->finish, FinishReason::kStop);
  EXPECT_EQ(r->output.back(), free_run[2]);
  EXPECT_LE(r->output.size(), 3u);

  c.eos_token_ids = {free_run[0]};
  auto eos_engine = MakeEngine(c);
  EXPECT_EQ(Generate(*eos_engine, {prompt}, Greedy(8))[0].size(), 1u);
  SamplingParams ignore = Greedy(8);
  ignore.ignore_eos = true;
  auto ignoring = MakeEngine(c);
  EXPECT_EQ(Generate(*ignoring, {prompt}, ignore)[0], free_run);
}

}  // namespace
}  // namespace vt::testing
