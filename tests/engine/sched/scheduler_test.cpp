// The scheduler without a model: steps are plain data, checked directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "engine/sched/scheduler.h"

namespace vt {
namespace {

std::unique_ptr<Request> MakeRequest(RequestId id, int prompt_len, int max_tokens) {
  auto r = std::make_unique<Request>();
  r->id = id;
  for (int i = 0; i < prompt_len; ++i) r->prompt.push_back(static_cast<int32_t>(id * 1000 + i));
  r->params.max_tokens = max_tokens;
  return r;
}

// A scheduler configuration without chunked prefill and with a step budget of `budget` tokens.
SchedulerConfig UnchunkedWithBudget(int64_t budget) {
  SchedulerConfig cfg;
  cfg.max_num_batched_tokens = budget;
  cfg.chunked_prefill = false;
  return cfg;
}

// Feeds every sampling chunk the token 1.
std::vector<RequestId> Advance(Scheduler& s, const SchedulerStep& step) {
  std::vector<SampledResult> sampled;
  for (const ScheduledChunk& c : step.chunks) {
    if (c.sample) sampled.push_back({c.id, {1, 0.0f, {}}, ""});
  }
  return s.Update(step, sampled);
}

TEST(Scheduler, TokenBudgetChunksLongPrompts) {
  KvCacheManager kv(64, 16, false);
  SchedulerConfig cfg;
  cfg.max_num_batched_tokens = 32;
  Scheduler s(cfg, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 50, 4)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, 10, 4)).ok());

  SchedulerStep step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 1u);
  EXPECT_EQ(step.chunks[0].tokens.size(), 32u);
  EXPECT_FALSE(step.chunks[0].sample);
  EXPECT_EQ(step.chunks[0].block_table.size(), 2u);
  Advance(s, step);

  step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 2u);
  EXPECT_EQ(step.chunks[0].start_pos, 32);
  EXPECT_EQ(step.chunks[0].tokens.size(), 18u);
  EXPECT_TRUE(step.chunks[0].sample);
  EXPECT_EQ(step.chunks[1].id, 2);
  EXPECT_EQ(step.chunks[1].tokens.size(), 10u);
  EXPECT_EQ(step.num_tokens, 28);
  Advance(s, step);

  // Both decode now: one token each, the sampled token fed back.
  step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 2u);
  EXPECT_EQ(step.chunks[0].tokens, std::vector<int32_t>{1});
  EXPECT_EQ(step.chunks[0].start_pos, 50);
}

// A long prompt admitted before others must not hold their decodes back: decodes are scheduled
// first, and the prompt's chunk beside them keeps to its own smaller budget.
TEST(Scheduler, DecodesGoFirstAndLongPromptsChunkBesideThem) {
  KvCacheManager kv(64, 16, false);
  SchedulerConfig cfg;
  cfg.max_num_batched_tokens = 64;
  cfg.max_prefill_tokens_beside_decodes = 8;
  Scheduler s(cfg, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 4, 20)).ok());
  SchedulerStep step = s.Schedule();
  Advance(s, step);  // request 1 decodes from now on
  ASSERT_TRUE(s.Add(MakeRequest(2, 200, 4)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(3, 3, 4)).ok());

  step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 2u);  // request 1's decode, then 8 tokens of request 2
  EXPECT_EQ(step.chunks[0].id, 1);
  EXPECT_EQ(step.chunks[0].tokens.size(), 1u);
  EXPECT_EQ(step.chunks[1].id, 2);
  EXPECT_EQ(step.chunks[1].tokens.size(), 8u);
  Advance(s, step);

  // Request 2 was admitted before request 1 decoded again: still, the decode leads the step.
  step = s.Schedule();
  ASSERT_GE(step.chunks.size(), 2u);
  EXPECT_EQ(step.chunks[0].id, 1);
  EXPECT_EQ(step.chunks[0].tokens.size(), 1u);
  EXPECT_EQ(step.chunks[1].id, 2);
  EXPECT_EQ(step.chunks[1].start_pos, 8);
  EXPECT_EQ(step.num_tokens, 1 + 8);
  Advance(s, step);

  int steps = 0;
  while (s.num_running() + s.num_waiting() > 0 && s.Find(1)->state != RequestState::kFinished && steps++ < 100) {
    Advance(s, s.Schedule());
  }
  // Once request 1 is done, nothing decodes beside request 2's prompt: it takes the whole budget.
  while (s.Find(2)->num_computed < 200 && s.Find(3)->output.empty() && steps++ < 200) {
    step = s.Schedule();
    bool decoding = false;
    for (const ScheduledChunk& c : step.chunks) decoding |= c.tokens.size() == 1;
    if (!decoding) {
      EXPECT_GT(step.num_tokens, 8);
    }
    Advance(s, step);
  }
  while (s.HasUnfinished() && steps++ < 300) Advance(s, s.Schedule());
  EXPECT_FALSE(s.HasUnfinished());
  EXPECT_EQ(s.TakeFinished(2)->output.size(), 4u);
}

