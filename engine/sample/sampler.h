// Turns one row of logits into a token. Randomness comes from the request's
// seed and the index of the token being sampled only, so a seeded request
// samples the same tokens whatever else shares its batch, and preemption
// (which recomputes but never re-samples) cannot shift its stream.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/sample/sampling_params.h"

namespace vt {

struct TokenLogprob {
  int32_t token = 0;
  float logprob = 0.0f;
};

struct SampledToken {
  int32_t token = 0;
  float logprob = 0.0f;           // of the chosen token under the model's raw distribution
  std::vector<TokenLogprob> top;  // the top `logprobs` tokens, most likely first
};

// Filters apply in this order: temperature, min-p, top-k, top-p. The token is drawn from `logits`;
// its logprob and the top alternatives come from `logprob_logits` when given (the model's raw row,
// when `logits` is that row adjusted by the request's penalties and biases), else from `logits`.
SampledToken Sample(const float* logits, int64_t vocab, const SamplingParams& params, uint64_t seed,
                    int64_t token_index, const float* logprob_logits = nullptr);

// Ties go to the lowest id, as in torch.argmax.
int32_t Argmax(const float* logits, int64_t vocab);

}  // namespace vt
