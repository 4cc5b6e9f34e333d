#include "engine/kv/kv_cache_manager.h"

#include <algorithm>

namespace vt {

KvCacheManager::KvCacheManager(int32_t num_blocks, int32_t block_size, bool prefix_caching)
    : block_size_(block_size), prefix_caching_(prefix_caching), pool_(num_blocks) {}

int64_t KvCacheManager::AttachCachedPrefix(RequestId id, std::span<const int32_t> tokens) {
  Entry& e = entries_[id];
  if (!prefix_caching_ || !e.blocks.empty()) return 0;
  const int64_t max_blocks = (static_cast<int64_t>(tokens.size()) - 1) / block_size_;
  for (int64_t i = 0; i < max_blocks; ++i) {
    std::span<const int32_t> block_tokens = tokens.subspan(i * block_size_, block_size_);
    const BlockHash parent = ParentHash(e);
    const BlockHash hash = HashBlock(parent, block_tokens);
    std::optional<int32_t> hit = pool_.Lookup(hash, parent, block_tokens);
    if (!hit) break;
    pool_.Ref(*hit);
    e.blocks.push_back(*hit);
    e.hashes.push_back(hash);
  }
  const int64_t cached = static_cast<int64_t>(e.blocks.size()) * block_size_;
  e.unconfirmed_hit_tokens = cached;
  return cached;
}

bool KvCacheManager::Allocate(RequestId id, int64_t num_tokens) {
  Entry& e = entries_[id];
  const int64_t needed = (num_tokens + block_size_ - 1) / block_size_ - static_cast<int64_t>(e.blocks.size());
  if (needed > 0) {
    std::optional<std::vector<int32_t>> fresh = pool_.Allocate(static_cast<int32_t>(needed));
    if (!fresh) return false;
    e.blocks.insert(e.blocks.end(), fresh->begin(), fresh->end());
  }
  // The attached prefix is kept: its tokens were hits. A request that waits for blocks attaches and
  // frees it on every step it waits, which must not count again each time.
  prefix_hit_tokens_ += e.unconfirmed_hit_tokens;
  e.unconfirmed_hit_tokens = 0;
  return true;
}

int64_t KvCacheManager::FullBlocks(const Entry& e, int64_t num_computed) const {
  return std::min<int64_t>(num_computed / block_size_, static_cast<int64_t>(e.blocks.size()));
}

bool KvCacheManager::HasBlocksToCache(RequestId id, int64_t num_computed) const {
  if (!prefix_caching_) return false;
  auto it = entries_.find(id);
  return it != entries_.end() && FullBlocks(it->second, num_computed) > static_cast<int64_t>(it->second.hashes.size());
}

void KvCacheManager::CacheComputed(RequestId id, std::span<const int32_t> tokens, int64_t num_computed) {
  if (!prefix_caching_) return;
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  const int64_t full = FullBlocks(e, num_computed);
  for (int64_t i = static_cast<int64_t>(e.hashes.size()); i < full; ++i) {
    std::span<const int32_t> block_tokens = tokens.subspan(i * block_size_, block_size_);
    const BlockHash parent = ParentHash(e);
    const BlockHash hash = HashBlock(parent, block_tokens);
    pool_.Cache(e.blocks[i], hash, parent, block_tokens);
    e.hashes.push_back(hash);
  }
}

void KvCacheManager::Free(RequestId id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  std::vector<int32_t> reversed(it->second.blocks.rbegin(), it->second.blocks.rend());
  pool_.Release(reversed);
  entries_.erase(it);
}

const std::vector<int32_t>& KvCacheManager::BlockTable(RequestId id) const {
  static const std::vector<int32_t> kEmpty;
  auto it = entries_.find(id);
  return it == entries_.end() ? kEmpty : it->second.blocks;
}

}  // namespace vt
