#include "kernels/cuda/ops/prefill_tc.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/ops/prefill_tc_common.cuh"
#include "kernels/cuda/ops/prefill_wgmma.h"
#include "kernels/cuda/per_device.h"
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

using prefill::CtaShape;
using prefill::kWarpsPerCta;
using prefill::LaneRows;
using prefill::SplitOutput;
using prefill::WarpMax;

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
  const prefill::WarpTile tile = prefill::LocateWarp(p, shape, warp, q);
  const int split_index = blockIdx.z;
  LaneRows rows = prefill::RowsAt(p, tile);
  uint32_t qa[kKSteps][4];  // the queries' A fragments, loaded once
  prefill::LoadQueryFragments<D>(p, tile, c, qa);

  float o[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  const float scale_log2 = p.scale * kLog2e;  // exp(x) = exp2(x log2 e)
  // The tile loads' fixed parts: this thread's piece and first row, and element strides.
  constexpr int kRowsPerPass = 32 * kWarpsPerCta / kPiecesPerRow;
  const int piece = threadIdx.x % kPiecesPerRow, row0 = threadIdx.x / kPiecesPerRow;
  const int key_elems = p.num_kv_heads * D, page_elems = p.block_size * key_elems;
  const int in_row = tile.kv_head * D + piece * 8;
  const uint16_t* k_lane_base = smem + ((lane >> 4) * 8 + (lane & 7)) * kStride + ((lane >> 3) & 1) * 8;
  const uint16_t* v_lane_base = smem + kTile + ((lane & 7) + ((lane >> 3) & 1) * 8) * kStride + (lane >> 4) * 8;

  // One pass per run of consecutive rows of one sequence; a row takes part in its own run's pass
  // only, and the pass reads keys up to the run's largest position (within this CTA's split). Runs
  // and key ranges are uniform across the CTA; a warp skips the tiles past its own rows' keys.
  // Tile boundaries are absolute key positions, so a row's result depends only on its own keys.
  for (int run_start = 0; run_start < tile.cta_rows;) {
    const prefill::Run run = prefill::FindRun(p, tile, split, run_start, split_index, kPrefillSplitKeys);
    const int k_begin = run.k_begin, k_end = run.k_end;
    const int32_t* table = p.block_tables + static_cast<int64_t>(run.seq) * p.max_blocks_per_seq;
    prefill::EnterRun(rows, tile, q, run_start, run.end);
    // The warp's last key of this run (-1: no row of the warp is in it).
    const int warp_last =
        static_cast<int>(WarpMax(float(max(rows.in_lo ? rows.pos_lo : -1, rows.in_hi ? rows.pos_hi : -1))));
    const int warp_unmasked = prefill::WarpUnmaskedUpTo(rows);

    // Keys kb .. kb + kTileKeys - 1 of K and V into buffer `buffer` (keys past the range repeat its
    // last key: masked below). A thread keeps one 16-byte piece of a row and walks every
    // kRowsPerPass-th row: one page lookup per row for both K and V, 64-bit math once per row.
    auto load_tile = [&](int buffer, int kb) {
      uint16_t* dst = smem + buffer * 2 * kTile + row0 * kStride + piece * 8;
#pragma unroll
      for (int j = 0; j < kTileKeys / kRowsPerPass; ++j) {
        const int key = min(kb + row0 + j * kRowsPerPass, k_end - 1);
        const int64_t at = prefill::KeyOffset(p, shape, table, key, key_elems, page_elems, in_row);
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
        uint32_t pa[kKeyTiles][2];
        float corr_lo, corr_hi;
        prefill::SoftmaxTile<kKeyTiles>(s, pa, rows, kb + kTileKeys > k_end || kb + kTileKeys - 1 > warp_unmasked,
                                        kb, k_end, c, scale_log2, corr_lo, corr_hi);
        prefill::RescaleRows<kDimTiles>(o, corr_lo, corr_hi);

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
    run_start = run.end;
  }

  prefill::StoreRows<D>(p, split, o, rows, tile, split_index, c, scale_log2);
}

int SplitsFor(int max_context) { return (max_context + kPrefillSplitKeys - 1) / kPrefillSplitKeys; }

size_t SplitBytes(int tokens, int num_q_heads, int head_dim, int splits) {
  const size_t slots = size_t(tokens) * num_q_heads * splits;
  return AlignToDevice(slots * head_dim * sizeof(float)) + AlignToDevice(slots * sizeof(float));
}

template <int D>
cudaError_t Launch(const PrefillAttentionParams& p, const SplitOutput& split, cudaStream_t stream) {
  const CtaShape shape = prefill::ShapeFor(p.num_q_heads / p.num_kv_heads, p.block_size);
  const dim3 grid = prefill::GridFor(p, shape, split);
  const dim3 block(32 * kWarpsPerCta);
  const cudaError_t err = AllowDynamicSharedMemory<PrefillTcKernel<D>, kSmemBytes<D>>();
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

bool PrefillUsesWarpgroupMmas(PrefillMma mma, int head_dim) {
  return mma == PrefillMma::kAuto && PrefillWgmmaSupported(head_dim);
}

Status RunPrefillAttentionTensorCore(const PrefillAttentionParams& p, void* workspace, size_t workspace_bytes,
                                     PrefillMma mma, cudaStream_t stream) {
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
  if (PrefillUsesWarpgroupMmas(mma, p.head_dim)) {
    err = LaunchPrefillWgmma(p, split, stream);
  } else {
    switch (p.head_dim) {
      case 64: err = Launch<64>(p, split, stream); break;
      case 128: err = Launch<128>(p, split, stream); break;
      case 256: err = Launch<256>(p, split, stream); break;
      default: return Unimplemented("tensor-core prefill: head_dim " + std::to_string(p.head_dim));
    }
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
