// The logits adjustments a request may ask for, applied to one row of logits before sampling:
// min_tokens (EOS and stop tokens masked while the output is shorter), logit_bias, then the
// repetition, frequency and presence penalties, in vLLM's order and with its definitions:
// repetition over prompt and output tokens (a positive logit divided, a negative one multiplied),
// frequency and presence over output tokens only.
//
// A row's adjustment is planned once as sparse token lists (PlanAdjustment) and applied by the host
// (ApplyAdjustment) or by a device backend from the same lists (kernels/cuda/ops/logits_adjust.h),
// so both use one definition of which tokens change and by how much.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/sample/sampling_params.h"

namespace vt {

// Every list holds ids inside the vocabulary, each id at most once, except `bias`, which keeps the
// request's entries in order (a repeated id adds twice, in that order).
struct LogitsAdjustment {
  std::vector<int32_t> masked;                     // set to -inf
  std::vector<std::pair<int32_t, float>> bias;     // added
  float repetition_penalty = 1.0f;
  std::vector<int32_t> repeated;                   // prompt and output tokens, when the penalty is not 1
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
  // Output tokens with their count as a float, when either penalty is not 0: the logit loses
  // frequency_penalty * count + presence_penalty.
  std::vector<std::pair<int32_t, float>> counted;

  bool empty() const { return masked.empty() && bias.empty() && repeated.empty() && counted.empty(); }
  // Entries over all lists: what a device backend stages for the row.
  size_t entries() const { return masked.size() + bias.size() + repeated.size() + counted.size(); }
};

// Fills `plan` for a row of `vocab` logits (its lists' capacity is reused between calls).
void PlanAdjustment(int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                    const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids,
                    LogitsAdjustment* plan);

// Applies `plan` to one row, in the order of the lists above.
void ApplyAdjustment(float* logits, const LogitsAdjustment& plan);

void AdjustLogits(float* logits, int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                  const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids);

}  // namespace vt
