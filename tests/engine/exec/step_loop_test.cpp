// The one step loop, on a tiny real model: runs to idle, lets the caller add requests between
// steps, stops when asked.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vt::testing
