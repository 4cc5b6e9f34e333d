#include "engine/kv/block_pool.h"

#include <algorithm>

namespace vt {

BlockHash HashBlock(BlockHash parent, std::span<const int32_t> tokens) {
  // splitmix64-style mixing per token: cheap, and every input bit reaches
  // every output bit.
  uint64_t h = parent ^ 0x9e3779b97f4a7c15ull;
  for (int32_t t : tokens) {
    h ^= static_cast<uint32_t>(t);
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return h;
}

BlockPool::BlockPool(int32_t num_blocks) : blocks_(static_cast<size_t>(num_blocks)) {
  for (int32_t b = 0; b < num_blocks; ++b) blocks_[b].free_pos = free_.insert(free_.end(), b);
}

std::optional<std::vector<int32_t>> BlockPool::Allocate(int32_t n) {
  if (n > num_free()) return std::nullopt;
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const int32_t b = free_.front();
    free_.pop_front();
    if (blocks_[b].cached) Evict(b);
    blocks_[b].ref = 1;
    out.push_back(b);
  }
  return out;
}

void BlockPool::Ref(int32_t block) {
  Block& b = blocks_[block];
  if (b.ref++ == 0) free_.erase(b.free_pos);
}

void BlockPool::Release(std::span<const int32_t> blocks) {
  for (int32_t id : blocks) {
    Block& b = blocks_[id];
    if (--b.ref == 0) b.free_pos = free_.insert(free_.end(), id);
  }
}

std::optional<int32_t> BlockPool::Lookup(BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) const {
  auto it = cached_.find(hash);
  if (it == cached_.end()) return std::nullopt;
  const Block& b = blocks_[it->second];
  if (b.parent != parent || !std::equal(tokens.begin(), tokens.end(), b.tokens.begin(), b.tokens.end())) {
    return std::nullopt;
  }
  return it->second;
}

void BlockPool::Cache(int32_t block, BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) {
  Block& b = blocks_[block];
  if (b.cached || cached_.count(hash) != 0) return;
  b.cached = true;
  b.hash = hash;
  b.parent = parent;
  b.tokens.assign(tokens.begin(), tokens.end());
  cached_.emplace(hash, block);
}

void BlockPool::Evict(int32_t block) {
  Block& b = blocks_[block];
  cached_.erase(b.hash);
  b.cached = false;
  b.tokens.clear();
}

}  // namespace vt
