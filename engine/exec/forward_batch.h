// What one step hands a runner: the sequences it computes (their new tokens, where their cached
// context ends, their block tables) and, for the rows that sample, how each draws its token.
// Backend-neutral: the CPU and CUDA runners both consume exactly this.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/grammar/token_bitmask.h"
#include "engine/sample/logits_adjust.h"
#include "engine/sample/sampler.h"

namespace vt {

// One sequence's slice of a batched forward.
struct ForwardSeq {
  const int32_t* tokens = nullptr;
  int64_t num_tokens = 0;
  int64_t start_pos = 0;  // K/V of positions [0, start_pos) are already cached
  const int32_t* block_table = nullptr;
  int64_t num_blocks = 0;    // entries in block_table
  bool want_logits = false;  // logits of the last token
};

// The sequences of one step, in the order their logits rows come back.
using ForwardBatch = std::vector<ForwardSeq>;

// How one sampling row of a step draws its token.
struct RowDraw {
  const SamplingParams* params = nullptr;
  uint64_t seed = 0;
  int64_t token_index = 0;  // the request's output index this token takes
  // The penalties, biases and min_tokens masking applied to the row before `allowed`; null: none.
  const LogitsAdjustment* adjust = nullptr;
  // The tokens the row may draw (ids past its size may not); null: any.
  const grammar::TokenBitmask* allowed = nullptr;
};

// Fills the adjustments and masks the draws' `adjust` and `allowed` point to. A runner calls it once
// the forward is under way and before it reads either, so that a device backend plans the step's
// adjustments and computes its grammar masks on the host while the GPU runs the forward.
using PrepareDraws = std::function<void()>;

// -inf for every logit of `row` (vocab wide) whose token `allowed` does not hold.
inline void MaskRow(float* row, int64_t vocab, const grammar::TokenBitmask& allowed) {
  for (int64_t t = 0; t < vocab; ++t) {
    if (t >= allowed.size() || !allowed.Test(t)) row[t] = -INFINITY;
  }
}

}  // namespace vt
