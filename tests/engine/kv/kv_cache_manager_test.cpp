#include <gtest/gtest.h>

#include "engine/kv/block_pool.h"
#include "engine/kv/kv_cache_manager.h"

namespace vt {
namespace {

std::vector<int32_t> Range(int32_t begin, int32_t n) {
  std::vector<int32_t> v;
  for (int32_t i = 0; i < n; ++i) v.push_back(begin + i);
  return v;
}

TEST(BlockPool, AllocateAndReleaseCountReferences) {
  BlockPool pool(4);
  auto a = pool.Allocate(3);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(pool.num_free(), 1);
  EXPECT_FALSE(pool.Allocate(2).has_value());  // all or nothing
  EXPECT_EQ(pool.num_free(), 1);
  pool.Ref((*a)[0]);
  EXPECT_EQ(pool.ref_count((*a)[0]), 2);
  pool.Release(*a);
  EXPECT_EQ(pool.num_free(), 3);  // block 0 still held once
  EXPECT_EQ(pool.ref_count((*a)[0]), 1);
  pool.Release(std::vector<int32_t>{(*a)[0]});
  EXPECT_EQ(pool.num_free(), 4);
}

TEST(BlockPool, EvictsLeastRecentlyFreedCachedBlockFirst) {
  BlockPool pool(3);
  auto blocks = *pool.Allocate(3);
  const std::vector<int32_t> t0 = Range(0, 4), t1 = Range(4, 4), t2 = Range(8, 4);
  const BlockHash h0 = HashBlock(kRootBlockHash, t0), h1 = HashBlock(h0, t1), h2 = HashBlock(h1, t2);
  pool.Cache(blocks[0], h0, kRootBlockHash, t0);
  pool.Cache(blocks[1], h1, h0, t1);
  pool.Cache(blocks[2], h2, h1, t2);
  // Freed tail first, as a finishing request does: the tail is evicted first.
  pool.Release(std::vector<int32_t>{blocks[2], blocks[1], blocks[0]});
  EXPECT_EQ(pool.num_free(), 3);
  EXPECT_TRUE(pool.Lookup(h2, h1, t2).has_value());
  auto one = *pool.Allocate(1);
  EXPECT_EQ(one[0], blocks[2]);
  EXPECT_FALSE(pool.Lookup(h2, h1, t2).has_value());
  EXPECT_TRUE(pool.Lookup(h0, kRootBlockHash, t0).has_value());
  // Touching a cached free block takes it off the queue: it is not evicted next.
  pool.Ref(blocks[1]);
  auto next = *pool.Allocate(1);
  EXPECT_EQ(next[0], blocks[0]);
  EXPECT_TRUE(pool.Lookup(h1, h0, t1).has_value());
  EXPECT_FALSE(pool.Lookup(h0, kRootBlockHash, t0).has_value());
}

TEST(BlockPool, LookupChecksTokensNotOnlyTheHash) {
  BlockPool pool(1);
  auto b = *pool.Allocate(1);
  const std::vector<int32_t> t = Range(0, 4);
  const BlockHash h = HashBlock(kRootBlockHash, t);
  pool.Cache(b[0], h, kRootBlockHash, t);
  EXPECT_TRUE(pool.Lookup(h, kRootBlockHash, t).has_value());
  EXPECT_FALSE(pool.Lookup(h, kRootBlockHash, Range(1, 4)).has_value());  // a forged collision
  EXPECT_FALSE(pool.Lookup(h, 42, t).has_value());
}

TEST(BlockHash, ChainedOverPrefixes) {
  const std::vector<int32_t> a = Range(0, 16), b = Range(16, 16);
  EXPECT_NE(HashBlock(kRootBlockHash, a), HashBlock(kRootBlockHash, b));
  EXPECT_NE(HashBlock(HashBlock(kRootBlockHash, a), b), HashBlock(HashBlock(kRootBlockHash, b), b));
  EXPECT_EQ(HashBlock(7, a), HashBlock(7, a));
}

TEST(KvCacheManager, BlockTablesGrowByWholeBlocks) {
  KvCacheManager kv(8, 16, false);
  ASSERT_TRUE(kv.Allocate(1, 1));
  EXPECT_EQ(kv.BlockTable(1).size(), 1u);
  ASSERT_TRUE(kv.Allocate(1, 16));
  EXPECT_EQ(kv.BlockTable(1).size(), 1u);
  ASSERT_TRUE(kv.Allocate(1, 17));
  EXPECT_EQ(kv.BlockTable(1).size(), 2u);
  EXPECT_FALSE(kv.Allocate(2, 16 * 7));
  EXPECT_TRUE(kv.BlockTable(2).empty());
  EXPECT_EQ(kv.num_free_blocks(), 6);
  kv.Free(1);
  EXPECT_EQ(kv.num_free_blocks(), 8);
  EXPECT_DOUBLE_EQ(kv.usage(), 0.0);
}

TEST(KvCacheManager, PrefixCacheSharesFullBlocksAndLeavesOneTokenToCompute) {
  KvCacheManager kv(8, 4, true);
  const std::vector<int32_t> prompt = Range(100, 12);
  EXPECT_EQ(kv.AttachCachedPrefix(1, prompt), 0);
  ASSERT_TRUE(kv.Allocate(1, 12));
  kv.CacheComputed(1, prompt, 12);

  // Same 12 tokens: 2 of 3 blocks reused, the last recomputed for its logits.
  EXPECT_EQ(kv.AttachCachedPrefix(2, prompt), 8);
  EXPECT_EQ(kv.BlockTable(2), std::vector<int32_t>(kv.BlockTable(1).begin(), kv.BlockTable(1).begin() + 2));
  EXPECT_EQ(kv.pool().ref_count(kv.BlockTable(1)[0]), 2);
  ASSERT_TRUE(kv.Allocate(2, 12));
  EXPECT_NE(kv.BlockTable(2)[2], kv.BlockTable(1)[2]);

  // A different second block stops the match after the first.
  std::vector<int32_t> fork = prompt;
  fork[5] = 7;
  EXPECT_EQ(kv.AttachCachedPrefix(3, fork), 4);
  ASSERT_TRUE(kv.Allocate(3, 12));

  // Freed cached blocks stay findable until evicted.
  kv.Free(1);
  kv.Free(2);
  kv.Free(3);
  EXPECT_EQ(kv.num_free_blocks(), 8);
  EXPECT_EQ(kv.AttachCachedPrefix(4, prompt), 8);
  ASSERT_TRUE(kv.Allocate(4, 12));
  EXPECT_EQ(kv.prefix_hit_tokens(), 8 + 4 + 8);

  // Hits count the blocks a request keeps: one freed before any Allocate (a request that waited for
  // blocks and will attach again) adds nothing.
  EXPECT_EQ(kv.AttachCachedPrefix(5, prompt), 8);
  kv.Free(5);
  EXPECT_EQ(kv.prefix_hit_tokens(), 8 + 4 + 8);
}

TEST(KvCacheManager, DisabledPrefixCachingNeverHits) {
  KvCacheManager kv(8, 4, false);
  const std::vector<int32_t> prompt = Range(0, 12);
  ASSERT_TRUE(kv.Allocate(1, 12));
  EXPECT_FALSE(kv.HasBlocksToCache(1, 12)) << "nothing is published without prefix caching";
  kv.CacheComputed(1, prompt, 12);
  EXPECT_EQ(kv.AttachCachedPrefix(2, prompt), 0);
}

// The scheduler builds a request's token list for CacheComputed only when this says a block filled:
// once every block_size decode steps, not every step.
TEST(KvCacheManager, BlocksToCacheAppearOnceEachBlockFills) {
  KvCacheManager kv(8, 4, true);
  const std::vector<int32_t> tokens = Range(100, 12);
  EXPECT_FALSE(kv.HasBlocksToCache(1, 4)) << "a request without blocks";
  ASSERT_TRUE(kv.Allocate(1, 6));
  EXPECT_FALSE(kv.HasBlocksToCache(1, 3));
  EXPECT_TRUE(kv.HasBlocksToCache(1, 4));
  kv.CacheComputed(1, tokens, 4);
  EXPECT_FALSE(kv.HasBlocksToCache(1, 7)) << "the first block is published; the second is not full";
  EXPECT_TRUE(kv.HasBlocksToCache(1, 8));
  kv.CacheComputed(1, tokens, 8);
  EXPECT_FALSE(kv.HasBlocksToCache(1, 8));
  EXPECT_FALSE(kv.HasBlocksToCache(1, 12)) << "a third block is not in the table until it is allocated";
  ASSERT_TRUE(kv.Allocate(1, 12));
  EXPECT_TRUE(kv.HasBlocksToCache(1, 12));
  EXPECT_EQ(kv.AttachCachedPrefix(2, tokens), 8) << "both published blocks are found";
}

}  // namespace
}  // namespace vt
