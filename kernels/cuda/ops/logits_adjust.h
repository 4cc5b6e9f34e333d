// Penalties, logit_bias and min_tokens on the device: each row of a step's bf16 logits becomes a
// float32 row with the request's adjustments applied, for MaskRows and SampleRows to draw from.
//
// The engine plans a row's adjustment as sparse token lists (engine/sample/logits_adjust.h); this
// kernel applies the same lists with the same float operations in the same order as the host's
// ApplyAdjustment (no contraction into FMAs, IEEE division), so the adjusted row is bitwise the
// host's: the bf16 -> float conversion is exact. Rows stay float afterwards because an adjusted
// value (a logit divided by 1.3, say) is generally no bf16 value.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

// One token of a list and its value: the bias added, or the count of an output token (as float);
// unused by the masked and repeated lists.
struct AdjustEntry {
  int32_t token = 0;
  float value = 0.0f;
};

// Row r's lists are consecutive ranges of the entry pool: masked [masked, bias), bias [bias,
// repeated), repeated [repeated, counted), counted [counted, end). A row with four empty ranges is
// only converted.
struct RowAdjust {
  int32_t masked = 0, bias = 0, repeated = 0, counted = 0, end = 0;
  float repetition_penalty = 1.0f;
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
};

// out [rows, vocab] float32 = logits [rows, vocab] bf16 with rows[r] applied to row r: masked
// tokens to -inf, bias entries added in pool order, repeated tokens divided by the repetition
// penalty when positive and multiplied otherwise, counted tokens less frequency_penalty * count +
// presence_penalty. Device memory; launch-only.
Status AdjustLogitsRows(const uint16_t* logits, int rows, int vocab, const RowAdjust* adjust,
                        const AdjustEntry* entries, float* out, cudaStream_t stream);

}  // namespace vt::kernels::cuda