// With a pace (max_decode_slowdown), a prompt joins the decodes only while their mean step time
// stays within the bound: one decode-only step measures them first, and a slow mixed step is paid
// back by steps of decodes alone, waiting prompts (not yet admitted) included. Step times are given.
TEST(Scheduler, APaceHoldsPromptsBackUntilTheDecodesArePaidBack) {
  KvCacheManager kv(64, 16, false);
  SchedulerConfig cfg;
  cfg.max_num_batched_tokens = 64;
  cfg.max_prefill_tokens_beside_decodes = 8;
  cfg.max_decode_slowdown = 2.0;
  Scheduler s(cfg, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 4, 40)).ok());
  SchedulerStep step = s.Schedule();
  EXPECT_EQ(step.num_decodes, 0);
  s.RecordStepTime(step, 9.0);  // a prompt alone: no decode waited on it
  Advance(s, step);
  ASSERT_TRUE(s.Add(MakeRequest(2, 200, 4)).ok());

  auto expect_decode_only = [&](double seconds) {
    SchedulerStep only = s.Schedule();
    ASSERT_EQ(only.chunks.size(), 1u);
    EXPECT_EQ(only.chunks[0].id, 1);
    EXPECT_EQ(only.num_decodes, 1);
    EXPECT_EQ(only.num_tokens, 1);
    s.RecordStepTime(only, seconds);
    Advance(s, only);
  };
  auto expect_mixed = [&](double seconds) {
    SchedulerStep mixed = s.Schedule();
    ASSERT_EQ(mixed.chunks.size(), 2u);
    EXPECT_EQ(mixed.chunks[1].id, 2);
    EXPECT_EQ(mixed.num_decodes, 1);
    EXPECT_EQ(mixed.num_tokens, 1 + 8);
    s.RecordStepTime(mixed, seconds);
    Advance(s, mixed);
  };
  expect_decode_only(1.0);  // the decodes measured alone; request 2 waits unadmitted
  EXPECT_EQ(s.num_waiting(), 1u);
  EXPECT_EQ(s.num_paced_steps(), 1);
  expect_mixed(5.0);        // owes 3 s
  for (int i = 0; i < 3; ++i) expect_decode_only(1.0);
  expect_mixed(1.5);        // within the bound
  expect_mixed(2.0);
  expect_mixed(4.0);        // owes 2 s
  expect_decode_only(1.0);
  expect_decode_only(1.0);
  expect_mixed(1.0);
  EXPECT_EQ(s.num_paced_steps(), 6);  // every step of decodes alone held request 2's prompt back
}

// A step of decodes alone counts as paced only when a prompt had tokens to run: not while nothing
// waits, and never without a pace.
TEST(Scheduler, PacedStepsCountOnlyPromptsHeldBack) {
  for (const double bound : {2.0, 0.0}) {
    KvCacheManager kv(64, 16, false);
    SchedulerConfig cfg;
    cfg.max_num_batched_tokens = 64;
    cfg.max_prefill_tokens_beside_decodes = 8;
    cfg.max_decode_slowdown = bound;
    Scheduler s(cfg, &kv);
    ASSERT_TRUE(s.Add(MakeRequest(1, 4, 40)).ok());
    for (int i = 0; i < 3; ++i) {  // the prompt, then decodes alone with nothing waiting
      SchedulerStep step = s.Schedule();
      s.RecordStepTime(step, 1.0);
      Advance(s, step);
    }
    EXPECT_EQ(s.num_paced_steps(), 0) << "bound " << bound;
    ASSERT_TRUE(s.Add(MakeRequest(2, 200, 4)).ok());
    SchedulerStep mixed = s.Schedule();
    ASSERT_EQ(mixed.chunks.size(), 2u) << "bound " << bound;
    s.RecordStepTime(mixed, 5.0);  // over the bound: the next step is the decodes' alone when paced
    Advance(s, mixed);
    SchedulerStep next = s.Schedule();
    EXPECT_EQ(next.chunks.size(), bound > 0 ? 1u : 2u) << "bound " << bound;
    EXPECT_EQ(s.num_paced_steps(), bound > 0 ? 1 : 0) << "bound " << bound;
  }
}

