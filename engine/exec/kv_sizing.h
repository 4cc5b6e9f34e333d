// The one KV-sizing policy: how many blocks a runner's pool holds, from what the run needs and
// the memory it may take. Every backend and app sizes its pool through KvPoolBlocks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "base/status.h"

namespace vt {

struct KvDemand {
  // Blocks that hold everything the run may keep at once; kAsManyAsFit lets the budget decide.
  int64_t wanted_blocks = 0;
  // Below this the pool is refused (a CUDA pool must hold one sequence of the full context).
  int64_t required_blocks = 1;

  static constexpr int64_t kAsManyAsFit = std::numeric_limits<int32_t>::max();

  // `sequences` requests of `tokens` each, at full length.
  static KvDemand Uniform(int64_t sequences, int64_t tokens, int32_t block_size);
  // One request per entry of `tokens`, each at its full length.
  static KvDemand PerSequence(const std::vector<int64_t>& tokens, int32_t block_size);
};

// min(wanted, what budget_bytes holds), at least one block and never above int32; an error naming
// the shortfall when the budget holds fewer than required_blocks.
Result<int32_t> KvPoolBlocks(const KvDemand& demand, uint64_t bytes_per_block, uint64_t budget_bytes);

// Host memory a CPU pool may take unless the caller says otherwise. The pool is calloc'ed, so
// only the pages requests touch become resident.
inline constexpr uint64_t kDefaultHostKvBytes = 4ull << 30;

}  // namespace vt
