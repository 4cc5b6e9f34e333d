// What a request asks of the sampler and when it stops.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vt {

namespace grammar {
struct GrammarConstraint;
}

struct SamplingParams {
  float temperature = 1.0f;  // 0 means greedy
  int32_t top_k = 0;         // 0 or -1: off
  float top_p = 1.0f;
  float min_p = 0.0f;
  std::optional<uint64_t> seed;  // none: the engine draws one
  int64_t max_tokens = 16;
  std::vector<int32_t> stop_token_ids;
  // The output ends right before the first of these in its text (finish "stop"); needs an engine
  // with the model's tokenizer.
  std::vector<std::string> stop;
  bool ignore_eos = false;
  int32_t logprobs = -1;  // -1: none; 0: the chosen token's; n: plus the top n

  // Adjustments of the model's logits before the filters above (engine/sample/logits_adjust.h),
  // as OpenAI and vLLM define them.
  float presence_penalty = 0.0f;    // subtracted once from every token the output already holds
  float frequency_penalty = 0.0f;   // subtracted per occurrence in the output
  float repetition_penalty = 1.0f;  // divides positive / multiplies negative logits of prompt and output tokens
  std::vector<std::pair<int32_t, float>> logit_bias;  // added to the token's logit
  int64_t min_tokens = 0;  // EOS and stop_token_ids cannot be drawn before this many output tokens
  // Tokens outside what the grammar accepts next cannot be drawn; EOS only where it may end.
  std::shared_ptr<const grammar::GrammarConstraint> grammar;

  // Penalties, biases and min_tokens change logit values (engine/sample/logits_adjust.h); a grammar
  // only masks tokens. Both apply on the host or, where a runner samples, on its device.
  bool ChangesLogitValues() const {
    return presence_penalty != 0.0f || frequency_penalty != 0.0f || repetition_penalty != 1.0f ||
           !logit_bias.empty() || min_tokens > 0;
  }
  bool AdjustsLogits() const { return ChangesLogitValues() || grammar != nullptr; }
};

}  // namespace vt
