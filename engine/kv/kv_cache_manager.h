// Per-request block tables over a BlockPool, with prefix caching: a new
// request starts from the longest run of cached full blocks matching its
// tokens, and full blocks it computes are published for later requests.
// Plain C++: the scheduler and its tests drive it without a model.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_pool.h"

namespace vt {

using RequestId = int64_t;

class KvCacheManager {
 public:
  KvCacheManager(int32_t num_blocks, int32_t block_size, bool prefix_caching);

  int32_t block_size() const { return block_size_; }
  int32_t num_blocks() const { return pool_.num_blocks(); }
  int32_t num_free_blocks() const { return pool_.num_free(); }
  double usage() const { return 1.0 - static_cast<double>(pool_.num_free()) / pool_.num_blocks(); }
  const BlockPool& pool() const { return pool_; }

  // For a request with no blocks yet: attaches the cached blocks of the
  // longest matching prefix and returns how many tokens they hold. At least
  // one token is always left uncomputed, since its logits are needed. They
  // count as prefix-cache hits once an Allocate for the request succeeds
  // (the blocks are kept), not if it is freed first.
  int64_t AttachCachedPrefix(RequestId id, std::span<const int32_t> tokens);

  // Grows the request's table to cover num_tokens; false, changing nothing,
  // when the pool has too few free blocks.
  bool Allocate(RequestId id, int64_t num_tokens);

  // Whether CacheComputed would publish a block: a full block among the first num_computed tokens
  // not yet published. Callers build the token list only then: a decode step fills a block once
  // every block_size tokens, and copying every request's tokens every step cost the engine thread
  // up to 18 us a step at 8 requests of 8k tokens on an H200's host (docs/BENCHMARKS.md), growing
  // with the context.
  bool HasBlocksToCache(RequestId id, int64_t num_computed) const;

  // Publishes the request's full blocks among its first num_computed tokens.
  void CacheComputed(RequestId id, std::span<const int32_t> tokens, int64_t num_computed);

  // Releases all of the request's blocks (finish, abort or preemption).
  void Free(RequestId id);

  const std::vector<int32_t>& BlockTable(RequestId id) const;

  int64_t prefix_hit_tokens() const { return prefix_hit_tokens_; }

 private:
  struct Entry {
    std::vector<int32_t> blocks;
    std::vector<BlockHash> hashes;  // hashes of the leading blocks already published
    int64_t unconfirmed_hit_tokens = 0;  // attached, not yet kept by a successful Allocate
  };

  BlockHash ParentHash(const Entry& e) const { return e.hashes.empty() ? kRootBlockHash : e.hashes.back(); }
  // The request's full blocks among its first num_computed tokens.
  int64_t FullBlocks(const Entry& e, int64_t num_computed) const;

  int32_t block_size_;
  bool prefix_caching_;
  BlockPool pool_;
  std::unordered_map<RequestId, Entry> entries_;
  int64_t prefix_hit_tokens_ = 0;
};

}  // namespace vt
