// The pace that holds prompts back from running decodes: step times are given, not measured, so
// every decision is checked exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/sched/decode_pacing.h"

namespace vt {
namespace {

TEST(DecodePacing, OffAlwaysLetsPromptsJoin) {
  DecodePacing pacing(0.0);
  EXPECT_TRUE(pacing.AllowsPrefillBeside(8));
  pacing.Record(8, 256, 100.0);  // however slow a mixed step was
  EXPECT_TRUE(pacing.AllowsPrefillBeside(8));
}

TEST(DecodePacing, PromptsWaitOneStepWhileDecodesOfANewCountAreMeasuredAlone) {
  DecodePacing pacing(2.0);
  EXPECT_TRUE(pacing.AllowsPrefillBeside(0));  // no decodes to protect
  EXPECT_FALSE(pacing.AllowsPrefillBeside(1));
  pacing.Record(1, 0, 1.0);
  EXPECT_TRUE(pacing.AllowsPrefillBeside(1));
  // Counts that one CUDA graph bucket runs share a measurement (five to eight decodes run as
  // eight rows); the next bucket needs its own.
  pacing.Record(8, 0, 1.0);
  EXPECT_TRUE(pacing.AllowsPrefillBeside(5));
  EXPECT_FALSE(pacing.AllowsPrefillBeside(4));
  EXPECT_FALSE(pacing.AllowsPrefillBeside(9));
  EXPECT_FALSE(pacing.AllowsPrefillBeside(2));
}

// A decode-only step over the bound, on its own (a host hiccup): it owes nothing, and it moves the
// average only as far as the bound, so the mixed steps after it are held to nearly the same bound.
TEST(DecodePacing, ASlowStepOfDecodesAloneOwesNothing) {
  DecodePacing slow(2.0), steady(2.0);
  for (DecodePacing* pacing : {&slow, &steady}) {
    pacing->Record(4, 0, 1.0);
    pacing->Record(4, 256, 5.0);  // 3 s over twice a decode-only step
  }
  slow.Record(4, 0, 30.0);   // far over the bound: pays nothing, owes nothing
  steady.Record(4, 0, 2.5);  // just at the moved bound (2 × 1.25 s): pays nothing
  // Both now owe the same and average the same (1.25 s), so they pay back in the same steps.
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(slow.AllowsPrefillBeside(4), steady.AllowsPrefillBeside(4)) << i;
    slow.Record(4, 0, 1.0);
    steady.Record(4, 0, 1.0);
  }
  EXPECT_TRUE(slow.AllowsPrefillBeside(4));

  DecodePacing hiccup(2.0);
  hiccup.Record(4, 0, 1.0);
  hiccup.Record(4, 0, 10.0);  // the average moves to 1.25 s, not 3.25
  ASSERT_TRUE(hiccup.AllowsPrefillBeside(4));
  hiccup.Record(4, 256, 3.0);  // over 2 × 1.25 s: owed
  EXPECT_FALSE(hiccup.AllowsPrefillBeside(4));
}

TEST(DecodePacing, AnExpensiveMixedStepIsPaidBackByDecodeOnlySteps) {
  DecodePacing pacing(2.0);
  pacing.Record(4, 0, 1.0);
  ASSERT_TRUE(pacing.AllowsPrefillBeside(4));
  pacing.Record(4, 256, 5.0);  // 3 s over twice a decode-only step
  // Each decode-only step is 1 s under the bound: three of them pay it back.
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(pacing.AllowsPrefillBeside(4)) << i;
    pacing.Record(4, 0, 1.0);
  }
  EXPECT_TRUE(pacing.AllowsPrefillBeside(4));
}

TEST(DecodePacing, MixedStepsWithinTheBoundNeverHoldPromptsBack) {
  DecodePacing pacing(2.0);
  pacing.Record(2, 0, 1.0);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(pacing.AllowsPrefillBeside(2)) << i;
    pacing.Record(2, 64, 1.9);
  }
}

TEST(DecodePacing, DecodeOnlyStepsBankNoCredit) {
  DecodePacing pacing(2.0);
  for (int i = 0; i < 100; ++i) pacing.Record(1, 0, 1.0);
  pacing.Record(1, 256, 3.5);  // after 100 cheap steps, still owed 1.5 s
  EXPECT_FALSE(pacing.AllowsPrefillBeside(1));
}

TEST(DecodePacing, AStepWithoutDecodesClearsWhatWasOwed) {
  DecodePacing pacing(2.0);
  pacing.Record(2, 0, 1.0);
  pacing.Record(2, 256, 9.0);  // owes 7 s
  ASSERT_FALSE(pacing.AllowsPrefillBeside(2));
  pacing.Record(0, 512, 3.0);  // every decode finished; a prompt prefilled alone
  EXPECT_TRUE(pacing.AllowsPrefillBeside(2));
}

// A long run where every mixed step costs five decode-only steps: the decodes' mean step time stays
// within the bound, and prompts still join the decodes on every fourth step.
TEST(DecodePacing, TheDecodesMeanStepTimeStaysWithinTheBound) {
  for (double bound : {1.5, 2.0, 3.0}) {
    DecodePacing pacing(bound);
    double total = 0.0;
    int steps = 0, mixed = 0, longest_wait = 0, wait = 0;
    for (int i = 0; i < 10000; ++i) {
      const bool with_prompt = pacing.AllowsPrefillBeside(8);
      const double seconds = with_prompt ? 5.0 : 1.0;
      pacing.Record(8, with_prompt ? 256 : 0, seconds);
      total += seconds;
      ++steps;
      mixed += with_prompt ? 1 : 0;
      wait = with_prompt ? 0 : wait + 1;
      longest_wait = std::max(longest_wait, wait);
    }
    EXPECT_LE(total / steps, bound * 1.0 + 5.0 / steps) << bound;
    // Paying back 5 - bound seconds at bound - 1 a step, plus the first step's measurement.
    EXPECT_LE(longest_wait, static_cast<int>(std::ceil((5.0 - bound) / (bound - 1.0))) + 1) << bound;
    EXPECT_GT(mixed, steps / (longest_wait + 1) - 1) << bound;
  }
}

TEST(DecodePacing, TheBoundIsZeroOrAboveOne) {
  EXPECT_TRUE(CheckMaxDecodeSlowdown(0.0).ok());
  EXPECT_TRUE(CheckMaxDecodeSlowdown(1.25).ok());
  EXPECT_TRUE(CheckMaxDecodeSlowdown(2.0).ok());
  for (double bad : {1.0, 0.5, -2.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    const Status s = CheckMaxDecodeSlowdown(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--max-decode-slowdown"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace vt
