// The one step loop, on a tiny real model: runs to idle, lets the caller add requests between
// steps, stops when asked.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/exec/step_loop.h"
#include "tests/engine/tiny_model.h"

namespace vt::testing {
namespace {

SamplingParams Fixed(int64_t tokens) {
  SamplingParams p;
  p.max_tokens = tokens;
  p.ignore_eos = true;
  return p;
}

TEST(StepLoop, RunsEveryRequestToTheEnd) {
  std::unique_ptr<LlmEngine> engine = MakeEngine(TinyConfig());
  const RequestId a = engine->AddRequest(Prompt(5, 1), Fixed(4)).value();
  const RequestId b = engine->AddRequest(Prompt(3, 2), Fixed(6)).value();
  int64_t tokens = 0;
  ASSERT_TRUE(RunSteps(*engine, [&](const StepResult& step) {
                tokens += static_cast<int64_t>(step.tokens.size());
                return true;
              }).ok());
  EXPECT_FALSE(engine->HasUnfinished());
  EXPECT_EQ(tokens, 10);
  EXPECT_EQ(engine->TakeFinished(a)->output.size(), 4u);
  EXPECT_EQ(engine->TakeFinished(b)->output.size(), 6u);
}

TEST(StepLoop, RequestsAddedBetweenStepsJoinTheLoop) {
  std::unique_ptr<LlmEngine> engine = MakeEngine(TinyConfig());
  engine->AddRequest(Prompt(4, 3), Fixed(3)).value();
  std::optional<RequestId> late;
  ASSERT_TRUE(RunSteps(*engine, [&](const StepResult&) {
                if (!late) late = engine->AddRequest(Prompt(4, 4), Fixed(5)).value();
                return true;
              }).ok());
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(engine->TakeFinished(*late)->output.size(), 5u);
}

TEST(StepLoop, StopsAsSoonAsTheCallerSaysSo) {
  std::unique_ptr<LlmEngine> engine = MakeEngine(TinyConfig());
  engine->AddRequest(Prompt(4, 5), Fixed(8)).value();
  int steps = 0;
  ASSERT_TRUE(RunSteps(*engine, [&](const StepResult&) { return ++steps < 2; }).ok());
  EXPECT_EQ(steps, 2);
  EXPECT_TRUE(engine->HasUnfinished());
}

// The times count every step the caller saw and only the caller's time: a caller that sleeps 2 ms
// a step shows at least that, one that returns at once far less.
TEST(StepLoop, TimesTheCallerBetweenSteps) {
  std::unique_ptr<LlmEngine> engine = MakeEngine(TinyConfig());
  engine->AddRequest(Prompt(4, 6), Fixed(5)).value();
  StepLoopTimes slow;
  int steps = 0;
  ASSERT_TRUE(RunSteps(
                  *engine,
                  [&](const StepResult&) {
                    ++steps;
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    return true;
                  },
                  &slow)
                  .ok());
  EXPECT_EQ(slow.steps.load(), steps);
  EXPECT_GE(slow.between_steps_ns.load(), int64_t{steps} * 2'000'000);

  engine->AddRequest(Prompt(4, 7), Fixed(5)).value();
  StepLoopTimes fast;
  ASSERT_TRUE(RunSteps(*engine, [](const StepResult&) { return true; }, &fast).ok());
  EXPECT_EQ(fast.steps.load(), steps);
  EXPECT_LT(fast.between_steps_ns.load(), slow.between_steps_ns.load() / 2);
}

}  // namespace
}  // namespace vt::testing
