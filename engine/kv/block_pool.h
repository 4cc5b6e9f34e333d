// The physical KV blocks: reference counts, the LRU queue of free blocks, and
// the prefix cache index (block hash → block). A free block keeps its cached
// content until the queue hands it out again, so a prefix that was used
// recently is found again for free; the least recently freed is evicted first.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace vt {

using BlockHash = uint64_t;

// Hash of one full block chained to its parent's, so equal hashes mean equal
// prefixes, not merely equal blocks.
BlockHash HashBlock(BlockHash parent, std::span<const int32_t> tokens);
constexpr BlockHash kRootBlockHash = 0x6a09e667f3bcc909ull;

class BlockPool {
 public:
  explicit BlockPool(int32_t num_blocks);

  int32_t num_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t num_free() const { return static_cast<int32_t>(free_.size()); }
  int32_t ref_count(int32_t block) const { return blocks_[block].ref; }

  // Takes n blocks from the front of the free queue (evicting whatever they
  // cached), each with ref count 1; nullopt, changing nothing, when fewer are free.
  std::optional<std::vector<int32_t>> Allocate(int32_t n);

  // One more user of a block that may be free-but-cached.
  void Ref(int32_t block);

  // Drops one reference to each block; blocks reaching zero join the back of
  // the free queue in the order given (callers pass a sequence's tail first,
  // so tails are evicted before shared prefixes).
  void Release(std::span<const int32_t> blocks);

  // The cached block holding `tokens` after the prefix hashed `parent`, if any.
  std::optional<int32_t> Lookup(BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) const;

  // Registers a full block; a no-op when the hash is already cached elsewhere.
  void Cache(int32_t block, BlockHash hash, BlockHash parent, std::span<const int32_t> tokens);

 private:
  struct Block {
    int32_t ref = 0;
    bool cached = false;
    BlockHash hash = 0;
    BlockHash parent = 0;
    std::vector<int32_t> tokens;  // checked on lookup: a 64-bit hash collision must not return wrong KV
    std::list<int32_t>::iterator free_pos;
  };

  void Evict(int32_t block);

  std::vector<Block> blocks_;
  std::list<int32_t> free_;  // front = least recently freed = next to evict
  std::unordered_map<BlockHash, int32_t> cached_;
};

}  // namespace vt