TEST(Scheduler, WithoutChunkingALongPromptWaitsForRoom) {
  KvCacheManager kv(64, 16, false);
  Scheduler s(UnchunkedWithBudget(32), &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 20, 4)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, 20, 4)).ok());
  SchedulerStep step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 1u);
  EXPECT_EQ(step.chunks[0].tokens.size(), 20u);
}

// Without chunked prefill a request must fit one step, also after a preemption (its prompt and output
// recomputed together): one that could outgrow the budget is refused, never left at the queue's head
// with every later step empty.
TEST(Scheduler, WithoutChunkingARequestThatCouldOutgrowTheBudgetIsRefused) {
  KvCacheManager kv(64, 16, false);
  Scheduler s(UnchunkedWithBudget(32), &kv);
  const Status long_prompt = s.Add(MakeRequest(1, 40, 1));
  EXPECT_EQ(long_prompt.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(long_prompt.message().find("chunked prefill is off"), std::string::npos) << long_prompt.message();
  EXPECT_EQ(s.Add(MakeRequest(2, 20, 13)).code(), StatusCode::kInvalidArgument);  // 33 tokens at most
  EXPECT_TRUE(s.Add(MakeRequest(3, 20, 12)).ok());
  int steps = 0;
  while (s.HasUnfinished() && steps++ < 50) Advance(s, s.Schedule());
  EXPECT_FALSE(s.HasUnfinished());
}

// A max_tokens near INT64_MAX is bounded by the context: the pool check still holds (the sum used
// to wrap negative and let a request in that could only preempt itself), and a request that fits
// runs to the end of the context.
TEST(Scheduler, AHugeMaxTokensIsBoundedByTheContext) {
  KvCacheManager small(2, 4, false);
  SchedulerConfig cfg;
  cfg.max_model_len = 16;
  Scheduler refuses(cfg, &small);
  std::unique_ptr<Request> huge = MakeRequest(1, 3, 1);
  huge->params.max_tokens = INT64_MAX;
  EXPECT_EQ(refuses.Add(std::move(huge)).code(), StatusCode::kResourceExhausted);

  KvCacheManager kv(4, 4, false);
  Scheduler s(cfg, &kv);
  std::unique_ptr<Request> fits = MakeRequest(2, 3, 1);
  fits->params.max_tokens = INT64_MAX;
  ASSERT_TRUE(s.Add(std::move(fits)).ok());
  int steps = 0;
  while (s.HasUnfinished() && steps++ < 50) Advance(s, s.Schedule());
  EXPECT_FALSE(s.HasUnfinished());
  EXPECT_EQ(s.TakeFinished(2)->output.size(), 13u);  // 3 + 13 = the context's 16 positions
}

// Prefix-cache hits count the tokens a request keeps, once: a request that waits for blocks attaches
// its cached prefix and frees it again on every step it waits.
TEST(Scheduler, PrefixHitsCountOnceWhileARequestWaitsForBlocks) {
  KvCacheManager kv(5, 4, true);
  Scheduler s({}, &kv);
  std::unique_ptr<Request> first = MakeRequest(1, 9, 1);
  const std::vector<int32_t> prompt = first->prompt;
  ASSERT_TRUE(s.Add(std::move(first)).ok());
  int steps = 0;
  while (s.HasUnfinished() && steps++ < 20) Advance(s, s.Schedule());
  ASSERT_FALSE(s.HasUnfinished());  // its first two blocks (8 tokens) are published
  ASSERT_EQ(kv.prefix_hit_tokens(), 0);

  ASSERT_TRUE(s.Add(MakeRequest(2, 5, 3)).ok());  // holds 2 of the 5 blocks while it runs
  std::unique_ptr<Request> again = MakeRequest(3, 0, 1);
  again->prompt = prompt;
  for (int i = 0; i < 8; ++i) again->prompt.push_back(static_cast<int32_t>(9000 + i));
  ASSERT_TRUE(s.Add(std::move(again)).ok());  // 17 tokens: 2 cached blocks + 3 new, 1 free at first
  int waited = 0;
  for (steps = 0; s.HasUnfinished() && steps < 50; ++steps) {
    const SchedulerStep step = s.Schedule();
    const bool admitted = std::any_of(step.chunks.begin(), step.chunks.end(), [](const auto& c) { return c.id == 3; });
    if (!admitted && s.Find(3) && s.Find(3)->state == RequestState::kWaiting) ++waited;
    Advance(s, step);
  }
  EXPECT_FALSE(s.HasUnfinished());
  EXPECT_GT(waited, 0) << "request 3 never waited: the test checks nothing";
  EXPECT_EQ(kv.prefix_hit_tokens(), 8);
}

TEST(Scheduler, PreemptsTheNewestWhenBlocksRunOut) {
  KvCacheManager kv(4, 4, false);
  Scheduler s({}, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 7, 8)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, 7, 8)).ok());
  SchedulerStep step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 2u);  // 2 blocks each: the pool is full
  Advance(s, step);
  step = s.Schedule();  // position 7 still fits two blocks
  ASSERT_EQ(step.chunks.size(), 2u);
  Advance(s, step);
  step = s.Schedule();  // position 8: request 1 needs a third block
  ASSERT_EQ(step.chunks.size(), 1u);
  EXPECT_EQ(step.chunks[0].id, 1);
  EXPECT_EQ(step.preempted, std::vector<RequestId>{2});
  EXPECT_EQ(s.Find(2)->num_computed, 0);
  EXPECT_EQ(s.Find(2)->output.size(), 2u);  // kept, recomputed later
  EXPECT_EQ(s.num_preemptions(), 1);
  int steps = 0;
  while (s.HasUnfinished() && steps++ < 100) Advance(s, s.Schedule());
  EXPECT_FALSE(s.HasUnfinished());
  EXPECT_EQ(s.TakeFinished(1)->output.size(), 8u);
  EXPECT_EQ(s.TakeFinished(2)->output.size(), 8u);
  EXPECT_EQ(kv.num_free_blocks(), 4);
}

