#include "engine/sample/logits_adjust.h"

#include <cmath>
#include <unordered_map>

namespace vt {

namespace {

void Mask(float* logits, int64_t vocab, const std::vector<int32_t>& ids) {
  for (int32_t id : ids) {
    if (id >= 0 && id < vocab) logits[id] = -INFINITY;
  }
}

}  // namespace

void AdjustLogits(float* logits, int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                  const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids) {
  if (static_cast<int64_t>(output.size()) < params.min_tokens) {
    Mask(logits, vocab, params.stop_token_ids);
    if (!params.ignore_eos) Mask(logits, vocab, eos_token_ids);
  }
  for (const auto& [id, bias] : params.logit_bias) {
    if (id >= 0 && id < vocab) logits[id] += bias;
  }
  if (params.repetition_penalty != 1.0f) {
    std::vector<bool> seen(static_cast<size_t>(vocab), false);
    for (const std::vector<int32_t>* tokens : {&prompt, &output}) {
      for (int32_t id : *tokens) {
        if (id < 0 || id >= vocab || seen[size_t(id)]) continue;
        seen[size_t(id)] = true;
        float& l = logits[id];
        l = l > 0 ? l / params.repetition_penalty : l * params.repetition_penalty;
      }
    }
  }
  if (params.frequency_penalty != 0.0f || params.presence_penalty != 0.0f) {
    std::unordered_map<int32_t, int64_t> counts;
    for (int32_t id : output) {
      if (id >= 0 && id < vocab) ++counts[id];
    }
    for (const auto& [id, count] : counts) {
      logits[id] -= params.frequency_penalty * static_cast<float>(count) + params.presence_penalty;
    }
  }
}

}  // namespace vt
