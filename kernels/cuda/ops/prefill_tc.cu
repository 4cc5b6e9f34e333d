#include "kernels/cuda/ops/prefill_tc.h"

#include <cuda_bf16.h>

#include <string>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"

namespace vt::kernels::cuda {
namespace {

using attention::kLog2e;
using attention::MmaBf16;
using attention::PackBf16x2;
using attention::SplitBf16x2;

constexpr int kRows = 16;  // query tokens per warp: the MMA's M
constexpr int kKeys = 16;  // keys per block: two n-tiles of S, one k-step of P.V

__device__ __forceinline__ uint32_t Load2(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
__device__ __forceinline__ uint32_t Pack2(uint16_t lo, uint16_t hi) { return uint32_t(lo) | (uint32_t(hi) << 16); }

// Fragment roles (lane = 4 q + c): rows q and q + 8 of the tile; S columns (keys) 2c, 2c + 1 of
// each 8-key n-tile; O columns 2c, 2c + 1 of each 8-wide n-tile of the head dimension.
template <int D>
__global__ void __launch_bounds__(32) PrefillTcKernel(PrefillAttentionParams p) {
  constexpr int kDimTiles = D / 8;
  constexpr int kKSteps = D / 16;
  const int lane = threadIdx.x, q = lane / 4, c = lane % 4;
  const int first = blockIdx.x * kRows, head = blockIdx.y;
  const int group = p.num_q_heads / p.num_kv_heads, kv_head = head / group;
  const int rows_valid = min(kRows, p.tokens - first);
  const int row_lo = first + q, row_hi = first + q + 8;  // this lane's two rows
  const bool lo_valid = q < rows_valid, hi_valid = q + 8 < rows_valid;
  const int pos_lo = lo_valid ? p.positions[row_lo] : -1, pos_hi = hi_valid ? p.positions[row_hi] : -1;
  const uint16_t* q_lo = p.q + (static_cast<int64_t>(lo_valid ? row_lo : first) * p.num_q_heads + head) * D;
  const uint16_t* q_hi = p.q + (static_cast<int64_t>(hi_valid ? row_hi : first) * p.num_q_heads + head) * D;

  float o[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  float m_lo = -INFINITY, m_hi = -INFINITY, l_lo = 0.f, l_hi = 0.f;
  const float scale_log2 = p.scale * kLog2e;  // exp(x) = exp2(x log2 e)

  // One pass per run of consecutive rows of one sequence; a row takes part in its own run's pass
  // only, and the pass reads keys up to the run's largest position.
  int run_start = 0;
  while (run_start < rows_valid) {
    const int seq = p.seq_of_token[first + run_start];
    int run_end = run_start + 1, last_key = p.positions[first + run_start];
    while (run_end < rows_valid && p.seq_of_token[first + run_end] == seq) {
      last_key = max(last_key, p.positions[first + run_end]);
      ++run_end;
    }
    const int32_t* table = p.block_tables + static_cast<int64_t>(seq) * p.max_blocks_per_seq;
    const bool in_lo = lo_valid && q >= run_start && q < run_end;
    const bool in_hi = hi_valid && q + 8 >= run_start && q + 8 < run_end;
    auto key_row = [&](const uint16_t* cache, int key) {
      const int64_t page = table[key / p.block_size];
      return cache + ((page * p.block_size + key % p.block_size) * p.num_kv_heads + kv_head) * D;
    };

    for (int kb = 0; kb <= last_key; kb += kKeys) {
      // S = Q . K^T for keys kb .. kb + 15 (keys past last_key read key last_key: masked below).
      float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      const uint16_t* k_rows[2] = {key_row(p.k_cache, min(kb + q, last_key)), key_row(p.k_cache, min(kb + 8 + q, last_key))};
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        const int d0 = ks * 16 + 2 * c;
        const uint32_t a0 = Load2(q_lo + d0), a1 = Load2(q_hi + d0), a2 = Load2(q_lo + d0 + 8), a3 = Load2(q_hi + d0 + 8);
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) MmaBf16(s[nt], a0, a1, a2, a3, Load2(k_rows[nt] + d0), Load2(k_rows[nt] + d0 + 8));
      }
      // Causal and run masks, then the online softmax of rows q (lo) and q + 8 (hi).
      float block_lo = -INFINITY, block_hi = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int key = kb + nt * 8 + 2 * c + j;
          s[nt][j] = (in_lo && key <= pos_lo) ? s[nt][j] * scale_log2 : -INFINITY;
          s[nt][2 + j] = (in_hi && key <= pos_hi) ? s[nt][2 + j] * scale_log2 : -INFINITY;
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
      const uint16_t* v_rows[4] = {key_row(p.v_cache, min(kb + 2 * c, last_key)),
                                   key_row(p.v_cache, min(kb + 2 * c + 1, last_key)),
                                   key_row(p.v_cache, min(kb + 2 * c + 8, last_key)),
                                   key_row(p.v_cache, min(kb + 2 * c + 9, last_key))};
#pragma unroll
      for (int n = 0; n < kDimTiles; ++n) {
        o[n][0] *= corr_lo;
        o[n][1] *= corr_lo;
        o[n][2] *= corr_hi;
        o[n][3] *= corr_hi;
        const int d = n * 8 + q;  // B column n of the V tile is head dimension d
        const uint32_t b0 = Pack2(v_rows[0][d], v_rows[1][d]), b1 = Pack2(v_rows[2][d], v_rows[3][d]);
        MmaBf16(o[n], hi[0], hi[1], hi[2], hi[3], b0, b1);
        MmaBf16(o[n], lo[0], lo[1], lo[2], lo[3], b0, b1);
      }
    }
    run_start = run_end;
  }

  const float inv_lo = l_lo > 0.f ? 1.f / l_lo : 0.f, inv_hi = l_hi > 0.f ? 1.f / l_hi : 0.f;
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
}

}  // namespace

Status RunPrefillAttentionTensorCore(const PrefillAttentionParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return Status::Ok();
  if (p.num_kv_heads <= 0 || p.num_q_heads % p.num_kv_heads != 0) {
    return InvalidArgument("tensor-core prefill: query heads must be a multiple of KV heads");
  }
  const dim3 grid((p.tokens + kRows - 1) / kRows, p.num_q_heads), block(32);
  switch (p.head_dim) {
    case 64: PrefillTcKernel<64><<<grid, block, 0, stream>>>(p); break;
    case 128: PrefillTcKernel<128><<<grid, block, 0, stream>>>(p); break;
    case 256: PrefillTcKernel<256><<<grid, block, 0, stream>>>(p); break;
    default: return Unimplemented("tensor-core prefill: head_dim " + std::to_string(p.head_dim));
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("tensor-core prefill: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
