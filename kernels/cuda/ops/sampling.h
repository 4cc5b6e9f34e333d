// Sampling on the device, so that a step sends only token ids to the host: temperature, top-k,
// min-p and top-p over one row of bf16 (or adjusted float32) logits per sequence, with each request's own seeded stream.
//
// The filters keep the same set as the CPU sampler (engine/sample/sampler.cpp) up to ties at a
// cut: top-k and top-p become thresholds on the logit, found by radix select over the ordered float
// keys, so ties at the threshold are all kept; tokens more than 87 T below the top (probability
// under 1e-38 of the top's) are dropped. Rows with a non-finite maximum, T <= 0, top_k 1 or
// top_p <= 0 give the argmax. Cost: one CTA per row, about ten passes over it (the maximum, four
// radix passes each for top-k and top-p, the kept mass and the draw). The draw is the CPU's uniform u = Uniform(seed,
// token_index) by inverse CDF over the kept tokens in id order (the CPU walks them by
// probability): the distribution is the same, the token for a given u generally is not, so a seed
// reproduces its tokens on the same backend.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

struct RowSampling {
  float temperature = 1.0f;  // <= 0: greedy
  int32_t top_k = 0;         // <= 0: off
  float top_p = 1.0f;
  float min_p = 0.0f;
  uint64_t seed = 0;
  int64_t token_index = 0;   // which output token of the request this draws
};

// Row r of logits [rows, vocab] keeps the logits of the tokens whose bits are set in mask
// mask_of_row[r] (masks [*, ceil(vocab / 32)] 32-bit words, token t in bit t % 32 of word t / 32)
// and gets -inf for the others; rows with mask_of_row[r] < 0 are left alone. The grammar masks of
// constrained requests, applied before SampleRows (device memory; launch-only).
Status MaskRows(uint16_t* logits, int rows, int vocab, const uint32_t* masks, const int32_t* mask_of_row,
                cudaStream_t stream);
// The same over float32 rows (AdjustLogitsRows' output, kernels/cuda/ops/logits_adjust.h).
Status MaskRows(float* logits, int rows, int vocab, const uint32_t* masks, const int32_t* mask_of_row,
                cudaStream_t stream);

// out[r] = a token drawn from row r of logits [rows, vocab] under params[r] (device memory).
// Launch-only: safe inside CUDA graph capture.
Status SampleRows(const uint16_t* logits, int rows, int vocab, const RowSampling* params, int32_t* out,
                  cudaStream_t stream);
// The same over float32 rows, which every step with adjusted rows draws from.
Status SampleRows(const float* logits, int rows, int vocab, const RowSampling* params, int32_t* out,
                  cudaStream_t stream);

}  // namespace vt::kernels::cuda
