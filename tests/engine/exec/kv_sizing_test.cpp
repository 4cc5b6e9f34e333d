// The one KV-sizing policy: what the run wants, within the budget, refused below what it needs.
#include <gtest/gtest.h>

#include "engine/exec/kv_sizing.h"

namespace vt {
namespace {

TEST(KvSizing, DemandCountsWholeBlocksPerSequence) {
  EXPECT_EQ(KvDemand::Uniform(4, 100, 16).wanted_blocks, 4 * 7);  // 100 tokens take 7 blocks of 16
  EXPECT_EQ(KvDemand::PerSequence({16, 17, 1}, 16).wanted_blocks, 1 + 2 + 1);
}

TEST(KvSizing, TakesTheDemandWhenTheBudgetHoldsIt) {
  Result<int32_t> blocks = KvPoolBlocks(KvDemand::Uniform(2, 64, 16), /*bytes_per_block=*/1000, 1'000'000);
  ASSERT_TRUE(blocks.ok());
  EXPECT_EQ(*blocks, 8);
}

TEST(KvSizing, CapsTheDemandAtTheBudget) {
  Result<int32_t> blocks = KvPoolBlocks(KvDemand::Uniform(64, 4096, 16), 1000, 50'500);
  ASSERT_TRUE(blocks.ok());
  EXPECT_EQ(*blocks, 50);
  KvDemand fill;
  fill.wanted_blocks = KvDemand::kAsManyAsFit;
  EXPECT_EQ(KvPoolBlocks(fill, 1000, 123'999).value(), 123);
}

TEST(KvSizing, RefusesABudgetBelowTheRequiredBlocksAndSaysBy) {
  KvDemand demand;
  demand.wanted_blocks = KvDemand::kAsManyAsFit;
  demand.required_blocks = 256;  // one sequence of 4,096 tokens
  Result<int32_t> blocks = KvPoolBlocks(demand, 1 << 20, 100u << 20);
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(blocks.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(blocks.status().message().find("100 MiB"), std::string::npos) << blocks.status().message();
  EXPECT_NE(blocks.status().message().find("256 MiB"), std::string::npos) << blocks.status().message();
}

TEST(KvSizing, NeverBelowOneBlockOrAboveInt32) {
  EXPECT_EQ(KvPoolBlocks(KvDemand{}, 1000, 1'000'000).value(), 1);  // an empty demand still gets a block
  KvDemand fill;
  fill.wanted_blocks = KvDemand::kAsManyAsFit;
  EXPECT_EQ(KvPoolBlocks(fill, 1, UINT64_MAX).value(), std::numeric_limits<int32_t>::max());
  EXPECT_FALSE(KvPoolBlocks(fill, 0, 1000).ok());
}

}  // namespace
}  // namespace vt
