// The device code the two tensor-core prefill kernels share (their layout of a call is
// prefill_tc_shape.h): a warp's rows and queries, the runs of one sequence, the per-row online
// softmax of one K/V tile and the epilogue. prefill_tc.cu runs Q.K^T and P.V as warp MMAs (mma.sync, any sm_80+ GPU);
// prefill_wgmma.cu as Hopper warpgroup MMAs. Both keep S, P and O in the m16n8 fragment layout
// (lane = 4 q + c: rows q and q + 8 of the warp's 16 tokens; columns 2c, 2c + 1 of each 8-wide
// n-tile), which is also the layout a warpgroup MMA gives and takes per warp, so the code below
// serves both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/ops/prefill_attention.h"
#include "kernels/cuda/ops/prefill_tc_shape.h"

namespace vt::kernels::cuda::prefill {

__device__ __forceinline__ uint32_t Load2(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }

// 2^x by the SFU alone (exp2f adds a denormal range fix the softmax does not need); 2^-inf = 0.
__device__ __forceinline__ float FastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float WarpMax(float v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

__device__ __forceinline__ float WarpMin(float v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

// One lane's two rows (lo = q, hi = q + 8 of the warp's 16 tokens) in the current pass: whether
// each takes part, its position, and its running maximum (raw score units: scale > 0 keeps their
// order) and sum of the bf16 weights.
struct LaneRows {
  bool in_lo = false, in_hi = false;
  int pos_lo = -1, pos_hi = -1;
  float m_lo = -INFINITY, m_hi = -INFINITY, l_lo = 0.f, l_hi = 0.f;
};

// Where a warp's 16 rows sit: the CTA's tokens (grid x, last tokens first: the CTAs with the most
// keys start first so the short ones fill the tail of the wave), the warp's query head and token
// tile within them (warp % heads_per_cta, warp / heads_per_cta), and this lane's two rows.
struct WarpTile {
  int cta_first = 0, cta_rows = 0;  // the CTA's first token and its token count
  int head = 0, kv_head = 0;
  int warp_first = 0;  // the warp's first row within the CTA's
  int row_lo = 0, row_hi = 0;
  bool lo_valid = false, hi_valid = false;  // rows past the call's tokens take no part
};

__device__ __forceinline__ WarpTile LocateWarp(const PrefillAttentionParams& p, const CtaShape& shape,
                                               int warp, int q) {
  WarpTile t;
  const int cta_tokens = kRows * shape.token_tiles;
  t.cta_first = (gridDim.x - 1 - blockIdx.x) * cta_tokens;
  t.cta_rows = min(cta_tokens, p.tokens - t.cta_first);
  t.head = blockIdx.y * shape.heads_per_cta + warp % shape.heads_per_cta;
  t.kv_head = blockIdx.y * shape.heads_per_cta / (p.num_q_heads / p.num_kv_heads);
  t.warp_first = kRows * (warp / shape.heads_per_cta);
  const int rows_valid = min(kRows, t.cta_rows - t.warp_first);  // <= 0 for a warp past the last token
  t.row_lo = t.cta_first + t.warp_first + q;
  t.row_hi = t.row_lo + 8;
  t.lo_valid = q < rows_valid;
  t.hi_valid = q + 8 < rows_valid;
  return t;
}

// The lane's rows before any pass: their positions, empty running maxima and sums.
__device__ __forceinline__ LaneRows RowsAt(const PrefillAttentionParams& p, const WarpTile& t) {
  LaneRows r;
  r.pos_lo = t.lo_valid ? p.positions[t.row_lo] : -1;
  r.pos_hi = t.hi_valid ? p.positions[t.row_hi] : -1;
  return r;
}

// The lane's query A fragments (m16n8k16 layout) for every k16 step of the head dimension.
template <int D>
__device__ __forceinline__ void LoadQueryFragments(const PrefillAttentionParams& p, const WarpTile& t, int c,
                                                   uint32_t (&qa)[D / 16][4]) {
  const uint16_t* q_lo =
      p.q + (static_cast<int64_t>(t.lo_valid ? t.row_lo : t.cta_first) * p.num_q_heads + t.head) * D;
  const uint16_t* q_hi =
      p.q + (static_cast<int64_t>(t.hi_valid ? t.row_hi : t.cta_first) * p.num_q_heads + t.head) * D;
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    const int d0 = ks * 16 + 2 * c;
    qa[ks][0] = Load2(q_lo + d0);
    qa[ks][1] = Load2(q_hi + d0);
    qa[ks][2] = Load2(q_lo + d0 + 8);
    qa[ks][3] = Load2(q_hi + d0 + 8);
  }
}

// One pass of the CTA: a run of consecutive rows of one sequence and the keys it reads (up to the
// run's largest position, within this CTA's split). Runs and key ranges are uniform across the CTA.
struct Run {
  int seq = 0, end = 0;        // the sequence and the CTA row past the run
  int k_begin = 0, k_end = 0;  // keys [k_begin, k_end)
};

__device__ __forceinline__ Run FindRun(const PrefillAttentionParams& p, const WarpTile& t,
                                       const SplitOutput& split, int start, int split_index, int split_keys) {
  Run run;
  run.seq = p.seq_of_token[t.cta_first + start];
  run.end = start + 1;
  int last_key = p.positions[t.cta_first + start];
  while (run.end < t.cta_rows && p.seq_of_token[t.cta_first + run.end] == run.seq) {
    last_key = max(last_key, p.positions[t.cta_first + run.end]);
    ++run.end;
  }
  run.k_end = last_key + 1;
  if (split.num_splits > 1) {
    run.k_begin = split_index * split_keys;
    run.k_end = min(run.k_end, run.k_begin + split_keys);
  }
  return run;
}

// Where key `key` of a sequence (its block-table row `table`) starts in the paged K or V cache, plus
// `in_row` elements into that key's row of all KV heads (`key_elems` per key, `page_elems` per page:
// the caller's loop invariants).
__device__ __forceinline__ int64_t KeyOffset(const PrefillAttentionParams& p, const CtaShape& shape,
                                             const int32_t* table, int key, int key_elems, int page_elems,
                                             int in_row) {
  const int block = shape.block_shift >= 0 ? key >> shape.block_shift : key / p.block_size;
  return static_cast<int64_t>(table[block]) * page_elems + (key - block * p.block_size) * key_elems + in_row;
}

// Whether the lane's rows belong to the run starting at CTA row `start`.
__device__ __forceinline__ void EnterRun(LaneRows& r, const WarpTile& t, int q, int start, int end) {
  r.in_lo = t.lo_valid && t.warp_first + q >= start && t.warp_first + q < end;
  r.in_hi = t.hi_valid && t.warp_first + q + 8 >= start && t.warp_first + q + 8 < end;
}

// The first key position of the warp's rows when all 16 are in the run (-1 otherwise): tiles up to
// that key need no mask.
__device__ __forceinline__ int WarpUnmaskedUpTo(const LaneRows& r) {
  return static_cast<int>(WarpMin(r.in_lo && r.in_hi ? float(min(r.pos_lo, r.pos_hi)) : -1.f));
}

// The online softmax of one tile of S (keys kb .. kb + 8 kKeyTiles - 1): the causal, range and run
// masks where `masked`, the running maxima and sums, and P as bf16 A fragments. Returns through
// corr_lo / corr_hi the factors the rows' O accumulators must be scaled by.
template <int kKeyTiles>
__device__ __forceinline__ void SoftmaxTile(float (&s)[kKeyTiles][4], uint32_t (&pa)[kKeyTiles][2],
                                            LaneRows& r, bool masked, int kb, int k_end, int c,
                                            float scale_log2, float& corr_lo, float& corr_hi) {
  if (masked) {
#pragma unroll
    for (int nt = 0; nt < kKeyTiles; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int key = kb + nt * 8 + 2 * c + j;
        const bool in_range = key < k_end;
        if (!(in_range && r.in_lo && key <= r.pos_lo)) s[nt][j] = -INFINITY;
        if (!(in_range && r.in_hi && key <= r.pos_hi)) s[nt][2 + j] = -INFINITY;
      }
    }
  }
  float block_lo = -INFINITY, block_hi = -INFINITY;
#pragma unroll
  for (int nt = 0; nt < kKeyTiles; ++nt) {
    block_lo = fmaxf(block_lo, fmaxf(s[nt][0], s[nt][1]));
    block_hi = fmaxf(block_hi, fmaxf(s[nt][2], s[nt][3]));
  }
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {  // the four lanes of a row
    block_lo = fmaxf(block_lo, __shfl_xor_sync(0xffffffffu, block_lo, off));
    block_hi = fmaxf(block_hi, __shfl_xor_sync(0xffffffffu, block_hi, off));
  }
  const float new_lo = fmaxf(r.m_lo, block_lo), new_hi = fmaxf(r.m_hi, block_hi);
  // A row with nothing unmasked yet keeps its state (-inf - -inf would be NaN).
  corr_lo = new_lo == -INFINITY ? 1.f : FastExp2((r.m_lo - new_lo) * scale_log2);
  corr_hi = new_hi == -INFINITY ? 1.f : FastExp2((r.m_hi - new_hi) * scale_log2);
  const float shift_lo = new_lo == -INFINITY ? 0.f : new_lo * scale_log2;
  const float shift_hi = new_hi == -INFINITY ? 0.f : new_hi * scale_log2;
  // P goes into P.V in bf16 (FlashAttention's choice: one MMA per tile, not a hi + lo pair), the row
  // sums in fp32: each weight's rounding moves the output by at most 2^-9 of the weighted mean of |v|.
  float sum_lo = 0.f, sum_hi = 0.f;
#pragma unroll
  for (int nt = 0; nt < kKeyTiles; ++nt) {
    const float p0 = FastExp2(fmaf(s[nt][0], scale_log2, -shift_lo));
    const float p1 = FastExp2(fmaf(s[nt][1], scale_log2, -shift_lo));
    const float p2 = FastExp2(fmaf(s[nt][2], scale_log2, -shift_hi));
    const float p3 = FastExp2(fmaf(s[nt][3], scale_log2, -shift_hi));
    pa[nt][0] = attention::PackBf16x2(p0, p1);
    pa[nt][1] = attention::PackBf16x2(p2, p3);
    sum_lo += p0 + p1;
    sum_hi += p2 + p3;
  }
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
    sum_lo += __shfl_xor_sync(0xffffffffu, sum_lo, off);
    sum_hi += __shfl_xor_sync(0xffffffffu, sum_hi, off);
  }
  r.l_lo = r.l_lo * corr_lo + sum_lo;
  r.l_hi = r.l_hi * corr_hi + sum_hi;
  r.m_lo = new_lo;
  r.m_hi = new_hi;
}