TEST(Scheduler, RejectsWhatCanNeverRun) {
  KvCacheManager kv(2, 4, false);
  SchedulerConfig cfg;
  cfg.max_model_len = 16;
  Scheduler s(cfg, &kv);
  EXPECT_EQ(s.Add(MakeRequest(1, 7, 8)).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.Add(MakeRequest(2, 16, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Add(MakeRequest(3, 0, 1)).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(s.Add(MakeRequest(4, 3, 5)).ok());
  EXPECT_EQ(s.Add(MakeRequest(4, 3, 5)).code(), StatusCode::kInvalidArgument);
}

TEST(Scheduler, AbortFreesBlocksMidRun) {
  KvCacheManager kv(8, 4, false);
  Scheduler s({}, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 9, 8)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, 3, 8)).ok());
  SchedulerStep step = s.Schedule();
  s.Abort(1);
  EXPECT_EQ(kv.num_free_blocks(), 7);
  Advance(s, step);  // results of a step that raced the abort are dropped
  EXPECT_EQ(s.TakeFinished(1)->finish, FinishReason::kAborted);
  EXPECT_EQ(s.num_running(), 1u);
  EXPECT_EQ(s.Find(2)->output.size(), 1u);
}

// A request aborted and taken away while its step ran leaves its sampled token behind; the
// requests after it in the step still get theirs.
TEST(Scheduler, ARequestTakenAwayMidStepLeavesTheOthersTheirTokens) {
  KvCacheManager kv(8, 4, false);
  Scheduler s({}, &kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, 3, 8)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, 3, 8)).ok());
  SchedulerStep step = s.Schedule();
  ASSERT_EQ(step.chunks.size(), 2u);
  s.Abort(1);
  ASSERT_NE(s.TakeFinished(1), nullptr);
  Advance(s, step);
  ASSERT_NE(s.Find(2), nullptr);
  EXPECT_EQ(s.Find(2)->output.size(), 1u);
  EXPECT_EQ(s.Find(2)->num_computed, 3);
}

TEST(Scheduler, MaxNumSeqsBoundsTheBatch) {
  KvCacheManager kv(64, 16, false);
  SchedulerConfig cfg;
  cfg.max_num_seqs = 2;
  Scheduler s(cfg, &kv);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(s.Add(MakeRequest(i, 3, 2)).ok());
  EXPECT_EQ(s.Schedule().chunks.size(), 2u);
  EXPECT_EQ(s.num_waiting(), 2u);
}

}  // namespace
}  // namespace vt
