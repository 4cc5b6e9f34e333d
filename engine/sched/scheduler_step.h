// What runs in one step: the plain data object the scheduler produces and the
// executor consumes. It carries copies of the tokens and block tables, so the
// executor needs nothing else from the scheduler.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/kv/kv_cache_manager.h"

namespace vt {

struct ScheduledChunk {
  RequestId id = 0;
  std::vector<int32_t> tokens;  // to compute this step
  int64_t start_pos = 0;        // position of tokens[0]; earlier K/V are cached
  std::vector<int32_t> block_table;
  bool sample = false;          // the chunk reaches the end of the request: sample a token
};

struct SchedulerStep {
  std::vector<ScheduledChunk> chunks;
  std::vector<RequestId> preempted;  // lost their blocks this step, will be recomputed
  int64_t num_tokens = 0;
  int64_t num_decodes = 0;  // chunks of running requests' one next token; the rest are prompt tokens

  bool empty() const { return chunks.empty(); }
};

}  // namespace vt
