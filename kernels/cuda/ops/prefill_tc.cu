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
using attention::SplitBf16x2;

constexpr int kRows = 16;     // query tokens per warp: the MMA's M
constexpr int kKeys = 16;     // keys per tile: two n-tiles of S, one k-step of P.V
constexpr int kMaxWarps = 4;  // query heads of one KV head per CTA

// Shared-memory row stride in bf16 elements: 8 past the row makes the (D + 8) / 2 words of a row
// 4 mod 32, so the 8 rows x 4 columns a fragment load touches fall in 32 different banks.
template <int D>
constexpr int kRowStride = D + 8;
// 2 buffers x (K, V): 16 KiB at D = 128, small enough for ~14 CTAs per SM. Stages of 64 keys
// (4x the bytes in flight) measured slower on an H200: the loop is bound by occupancy, not by
// the latency of one tile's loads (docs/BENCHMARKS.md, issue #16).
template <int D>
constexpr size_t kSmemBytes = size_t(2) * 2 * kKeys * kRowStride<D> * sizeof(uint16_t);

struct SplitOutput {
  float* partial_out = nullptr;  // [tokens, num_q_heads, num_splits, D], normalised per split
  float* partial_lse = nullptr;  // [tokens, num_q_heads, num_splits], log2-sum-exp; -inf when empty
  int num_splits = 1;            // 1: the output is written directly
};

__device__ __forceinline__ uint32_t Load2(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }

