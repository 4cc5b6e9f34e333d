#include "kernels/cuda/ops/prefill_tc.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

using attention::CpAsync16;
using attention::CpAsyncCommit;
using attention::CpAsyncWait;
using attention::kLog2e;
using attention::LdMatrixX4;
using attention::LdMatrixX4Trans;
using attention::MmaBf16;
using attention::PackBf16x2;

constexpr int kRows = 16;          // query tokens per warp: the MMA's M
constexpr int kWarpsPerCta = 4;    // (query head, 16-token tile) pairs per CTA
constexpr int kMaxHeadsPerCta = 4;  // query heads of one KV head that share a CTA's K/V tiles

// Keys per K/V tile: 64 at head_dim <= 128 (eight S n-tiles per warp and step, so the softmax,
// its shuffles and the barriers are paid once per 64 keys), 32 at 256 where registers hold the
// 256-wide O accumulator.
template <int D>
constexpr int kKeys = D <= 128 ? 64 : 32;
// Shared-memory row stride in bf16 elements: 8 past the row makes the (D + 8) / 2 words of a row
// 4 mod 32, so the 8 rows x 16 bytes an ldmatrix phase reads fall in 32 different banks.
template <int D>
constexpr int kRowStride = D + 8;
// 2 buffers x (K, V): 68 KiB at D = 128 and D = 256, three CTAs (12 warps) per SM.
template <int D>
constexpr size_t kSmemBytes = size_t(2) * 2 * kKeys<D> * kRowStride<D> * sizeof(uint16_t);

// At D = 128, 168 registers per thread let three CTAs (the shared memory's limit) share an SM.
template <int D>
constexpr int kMinCtasPerSm = D == 128 ? 3 : 1;

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

