// How the tensor-core prefill kernels (prefill_tc.cu, prefill_wgmma.cu) lay a call out: each warp
// takes 16 tokens of one query head, a CTA the query heads of one KV head times further 16-token
// tiles, and the grid the CTAs by tokens (last tokens first), query-head groups and key splits.
// Host and device code both use it.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/ops/prefill_attention.h"

namespace vt::kernels::cuda::prefill {

constexpr int kRows = 16;           // query tokens per warp: the MMA's M
constexpr int kWarpsPerCta = 4;     // (query head, 16-token tile) pairs per CTA
constexpr int kMaxHeadsPerCta = 4;  // query heads of one KV head that share a CTA's K/V tiles

struct SplitOutput {
  float* partial_out = nullptr;  // [tokens, num_q_heads, num_splits, D], normalised per split
  float* partial_lse = nullptr;  // [tokens, num_q_heads, num_splits], log2-sum-exp; -inf when empty
  int num_splits = 1;            // 1: the output is written directly
};

// A CTA's kWarpsPerCta warps: heads_per_cta query heads of one KV head times token_tiles
// tiles of 16 consecutive tokens. Every warp of a CTA reads the same K/V tiles.
struct CtaShape {
  int heads_per_cta = 1;
  int token_tiles = 1;
  int block_shift = -1;  // log2 of the KV block size when it is a power of two: a shift, not a division
};

// The largest power of two up to kMaxHeadsPerCta dividing the GQA group: the query heads one CTA
// serves; the rest of its kWarpsPerCta warps take further 16-token tiles of those heads (so every
// CTA has kWarpsPerCta warps, which the tile loads count on).
inline CtaShape ShapeFor(int group, int block_size) {
  CtaShape shape;
  for (int h = kMaxHeadsPerCta; h > 1; h /= 2) {
    if (group % h == 0) {
      shape.heads_per_cta = h;
      break;
    }
  }
  shape.token_tiles = kWarpsPerCta / shape.heads_per_cta;
  if (block_size > 0 && (block_size & (block_size - 1)) == 0) {
    shape.block_shift = 0;
    while ((1 << shape.block_shift) < block_size) ++shape.block_shift;
  }
  return shape;
}

// Grid: (token tiles of the CTA, last tokens first; query-head groups; key splits).
inline dim3 GridFor(const PrefillAttentionParams& p, const CtaShape& shape, const SplitOutput& split) {
  const int cta_tokens = kRows * shape.token_tiles;
  return dim3((p.tokens + cta_tokens - 1) / cta_tokens, p.num_q_heads / shape.heads_per_cta, split.num_splits);
}

}  // namespace vt::kernels::cuda::prefill