// Fragment roles (lane = 4 q + c): rows q and q + 8 of the tile; S columns (keys) 2c, 2c + 1 of
// each 8-key n-tile; O columns 2c, 2c + 1 of each 8-wide n-tile of the head dimension.
// Grid: (16-token tiles, query-head groups of blockDim.x / 32 heads, key splits).
template <int D>
__global__ void __launch_bounds__(32 * kMaxWarps) PrefillTcKernel(PrefillAttentionParams p, SplitOutput split) {
  constexpr int kDimTiles = D / 8;
  constexpr int kKSteps = D / 16;
  constexpr int kStride = kRowStride<D>;
  constexpr int kTile = kKeys * kStride;       // elements of one K or V tile
  constexpr int kPiecesPerRow = D / 8;         // 16-byte pieces of one key row
  extern __shared__ __align__(16) uint16_t smem[];  // [buffer][K, V][key][kStride]

  const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int first = blockIdx.x * kRows, head = blockIdx.y * warps + warp;
  const int group = p.num_q_heads / p.num_kv_heads, kv_head = blockIdx.y * warps / group;
  const int split_index = blockIdx.z;
  const int rows_valid = min(kRows, p.tokens - first);
  const int row_lo = first + q, row_hi = first + q + 8;  // this lane's two rows
  const bool lo_valid = q < rows_valid, hi_valid = q + 8 < rows_valid;
  const int pos_lo = lo_valid ? p.positions[row_lo] : -1, pos_hi = hi_valid ? p.positions[row_hi] : -1;
  const uint16_t* q_lo = p.q + (static_cast<int64_t>(lo_valid ? row_lo : first) * p.num_q_heads + head) * D;
  const uint16_t* q_hi = p.q + (static_cast<int64_t>(hi_valid ? row_hi : first) * p.num_q_heads + head) * D;

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
  float m_lo = -INFINITY, m_hi = -INFINITY, l_lo = 0.f, l_hi = 0.f;
  const float scale_log2 = p.scale * kLog2e;  // exp(x) = exp2(x log2 e)

  // One pass per run of consecutive rows of one sequence; a row takes part in its own run's pass
  // only, and the pass reads keys up to the run's largest position (within this CTA's split).
  // Every warp of the CTA serves the same rows, so runs and key ranges are uniform across it.
  int run_start = 0;
  while (run_start < rows_valid) {
    const int seq = p.seq_of_token[first + run_start];
    int run_end = run_start + 1, last_key = p.positions[first + run_start];
    while (run_end < rows_valid && p.seq_of_token[first + run_end] == seq) {
      last_key = max(last_key, p.positions[first + run_end]);
      ++run_end;
    }
    int k_begin = 0, k_end = last_key + 1;
    if (split.num_splits > 1) {
      k_begin = split_index * kPrefillSplitKeys;
      k_end = min(k_end, k_begin + kPrefillSplitKeys);
    }
    const int32_t* table = p.block_tables + static_cast<int64_t>(seq) * p.max_blocks_per_seq;
    const bool in_lo = lo_valid && q >= run_start && q < run_end;
    const bool in_hi = hi_valid && q + 8 >= run_start && q + 8 < run_end;

    // Keys kb .. kb + 15 of K and V into buffer `buffer` (keys past the range repeat its last key:
    // masked below).
    auto load_tile = [&](int buffer, int kb) {
      uint16_t* tile = smem + buffer * 2 * kTile;
      for (int i = threadIdx.x; i < 2 * kKeys * kPiecesPerRow; i += blockDim.x) {
        const bool is_v = i >= kKeys * kPiecesPerRow;
        const int j = is_v ? i - kKeys * kPiecesPerRow : i;
        const int r = j / kPiecesPerRow, piece = j % kPiecesPerRow;
        const int key = min(kb + r, k_end - 1);
        const int64_t page = table[key / p.block_size];
        const uint16_t* src = (is_v ? p.v_cache : p.k_cache) +
                              ((page * p.block_size + key % p.block_size) * p.num_kv_heads + kv_head) * D + piece * 8;
        CpAsync16(tile + (is_v ? kTile : 0) + r * kStride + piece * 8, src, true);
      }
      CpAsyncCommit();
    };

    if (k_begin < k_end) load_tile(0, k_begin);
    int buffer = 0;
    for (int kb = k_begin; kb < k_end; kb += kKeys, buffer ^= 1) {
      if (kb + kKeys < k_end) {
        load_tile(buffer ^ 1, kb + kKeys);
        CpAsyncWait<1>();
      } else {
        CpAsyncWait<0>();
      }
      __syncthreads();
      const uint16_t* k_tile = smem + buffer * 2 * kTile;
      const uint16_t* v_tile = k_tile + kTile;

      // S = Q . K^T for keys kb .. kb + 15. One ldmatrix per k-step: matrix i = lane / 8 is keys
      // 8 (i / 2) .. + 7 at dimensions 16 ks + 8 (i % 2) .. + 7, i.e. the b0, b1 of n-tiles 0 and 1.
      float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      const uint16_t* k_lane = k_tile + ((lane >> 4) * 8 + (lane & 7)) * kStride + ((lane >> 3) & 1) * 8;
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        uint32_t b[4];
        LdMatrixX4(b[0], b[1], b[2], b[3], k_lane + ks * 16);
        MmaBf16(s[0], qa[ks][0], qa[ks][1], qa[ks][2], qa[ks][3], b[0], b[1]);
        MmaBf16(s[1], qa[ks][0], qa[ks][1], qa[ks][2], qa[ks][3], b[2], b[3]);
      }
      // Causal, range and run masks, then the online softmax of rows q (lo) and q + 8 (hi).
      float block_lo = -INFINITY, block_hi = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int key = kb + nt * 8 + 2 * c + j;
          const bool in_range = key < k_end;
          s[nt][j] = (in_range && in_lo && key <= pos_lo) ? s[nt][j] * scale_log2 : -INFINITY;
          s[nt][2 + j] = (in_range && in_hi && key <= pos_hi) ? s[nt][2 + j] * scale_log2 : -INFINITY;
          block_lo = fmaxf(block_lo, s[nt][j]);
          block_hi = fmaxf(block_hi, s[nt][2 + j]);
        }
      }