// Fragment roles (lane = 4 q + c): rows q and q + 8 of the warp's 16 tokens; S columns (keys)
// 2c, 2c + 1 of each 8-key n-tile; O columns 2c, 2c + 1 of each 8-wide n-tile of the head dimension.
// Grid: (token tiles of the CTA, last tokens first; query-head groups; key splits).
template <int D>
__global__ void __launch_bounds__(32 * kWarpsPerCta, kMinCtasPerSm<D>) PrefillTcKernel(PrefillAttentionParams p, CtaShape shape,
                                                                    SplitOutput split) {
  constexpr int kTileKeys = kKeys<D>;
  constexpr int kKeyTiles = kTileKeys / 8;  // S n-tiles per step
  constexpr int kDimTiles = D / 8;
  constexpr int kKSteps = D / 16;
  constexpr int kStride = kRowStride<D>;
  constexpr int kTile = kTileKeys * kStride;  // elements of one K or V tile
  constexpr int kPiecesPerRow = D / 8;        // 16-byte pieces of one key row
  extern __shared__ __align__(16) uint16_t smem[];  // [buffer][K, V][key][kStride]

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int cta_tokens = kRows * shape.token_tiles;
  // The CTAs of a prompt's last tokens have the most keys: start them first so the short ones fill
  // the tail of the wave.
  const int cta_first = (gridDim.x - 1 - blockIdx.x) * cta_tokens;
  const int cta_rows = min(cta_tokens, p.tokens - cta_first);
  const int head = blockIdx.y * shape.heads_per_cta + warp % shape.heads_per_cta;
  const int group = p.num_q_heads / p.num_kv_heads, kv_head = blockIdx.y * shape.heads_per_cta / group;
  const int split_index = blockIdx.z;
  const int warp_first = kRows * (warp / shape.heads_per_cta);  // within the CTA's rows
  const int first = cta_first + warp_first;
  const int rows_valid = min(kRows, cta_rows - warp_first);  // <= 0 for a warp past the last token
  const int row_lo = first + q, row_hi = first + q + 8;        // this lane's two rows
  const bool lo_valid = q < rows_valid, hi_valid = q + 8 < rows_valid;
  const int pos_lo = lo_valid ? p.positions[row_lo] : -1, pos_hi = hi_valid ? p.positions[row_hi] : -1;
  const uint16_t* q_lo = p.q + (static_cast<int64_t>(lo_valid ? row_lo : cta_first) * p.num_q_heads + head) * D;
  const uint16_t* q_hi = p.q + (static_cast<int64_t>(hi_valid ? row_hi : cta_first) * p.num_q_heads + head) * D;

  // The queries' A fragments, loaded once.
  uint32_t qa[kKSteps][4];
#pragma unroll
  for (int ks = 0; ks < kKSteps; ++ks) {
    const int d0 = ks * 16 + 2 * c;
    qa[ks][0] = Load2(q_lo + d0);
    qa[ks][1] = Load2(q_hi + d0);
    qa[ks][2] = Load2(q_lo + d0 + 8);
    qa[ks][3] = Load2(q_hi + d0 + 8);
  }

  float o[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  // Running maxima in raw score units (scale > 0 keeps their order) and sums of the bf16 weights.
  float m_lo = -INFINITY, m_hi = -INFINITY, l_lo = 0.f, l_hi = 0.f;
  const float scale_log2 = p.scale * kLog2e;  // exp(x) = exp2(x log2 e)
  // The tile loads' fixed parts: this thread's piece and first row, and element strides.
  constexpr int kRowsPerPass = 32 * kWarpsPerCta / kPiecesPerRow;
  const int piece = threadIdx.x % kPiecesPerRow, row0 = threadIdx.x / kPiecesPerRow;
  const int key_elems = p.num_kv_heads * D, page_elems = p.block_size * key_elems, in_row = kv_head * D + piece * 8;
  const uint16_t* k_lane_base = smem + ((lane >> 4) * 8 + (lane & 7)) * kStride + ((lane >> 3) & 1) * 8;
  const uint16_t* v_lane_base = smem + kTile + ((lane & 7) + ((lane >> 3) & 1) * 8) * kStride + (lane >> 4) * 8;

  // One pass per run of consecutive rows of one sequence; a row takes part in its own run's pass
  // only, and the pass reads keys up to the run's largest position (within this CTA's split). Runs
  // and key ranges are uniform across the CTA; a warp skips the tiles past its own rows' keys.
  // Tile boundaries are absolute key positions, so a row's result depends only on its own keys.
  int run_start = 0;
  while (run_start < cta_rows) {
    const int seq = p.seq_of_token[cta_first + run_start];
    int run_end = run_start + 1, last_key = p.positions[cta_first + run_start];
    while (run_end < cta_rows && p.seq_of_token[cta_first + run_end] == seq) {
      last_key = max(last_key, p.positions[cta_first + run_end]);
      ++run_end;
    }
    int k_begin = 0, k_end = last_key + 1;
    if (split.num_splits > 1) {
      k_begin = split_index * kPrefillSplitKeys;
      k_end = min(k_end, k_begin + kPrefillSplitKeys);
    }
    const int32_t* table = p.block_tables + static_cast<int64_t>(seq) * p.max_blocks_per_seq;
    const bool in_lo = lo_valid && warp_first + q >= run_start && warp_first + q < run_end;
    const bool in_hi = hi_valid && warp_first + q + 8 >= run_start && warp_first + q + 8 < run_end;
    // The warp's last key of this run (-1: no row of the warp is in it), and the first position of
    // its rows when all 16 are in it (-1 otherwise): tiles up to that key need no mask.
    const int warp_last = static_cast<int>(WarpMax(float(max(in_lo ? pos_lo : -1, in_hi ? pos_hi : -1))));
    const int warp_unmasked =
        static_cast<int>(WarpMin(in_lo && in_hi ? float(min(pos_lo, pos_hi)) : -1.f));

    // Keys kb .. kb + kTileKeys - 1 of K and V into buffer `buffer` (keys past the range repeat its
    // last key: masked below). A thread keeps one 16-byte piece of a row and walks every
    // kRowsPerPass-th row: one page lookup per row for both K and V, 64-bit math once per row.
    auto load_tile = [&](int buffer, int kb) {
      uint16_t* dst = smem + buffer * 2 * kTile + row0 * kStride + piece * 8;
#pragma unroll
      for (int j = 0; j < kTileKeys / kRowsPerPass; ++j) {
        const int key = min(kb + row0 + j * kRowsPerPass, k_end - 1);
        const int block = shape.block_shift >= 0 ? key >> shape.block_shift : key / p.block_size;
        const int64_t at = static_cast<int64_t>(table[block]) * page_elems + (key - block * p.block_size) * key_elems +
                           in_row;
        CpAsync16(dst + j * kRowsPerPass * kStride, p.k_cache + at, true);
        CpAsync16(dst + kTile + j * kRowsPerPass * kStride, p.v_cache + at, true);
      }
      CpAsyncCommit();
    };

    if (k_begin < k_end) load_tile(0, k_begin);
    int buffer = 0;
    for (int kb = k_begin; kb < k_end; kb += kTileKeys, buffer ^= 1) {
      if (kb + kTileKeys < k_end) {
        load_tile(buffer ^ 1, kb + kTileKeys);
        CpAsyncWait<1>();
      } else {
        CpAsyncWait<0>();
      }
      __syncthreads();
      if (kb <= warp_last) {
        // S = Q . K^T. One ldmatrix per k-step and pair of n-tiles: matrix i = lane / 8 is keys
        // 8 (i / 2) .. + 7 of the pair at dimensions 16 ks + 8 (i % 2) .. + 7.
        const uint16_t* k_lane = k_lane_base + buffer * 2 * kTile;
        float s[kKeyTiles][4];
#pragma unroll
        for (int nt = 0; nt < kKeyTiles; ++nt) s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
#pragma unroll
        for (int ks = 0; ks < kKSteps; ++ks) {
#pragma unroll
          for (int np = 0; np < kKeyTiles / 2; ++np) {
            uint32_t b[4];
            LdMatrixX4(b[0], b[1], b[2], b[3], k_lane + np * 16 * kStride + ks * 16);
            MmaBf16(s[2 * np], qa[ks][0], qa[ks][1], qa[ks][2], qa[ks][3], b[0], b[1]);
            MmaBf16(s[2 * np + 1], qa[ks][0], qa[ks][1], qa[ks][2], qa[ks][3], b[2], b[3]);
          }
        }
        // Causal, range and run masks where the tile needs them, then the online softmax of rows
        // q (lo) and q + 8 (hi).
        if (kb + kTileKeys > k_end || kb + kTileKeys - 1 > warp_unmasked) {
#pragma unroll
          for (int nt = 0; nt < kKeyTiles; ++nt) {
#pragma unroll
            for (int j = 0; j < 2; ++j) {
              const int key = kb + nt * 8 + 2 * c + j;
              const bool in_range = key < k_end;
              if (!(in_range && in_lo && key <= pos_lo)) s[nt][j] = -INFINITY;
              if (!(in_range && in_hi && key <= pos_hi)) s[nt][2 + j] = -INFINITY;
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
        const float new_lo = fmaxf(m_lo, block_lo), new_hi = fmaxf(m_hi, block_hi);
        // A row with nothing unmasked yet keeps its state (-inf - -inf would be NaN).
        const float corr_lo = new_lo == -INFINITY ? 1.f : FastExp2((m_lo - new_lo) * scale_log2);
        const float corr_hi = new_hi == -INFINITY ? 1.f : FastExp2((m_hi - new_hi) * scale_log2);
        const float shift_lo = new_lo == -INFINITY ? 0.f : new_lo * scale_log2;
        const float shift_hi = new_hi == -INFINITY ? 0.f : new_hi * scale_log2;
        // P goes into P.V in bf16 (FlashAttention's choice: one MMA per tile, not a hi + lo pair),
        // the row sums in fp32: each weight's rounding moves the output by at most 2^-9 of the
        // weighted mean of |v|.
        uint32_t pa[kKeyTiles][2];
        float sum_lo = 0.f, sum_hi = 0.f;
#pragma unroll
        for (int nt = 0; nt < kKeyTiles; ++nt) {
          const float p0 = FastExp2(fmaf(s[nt][0], scale_log2, -shift_lo));
          const float p1 = FastExp2(fmaf(s[nt][1], scale_log2, -shift_lo));
          const float p2 = FastExp2(fmaf(s[nt][2], scale_log2, -shift_hi));
          const float p3 = FastExp2(fmaf(s[nt][3], scale_log2, -shift_hi));
          pa[nt][0] = PackBf16x2(p0, p1);
          pa[nt][1] = PackBf16x2(p2, p3);
          sum_lo += p0 + p1;
          sum_hi += p2 + p3;
        }
#pragma unroll
        for (int off = 1; off < 4; off *= 2) {
          sum_lo += __shfl_xor_sync(0xffffffffu, sum_lo, off);
          sum_hi += __shfl_xor_sync(0xffffffffu, sum_hi, off);
        }
        l_lo = l_lo * corr_lo + sum_lo;
        l_hi = l_hi * corr_hi + sum_hi;
        m_lo = new_lo;
        m_hi = new_hi;
        // Past a row's first tiles its maximum seldom moves: skip the rescale when no row of the warp
        // needs it (multiplying by 1 would change nothing).
        if (__any_sync(0xffffffffu, corr_lo != 1.f || corr_hi != 1.f)) {
#pragma unroll
          for (int n = 0; n < kDimTiles; ++n) {
            o[n][0] *= corr_lo;
            o[n][1] *= corr_lo;
            o[n][2] *= corr_hi;
            o[n][3] *= corr_hi;
          }
        }

        // O += P . V, 16 keys per k-step. S's accumulator layout is P's A-fragment layout. One
        // transposed ldmatrix per two n-tiles of O: matrix i = lane / 8 is keys 8 (i % 2) .. + 7 of
        // the step at dimensions 8 (n + i / 2) .. + 7, i.e. the b0, b1 of n-tiles n and n + 1.
        const uint16_t* v_lane = v_lane_base + buffer * 2 * kTile;
#pragma unroll
        for (int kk = 0; kk < kKeyTiles / 2; ++kk) {
#pragma unroll
          for (int n = 0; n < kDimTiles; n += 2) {
            uint32_t b[4];
            LdMatrixX4Trans(b[0], b[1], b[2], b[3], v_lane + kk * 16 * kStride + n * 8);
            MmaBf16(o[n], pa[2 * kk][0], pa[2 * kk][1], pa[2 * kk + 1][0], pa[2 * kk + 1][1], b[0], b[1]);
            MmaBf16(o[n + 1], pa[2 * kk][0], pa[2 * kk][1], pa[2 * kk + 1][0], pa[2 * kk + 1][1], b[2], b[3]);
          }
        }
      }
      __syncthreads();  // the next iteration refills the other buffer, and the one after this one
    }
    run_start = run_end;
  }

  const float inv_lo = l_lo > 0.f ? 1.f / l_lo : 0.f, inv_hi = l_hi > 0.f ? 1.f / l_hi : 0.f;
  if (split.num_splits == 1) {
#pragma unroll
    for (int n = 0; n < kDimTiles; ++n) {
      const int d = n * 8 + 2 * c;
      if (lo_valid) {
        *reinterpret_cast<uint32_t*>(p.out + (static_cast<int64_t>(row_lo) * p.num_q_heads + head) * D + d) =
            PackBf16x2(o[n][0] * inv_lo, o[n][1] * inv_lo);
      }
      if (hi_valid) {
        *reinterpret_cast<uint32_t*>(p.out + (static_cast<int64_t>(row_hi) * p.num_q_heads + head) * D + d) =
            PackBf16x2(o[n][2] * inv_hi, o[n][3] * inv_hi);
      }
    }
    return;
  }
  const int64_t slot_lo = (static_cast<int64_t>(row_lo) * p.num_q_heads + head) * split.num_splits + split_index;
  const int64_t slot_hi = (static_cast<int64_t>(row_hi) * p.num_q_heads + head) * split.num_splits + split_index;
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n) {
    const int d = n * 8 + 2 * c;
    if (lo_valid) {
      *reinterpret_cast<float2*>(split.partial_out + slot_lo * D + d) = make_float2(o[n][0] * inv_lo, o[n][1] * inv_lo);
    }
    if (hi_valid) {
      *reinterpret_cast<float2*>(split.partial_out + slot_hi * D + d) = make_float2(o[n][2] * inv_hi, o[n][3] * inv_hi);
    }
  }
  const float lse_lo = l_lo > 0.f ? m_lo * scale_log2 + log2f(l_lo) : -INFINITY;
  const float lse_hi = l_hi > 0.f ? m_hi * scale_log2 + log2f(l_hi) : -INFINITY;
  if (c == 0 && lo_valid) split.partial_lse[slot_lo] = lse_lo;
  if (c == 0 && hi_valid) split.partial_lse[slot_hi] = lse_hi;
}

int SplitsFor(int max_context) { return (max_context + kPrefillSplitKeys - 1) / kPrefillSplitKeys; }

size_t SplitBytes(int tokens, int num_q_heads, int head_dim, int splits) {
  const size_t slots = size_t(tokens) * num_q_heads * splits;
  return AlignToDevice(slots * head_dim * sizeof(float)) + AlignToDevice(slots * sizeof(float));
}

// The largest power of two up to kMaxHeadsPerCta dividing the GQA group: the query heads one CTA
// serves; the rest of its kWarpsPerCta warps take further 16-token tiles of those heads (so every
// CTA has kWarpsPerCta warps, which the tile loads count on).
CtaShape ShapeFor(int group, int block_size) {
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

template <int D>
cudaError_t Launch(const PrefillAttentionParams& p, const SplitOutput& split, cudaStream_t stream) {
  const CtaShape shape = ShapeFor(p.num_q_heads / p.num_kv_heads, p.block_size);
  const int cta_tokens = kRows * shape.token_tiles;
  const dim3 grid((p.tokens + cta_tokens - 1) / cta_tokens, p.num_q_heads / shape.heads_per_cta, split.num_splits);
  const dim3 block(32 * kWarpsPerCta);
  // Past the 48 KiB default: set per launch (cheap) so every device of the process has it.
  cudaError_t err = cudaFuncSetAttribute(PrefillTcKernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kSmemBytes<D>));
  if (err != cudaSuccess) return err;
  PrefillTcKernel<D><<<grid, block, kSmemBytes<D>, stream>>>(p, shape, split);
  return cudaGetLastError();
}

}  // namespace

size_t PrefillTcWorkspaceBytes(const PrefillAttentionParams& p) {
  const int splits = SplitsFor(p.max_context);
  if (splits <= 1 || p.tokens <= 0) return 0;
  return SplitBytes(std::min(p.tokens, kPrefillSplitMaxTokens), p.num_q_heads, p.head_dim, splits);
}

Status RunPrefillAttentionTensorCore(const PrefillAttentionParams& p, void* workspace, size_t workspace_bytes,
                                     cudaStream_t stream) {
  if (p.tokens == 0) return Status::Ok();
  if (p.num_kv_heads <= 0 || p.num_q_heads % p.num_kv_heads != 0) {
    return InvalidArgument("tensor-core prefill: query heads must be a multiple of KV heads");
  }
  SplitOutput split;
  const int splits = SplitsFor(p.max_context);
  if (p.tokens <= kPrefillSplitMaxTokens && splits > 1 && workspace != nullptr &&
      SplitBytes(p.tokens, p.num_q_heads, p.head_dim, splits) <= workspace_bytes) {
    const size_t slots = size_t(p.tokens) * p.num_q_heads * splits;
    split.num_splits = splits;
    split.partial_out = static_cast<float*>(workspace);
    split.partial_lse = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) +
                                                 AlignToDevice(slots * p.head_dim * sizeof(float)));
  }
  cudaError_t err = cudaSuccess;
  switch (p.head_dim) {
    case 64: err = Launch<64>(p, split, stream); break;
    case 128: err = Launch<128>(p, split, stream); break;
    case 256: err = Launch<256>(p, split, stream); break;
    default: return Unimplemented("tensor-core prefill: head_dim " + std::to_string(p.head_dim));
  }
  if (err == cudaSuccess && split.num_splits > 1) {
    PagedDecodeParams merge;
    merge.out = p.out;
    merge.batch = p.tokens;
    merge.num_q_heads = p.num_q_heads;
    merge.num_kv_heads = p.num_kv_heads;
    merge.head_dim = p.head_dim;
    merge.num_chunks = split.num_splits;
    merge.partial_out = split.partial_out;
    merge.partial_lse = split.partial_lse;
    err = attention::LaunchMergeChunks(merge, stream);
  }
  if (err != cudaSuccess) return Internal(std::string("tensor-core prefill: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
