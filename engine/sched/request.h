// One generation request as the scheduler tracks it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/kv/kv_cache_manager.h"
#include "engine/sample/sampler.h"
#include "engine/sample/sampling_params.h"
#include "engine/tokenizer/output_text.h"

namespace vt {

enum class RequestState { kWaiting, kRunning, kFinished };
enum class FinishReason { kNone, kStop, kLength, kAborted };

const char* FinishReasonName(FinishReason r);  // "stop", "length", "abort"

struct Request {
  RequestId id = 0;
  std::vector<int32_t> prompt;
  SamplingParams params;
  uint64_t seed = 0;  // params.seed, or one the engine drew

  std::vector<int32_t> output;
  std::vector<SampledToken> output_logprobs;  // filled when params.logprobs >= 0
  // Tokens of prompt + output whose K/V are in the cache. Preemption resets it
  // to 0: the request is recomputed from its tokens later.
  int64_t num_computed = 0;
  RequestState state = RequestState::kWaiting;
  FinishReason finish = FinishReason::kNone;
  int32_t num_preemptions = 0;
  // The output's text and stop strings, when the engine has a tokenizer.
  std::unique_ptr<OutputText> text;

  int64_t num_tokens() const { return static_cast<int64_t>(prompt.size() + output.size()); }
  int32_t TokenAt(int64_t i) const {
    return i < static_cast<int64_t>(prompt.size()) ? prompt[i] : output[i - prompt.size()];
  }
  std::vector<int32_t> AllTokens() const;
};

}  // namespace vt
