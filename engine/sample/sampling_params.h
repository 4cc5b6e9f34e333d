// What a request asks of the sampler and when it stops.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vt {

struct SamplingParams {
  float temperature = 1.0f;  // 0 means greedy
  int32_t top_k = 0;         // 0 or -1: off
  float top_p = 1.0f;
  float min_p = 0.0f;
  std::optional<uint64_t> seed;  // none: the engine draws one
  int64_t max_tokens = 16;
  std::vector<int32_t> stop_token_ids;
  bool ignore_eos = false;
  int32_t logprobs = -1;  // -1: none; 0: the chosen token's; n: plus the top n
};

}  // namespace vt
