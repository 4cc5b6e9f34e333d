#include "engine/sample/logits_adjust.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace vt {

namespace {

bool InVocab(int32_t id, int64_t vocab) { return id >= 0 && id < vocab; }

// Appends the ids of `ids` inside the vocabulary that `seen` does not hold yet.
void AddUnseen(const std::vector<int32_t>& ids, int64_t vocab, std::unordered_set<int32_t>* seen,
               std::vector<int32_t>* to) {
  for (int32_t id : ids) {
    if (InVocab(id, vocab) && seen->insert(id).second) to->push_back(id);
  }
}

}  // namespace

void PlanAdjustment(int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                    const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids,
                    LogitsAdjustment* plan) {
  plan->masked.clear();
  plan->bias.clear();
  plan->repeated.clear();
  plan->counted.clear();
  plan->repetition_penalty = params.repetition_penalty;
  plan->frequency_penalty = params.frequency_penalty;
  plan->presence_penalty = params.presence_penalty;
  std::unordered_set<int32_t> seen;
  if (static_cast<int64_t>(output.size()) < params.min_tokens) {
    AddUnseen(params.stop_token_ids, vocab, &seen, &plan->masked);
    if (!params.ignore_eos) AddUnseen(eos_token_ids, vocab, &seen, &plan->masked);
  }
  for (const auto& [id, bias] : params.logit_bias) {
    if (InVocab(id, vocab)) plan->bias.emplace_back(id, bias);
  }
  if (params.repetition_penalty != 1.0f) {
    seen.clear();
    AddUnseen(prompt, vocab, &seen, &plan->repeated);
    AddUnseen(output, vocab, &seen, &plan->repeated);
  }
  if (params.frequency_penalty != 0.0f || params.presence_penalty != 0.0f) {
    std::unordered_map<int32_t, int64_t> counts;
    std::vector<int32_t> order;  // first appearance, so that the plan does not depend on hashing
    for (int32_t id : output) {
      if (InVocab(id, vocab) && counts[id]++ == 0) order.push_back(id);
    }
    for (int32_t id : order) plan->counted.emplace_back(id, static_cast<float>(counts[id]));
  }
}

void ApplyAdjustment(float* logits, const LogitsAdjustment& plan) {
  for (int32_t id : plan.masked) logits[id] = -INFINITY;
  for (const auto& [id, bias] : plan.bias) logits[id] += bias;
  for (int32_t id : plan.repeated) {
    float& l = logits[id];
    l = l > 0 ? l / plan.repetition_penalty : l * plan.repetition_penalty;
  }
  for (const auto& [id, count] : plan.counted) {
    logits[id] -= plan.frequency_penalty * count + plan.presence_penalty;
  }
}

void AdjustLogits(float* logits, int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                  const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids) {
  LogitsAdjustment plan;
  PlanAdjustment(vocab, params, prompt, output, eos_token_ids, &plan);
  ApplyAdjustment(logits, plan);
}

}  // namespace vt