#pragma unroll
      for (int off = 1; off < 4; off *= 2) {  // the four lanes of a row
        block_lo = fmaxf(block_lo, __shfl_xor_sync(0xffffffffu, block_lo, off));
        block_hi = fmaxf(block_hi, __shfl_xor_sync(0xffffffffu, block_hi, off));
      }
      const float new_lo = fmaxf(m_lo, block_lo), new_hi = fmaxf(m_hi, block_hi);
      // A row with nothing unmasked yet keeps its state (-inf - -inf would be NaN).
      const float corr_lo = new_lo == -INFINITY ? 1.f : exp2f(m_lo - new_lo);
      const float corr_hi = new_hi == -INFINITY ? 1.f : exp2f(m_hi - new_hi);
      float sum_lo = 0.f, sum_hi = 0.f;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          s[nt][j] = new_lo == -INFINITY ? 0.f : exp2f(s[nt][j] - new_lo);
          s[nt][2 + j] = new_hi == -INFINITY ? 0.f : exp2f(s[nt][2 + j] - new_hi);
          sum_lo += s[nt][j];
          sum_hi += s[nt][2 + j];
        }
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

      // O += P . V. S's accumulator layout is P's A-fragment layout; P goes in as bf16 hi + lo
      // terms (as in the GQA decode arm) so that rounding P costs ~2^-17, not ~2^-9.
      uint32_t hi[4], lo[4];
      SplitBf16x2(s[0][0], s[0][1], hi[0], lo[0]);  // row q,     keys 2c, 2c+1
      SplitBf16x2(s[0][2], s[0][3], hi[1], lo[1]);  // row q + 8, keys 2c, 2c+1
      SplitBf16x2(s[1][0], s[1][1], hi[2], lo[2]);  // row q,     keys 8+2c, 8+2c+1
      SplitBf16x2(s[1][2], s[1][3], hi[3], lo[3]);  // row q + 8, keys 8+2c, 8+2c+1
      // One transposed ldmatrix per two n-tiles of O: matrix i = lane / 8 is keys 8 (i % 2) .. + 7 at
      // dimensions 8 (n + i / 2) .. + 7, i.e. the b0, b1 of n-tiles n and n + 1.
      const uint16_t* v_lane = v_tile + ((lane & 7) + ((lane >> 3) & 1) * 8) * kStride + (lane >> 4) * 8;
#pragma unroll
      for (int n = 0; n < kDimTiles; n += 2) {
        uint32_t b[4];
        LdMatrixX4Trans(b[0], b[1], b[2], b[3], v_lane + n * 8);
#pragma unroll
        for (int t = 0; t < 2; ++t) {
          float(&acc)[4] = o[n + t];
          acc[0] *= corr_lo;
          acc[1] *= corr_lo;
          acc[2] *= corr_hi;
          acc[3] *= corr_hi;
          MmaBf16(acc, hi[0], hi[1], hi[2], hi[3], b[2 * t], b[2 * t + 1]);
          MmaBf16(acc, lo[0], lo[1], lo[2], lo[3], b[2 * t], b[2 * t + 1]);
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
  if (c == 0 && lo_valid) split.partial_lse[slot_lo] = l_lo > 0.f ? m_lo + log2f(l_lo) : -INFINITY;
  if (c == 0 && hi_valid) split.partial_lse[slot_hi] = l_hi > 0.f ? m_hi + log2f(l_hi) : -INFINITY;
}

int SplitsFor(int max_context) { return (max_context + kPrefillSplitKeys - 1) / kPrefillSplitKeys; }

size_t SplitBytes(int tokens, int num_q_heads, int head_dim, int splits) {
  const size_t slots = size_t(tokens) * num_q_heads * splits;
  return AlignToDevice(slots * head_dim * sizeof(float)) + AlignToDevice(slots * sizeof(float));
}

// The largest divisor of the GQA group up to kMaxWarps: the query heads one CTA serves.
int WarpsPerCta(int group) {
  for (int w = kMaxWarps; w > 1; --w) {
    if (group % w == 0) return w;
  }
  return 1;
}

template <int D>
cudaError_t Launch(const PrefillAttentionParams& p, const SplitOutput& split, cudaStream_t stream) {
  const int warps = WarpsPerCta(p.num_q_heads / p.num_kv_heads);
  const dim3 grid((p.tokens + kRows - 1) / kRows, p.num_q_heads / warps, split.num_splits), block(32 * warps);
  PrefillTcKernel<D><<<grid, block, kSmemBytes<D>, stream>>>(p, split);
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
