// The logits adjustments a request may ask for, applied to one row of logits before sampling:
// min_tokens (EOS and stop tokens masked while the output is shorter), logit_bias, then the
// repetition, frequency and presence penalties, in vLLM's order and with its definitions:
// repetition over prompt and output tokens (a positive logit divided, a negative one multiplied),
// frequency and presence over output tokens only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/sample/sampling_params.h"

namespace vt {

void AdjustLogits(float* logits, int64_t vocab, const SamplingParams& params, const std::vector<int32_t>& prompt,
                  const std::vector<int32_t>& output, const std::vector<int32_t>& eos_token_ids);

}  // namespace vt