// O's rows scaled by the softmax's corrections. Past a row's first tiles its maximum seldom moves:
// skipped when no row of the warp needs it (multiplying by 1 would change nothing).
template <int kDimTiles>
__device__ __forceinline__ void RescaleRows(float (&o)[kDimTiles][4], float corr_lo, float corr_hi) {
  if (__any_sync(0xffffffffu, corr_lo != 1.f || corr_hi != 1.f)) {
#pragma unroll
    for (int n = 0; n < kDimTiles; ++n) {
      o[n][0] *= corr_lo;
      o[n][1] *= corr_lo;
      o[n][2] *= corr_hi;
      o[n][3] *= corr_hi;
    }
  }
}

// The lane's rows of O, normalised: into p.out (bf16) unsplit, else into the split's partials with
// their log2-sum-exp. A row past the call's tokens (`*_valid` false) writes nothing.
template <int D>
__device__ __forceinline__ void StoreRows(const PrefillAttentionParams& p, const SplitOutput& split,
                                          const float (&o)[D / 8][4], const LaneRows& r, const WarpTile& t,
                                          int split_index, int c, float scale_log2) {
  const int row_lo = t.row_lo, row_hi = t.row_hi, head = t.head;
  const bool lo_valid = t.lo_valid, hi_valid = t.hi_valid;
  const float inv_lo = r.l_lo > 0.f ? 1.f / r.l_lo : 0.f, inv_hi = r.l_hi > 0.f ? 1.f / r.l_hi : 0.f;
  if (split.num_splits == 1) {
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      const int d = n * 8 + 2 * c;
      if (lo_valid) {
        *reinterpret_cast<uint32_t*>(p.out + (static_cast<int64_t>(row_lo) * p.num_q_heads + head) * D + d) =
            attention::PackBf16x2(o[n][0] * inv_lo, o[n][1] * inv_lo);
      }
      if (hi_valid) {
        *reinterpret_cast<uint32_t*>(p.out + (static_cast<int64_t>(row_hi) * p.num_q_heads + head) * D + d) =
            attention::PackBf16x2(o[n][2] * inv_hi, o[n][3] * inv_hi);
      }
    }
    return;
  }
  const int64_t slot_lo =
      (static_cast<int64_t>(row_lo) * p.num_q_heads + head) * split.num_splits + split_index;
  const int64_t slot_hi =
      (static_cast<int64_t>(row_hi) * p.num_q_heads + head) * split.num_splits + split_index;
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int d = n * 8 + 2 * c;
    if (lo_valid) {
      *reinterpret_cast<float2*>(split.partial_out + slot_lo * D + d) =
          make_float2(o[n][0] * inv_lo, o[n][1] * inv_lo);
    }
    if (hi_valid) {
      *reinterpret_cast<float2*>(split.partial_out + slot_hi * D + d) =
          make_float2(o[n][2] * inv_hi, o[n][3] * inv_hi);
    }
  }
  const float lse_lo = r.l_lo > 0.f ? r.m_lo * scale_log2 + log2f(r.l_lo) : -INFINITY;
  const float lse_hi = r.l_hi > 0.f ? r.m_hi * scale_log2 + log2f(r.l_hi) : -INFINITY;
  if (c == 0 && lo_valid) split.partial_lse[slot_lo] = lse_lo;
  if (c == 0 && hi_valid) split.partial_lse[slot_hi] = lse_hi;
}

}  // namespace vt::kernels::cuda::prefill
