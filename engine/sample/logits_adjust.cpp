#include "engine/sample/logits_adjust.h"

#include <algorithm>
#include <cmath>

namespace vt {

namespace {

bool InVocab(int32_t id, int64_t vocab) { return id >= 0 && id < vocab; }

// A plan is made for every adjusted row at every step, over the whole prompt and output: the
// de-duplication uses vocabulary-sized arrays kept per thread, not hash sets built per call. A
// mark is current when it equals `generation`, so forgetting every mark is one increment; counts
// are put back to zero where they were used.
struct PlanScratch {
  std::vector<uint32_t> mark;
  uint32_t generation = 0;
  std::vector<int64_t> count;

  void Forget() {
    if (++generation == 0) {  // wrapped: old marks could read as current
      std::fill(mark.begin(), mark.end(), 0u);
      generation = 1;
    }
  }
  // Appends the ids of `ids` inside the vocabulary not marked yet, marking them.
  void AddUnseen(const std::vector<int32_t>& ids, int64_t vocab, std::vector<int32_t>* to) {
    for (int32_t id : ids) {
      if (InVocab(id, vocab) && mark[size_t(id)] != generation) {
        mark[size_t(id)] = generation;
        to->push_back(id);
      }
    }
  }
};

PlanScratch& ScratchFor(int64_t vocab) {
  thread_local PlanScratch scratch;
  if (static_cast<int64_t>(scratch.mark.size()) < vocab) {
    scratch.mark.assign(size_t(vocab), 0u);
    scratch.count.assign(size_t(vocab), 0);
    scratch.generation = 0;
  }
  return scratch;
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
  PlanScratch& scratch = ScratchFor(vocab);
  if (static_cast<int64_t>(output.size()) < params.min_tokens) {
    scratch.Forget();
    scratch.AddUnseen(params.stop_token_ids, vocab, &plan->masked);
    if (!params.ignore_eos) scratch.AddUnseen(eos_token_ids, vocab, &plan->masked);
  }
  for (const auto& [id, bias] : params.logit_bias) {
    if (InVocab(id, vocab)) plan->bias.emplace_back(id, bias);
  }
  if (params.repetition_penalty != 1.0f) {
    scratch.Forget();
    scratch.AddUnseen(prompt, vocab, &plan->repeated);
    scratch.AddUnseen(output, vocab, &plan->repeated);
  }
  if (params.frequency_penalty != 0.0f || params.presence_penalty != 0.0f) {
    // In order of first appearance, so that the plan is the same on every backend.
    for (int32_t id : output) {
      if (InVocab(id, vocab) && scratch.count[size_t(id)]++ == 0) plan->counted.emplace_back(id, 0.0f);
    }
    for (auto& [id, count] : plan->counted) {
      count = static_cast<float>(scratch.count[size_t(id)]);
      scratch.count[size_t(id)] = 0;
    }
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
