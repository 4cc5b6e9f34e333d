#include "kernels/cuda/attention/decode_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace vt::kernels::cuda {
namespace {

DecodeShape Llama8B(int batch, int context) { return {batch, 32, 8, 128, 16, context}; }

TEST(DecodePlan, AutoIsThePersistentArmUnsplitWhereItRunsAndTheBlockArmElsewhere) {
  Result<DecodePlan> plan = PlanDecode(Llama8B(1, 16384), DecodeOverrides{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->arm, DecodeArm::kPersistent);
  EXPECT_EQ(plan->num_chunks, 1);
  const DecodeShape head_dim_64{1, 32, 8, 64, 16, 4096};
  plan = PlanDecode(head_dim_64, DecodeOverrides{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->arm, DecodeArm::kBlock);
  const DecodeShape group_32{1, 32, 1, 128, 16, 4096};
  plan = PlanDecode(group_32, DecodeOverrides{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->arm, DecodeArm::kBlock);
}

// A call whose keys could overflow the persistent arm's 32-bit schedule (prefill tokens going the
// decode way at long contexts) runs the gqa arm under auto, and a forced persist is refused.
TEST(DecodePlan, AutoFallsBackToGqaPastThePersistentSchedule) {
  const DecodeShape past = Llama8B(32768, 65536);  // 2^31 keys: one past the bound
  const DecodeShape under = Llama8B(32767, 65536);
  Result<DecodePlan> plan = PlanDecode(under, DecodeOverrides{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->arm, DecodeArm::kPersistent);
  plan = PlanDecode(past, DecodeOverrides{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->arm, DecodeArm::kGqa);
  for (DecodeArm arm : {DecodeArm::kPersistent, DecodeArm::kSolo}) {
    Result<DecodePlan> forced = PlanDecode(past, DecodeOverrides{arm, kSplitAuto});
    ASSERT_FALSE(forced.ok()) << DecodeArmName(arm);
    EXPECT_NE(forced.status().message().find("schedule"), std::string::npos) << forced.status().message();
    EXPECT_TRUE(PlanDecode(under, DecodeOverrides{arm, kSplitAuto}).ok()) << DecodeArmName(arm);
  }
}

TEST(DecodePlan, OverridesSelectEachArm) {
  for (auto [env, arm] : {std::pair{"block", DecodeArm::kBlock}, std::pair{"warp", DecodeArm::kWarp},
                          std::pair{"warp2", DecodeArm::kWarpTwoRows}, std::pair{"gqa", DecodeArm::kGqa},
                          std::pair{"persist", DecodeArm::kPersistent}, std::pair{"solo", DecodeArm::kSolo}}) {
    Result<DecodeOverrides> o = ParseDecodeOverrides(env, nullptr);
    ASSERT_TRUE(o.ok()) << env;
    Result<DecodePlan> plan = PlanDecode(Llama8B(8, 4096), *o);
    ASSERT_TRUE(plan.ok()) << env << ": " << plan.status().message();
    EXPECT_EQ(plan->arm, arm);
    EXPECT_STREQ(DecodeArmName(plan->arm), env);
  }
}

TEST(DecodePlan, SplitIsAutoUnlessTurnedOff) {
  Result<DecodeOverrides> unset = ParseDecodeOverrides(nullptr, nullptr);
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->split_tokens, kSplitAuto);
  Result<DecodeOverrides> empty = ParseDecodeOverrides("", "");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->split_tokens, kSplitAuto);
  Result<DecodeOverrides> off = ParseDecodeOverrides(nullptr, "off");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->split_tokens, 0);
  Result<DecodePlan> plan = PlanDecode(Llama8B(1, 8192), *unset);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_GT(plan->num_chunks, 1);
}

TEST(DecodePlan, AutoSplitChunksFollowOnlyTheRequestsOwnContext) {
  Result<DecodeOverrides> o = ParseDecodeOverrides("gqa", "auto");
  ASSERT_TRUE(o.ok());
  for (int batch : {1, 8, 64}) {
    Result<DecodePlan> plan = PlanDecode(Llama8B(batch, 16384), *o);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->chunk_tokens, kChunkByContext);
    EXPECT_EQ(plan->num_chunks, kTargetChunks);
  }
  EXPECT_EQ(ChunkTokensForContext(1), kWholeContextTokens);
  EXPECT_EQ(ChunkTokensForContext(kWholeContextTokens), kWholeContextTokens);
  EXPECT_EQ(ChunkTokensForContext(kWholeContextTokens + 1), kMinChunkTokens);  // three chunks of 128
  EXPECT_EQ(ChunkTokensForContext(4096), kMinChunkTokens);
  EXPECT_EQ(ChunkTokensForContext(16384), 512);
  EXPECT_EQ(ChunkTokensForContext(16385), 1024);
  EXPECT_EQ(ChunkTokensForContext(1 << 30), kMaxChunkTokens);
  // Calls whose longest context is one chunk's are not split at all; one key more and they are.
  Result<DecodePlan> short_ctx = PlanDecode(Llama8B(1, kWholeContextTokens), *o);
  ASSERT_TRUE(short_ctx.ok());
  EXPECT_EQ(short_ctx->num_chunks, 1);
  Result<DecodePlan> longer = PlanDecode(Llama8B(1, kWholeContextTokens + 1), *o);
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(longer->num_chunks, 3);
}

TEST(DecodePlan, GridChunkCountCoversEveryShorterContext) {
  for (int max_context : {65, 100, 256, 257, 1000, 2048, 2049, 5000, 16384, 131072, 131073, 500000}) {
    const int grid = MaxChunksByContext(max_context);
    for (int ctx = 1; ctx <= max_context; ctx += (ctx < 5000 ? 1 : 997)) {
      const int chunk = ChunkTokensForContext(ctx);
      ASSERT_LE((ctx + chunk - 1) / chunk, grid) << "ctx " << ctx << " max " << max_context;
    }
  }
}

TEST(DecodePlan, ChunksPerCtaKeepsTwoWavesAndSplitsEvenly) {
  EXPECT_EQ(ChunksPerCta(8, 32, 264), 1);     // batch 1: every chunk its own CTA
  EXPECT_EQ(ChunksPerCta(512, 32, 264), 8);   // batch 64: long CTAs, capped at 8
  EXPECT_EQ(ChunksPerCta(512, 8, 264), 4);    // 7 wanted -> two even groups of 4
  EXPECT_EQ(ChunksPerCta(512, 1, 264), 1);
  for (int chunks = 1; chunks <= 40; ++chunks) {
    const int per = ChunksPerCta(4096, chunks, 100);
    ASSERT_GE(per, 1);
    ASSERT_LE(per, std::min(chunks, 8));
  }
}

TEST(DecodePlan, ExplicitSplitRoundsChunkCountUp) {
  Result<DecodeOverrides> o = ParseDecodeOverrides("warp", "256");
  ASSERT_TRUE(o.ok());
  Result<DecodePlan> plan = PlanDecode(Llama8B(2, 1025), *o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->chunk_tokens, 256);
  EXPECT_EQ(plan->num_chunks, 5);
}

TEST(DecodePlan, ForcedArmThatCannotRunTheShapeIsAnErrorNotAFallback) {
  DecodeShape d64{1, 8, 8, 64, 16, 100};
  Result<DecodePlan> warp = PlanDecode(d64, DecodeOverrides{DecodeArm::kWarp, 0});
  ASSERT_FALSE(warp.ok());
  EXPECT_NE(warp.status().message().find("head_dim 64"), std::string::npos);

  DecodeShape d256{1, 16, 2, 256, 16, 100};
  EXPECT_FALSE(PlanDecode(d256, DecodeOverrides{DecodeArm::kWarpTwoRows, 0}).ok());
  EXPECT_TRUE(PlanDecode(d256, DecodeOverrides{DecodeArm::kWarp, 0}).ok());

  DecodeShape wide_group{1, 64, 2, 128, 16, 100};  // 32 query heads per KV head
  EXPECT_FALSE(PlanDecode(wide_group, DecodeOverrides{DecodeArm::kGqa, 0}).ok());
  Result<DecodePlan> persist = PlanDecode(wide_group, DecodeOverrides{DecodeArm::kPersistent, 0});
  ASSERT_FALSE(persist.ok());
  EXPECT_EQ(persist.status().message().rfind("persist arm: 32 query heads", 0), 0u) << persist.status().message();

  // The solo arm keeps a state a key stream in shared memory: head_dim 128 only.
  Result<DecodePlan> solo = PlanDecode(d256, DecodeOverrides{DecodeArm::kSolo, 0});
  ASSERT_FALSE(solo.ok());
  EXPECT_EQ(solo.status().message().rfind("solo arm: head_dim 256", 0), 0u) << solo.status().message();
  EXPECT_FALSE(PlanDecode(wide_group, DecodeOverrides{DecodeArm::kSolo, 0}).ok());
  EXPECT_TRUE(PlanDecode(Llama8B(8, 4096), DecodeOverrides{DecodeArm::kSolo, kSplitAuto}).ok());
}

TEST(DecodePlan, BadOverridesAndShapesAreRejectedWithTheirName) {
  Result<DecodeOverrides> bad_arm = ParseDecodeOverrides("fast", nullptr);
  ASSERT_FALSE(bad_arm.ok());
  EXPECT_NE(bad_arm.status().message().find("decode arm 'fast'"), std::string::npos);
  EXPECT_FALSE(ParseDecodeOverrides(nullptr, "12abc").ok());
  EXPECT_FALSE(ParseDecodeOverrides(nullptr, "-5").ok());

  Result<DecodeOverrides> odd_split = ParseDecodeOverrides("block", "100");
  ASSERT_TRUE(odd_split.ok());
  EXPECT_FALSE(PlanDecode(Llama8B(1, 4096), *odd_split).ok());  // not a multiple of the page size

  Result<DecodeOverrides> tiny_split = ParseDecodeOverrides("gqa", "16");
  ASSERT_TRUE(tiny_split.ok());
  EXPECT_FALSE(PlanDecode(Llama8B(1, 16 * kMaxDecodeChunks + 1), *tiny_split).ok());  // too many chunks
  EXPECT_TRUE(PlanDecode(Llama8B(1, 16 * kMaxDecodeChunks), *tiny_split).ok());

  DecodeShape uneven{1, 12, 8, 128, 16, 100};
  EXPECT_FALSE(PlanDecode(uneven, DecodeOverrides{}).ok());
  DecodeShape odd_page{1, 8, 8, 128, 8, 100};
  EXPECT_FALSE(PlanDecode(odd_page, DecodeOverrides{}).ok());
}

}  // namespace
}  // namespace vt::kernels::cuda
