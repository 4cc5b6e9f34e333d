// The W4A16 tiled form on Hopper's warpgroup MMAs (sm_90a; vt runs it from M = 9 where the device
// is an H100 or H200).
//
// The same CTAs, K split, weight stream and activation stages as the tiled form (w4a16_tile.cu):
// four warps own 128 output columns over one K slice, stream their weights from global memory into
// registers several 64-row steps ahead and stage up to 64 activation rows in 64-k stages (cp.async,
// four deep, 16-byte chunks swizzled by row). What changes is the product. The tiled form runs the
// activations as the MMA's A operand (ldmatrix, one m16n8k16 MMA per 16 rows, 8 columns and k16:
// 64 MMAs and 16 ldmatrix a warp per step at 64 rows, and ncu found it latency-bound there). Here the
// weights are A: a dequantised 16-column block of the tile layout is, reordered, one warp's A
// fragment of a wgmma (rows = columns of W), so the warpgroup issues one m64 x (rows) x k16 wgmma per
// block and k16 step with the activations read by the tensor cores straight from the swizzled stage:
// 8 instructions a step at any row count. The accumulators hold y transposed (W column x activation
// row); each thread writes its own elements.
#include <cuda_bf16.h>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/wgmma.cuh"
#include "kernels/cuda/w4a16/w4a16_common.cuh"
#include "kernels/cuda/w4a16/w4a16_tile_streams.cuh"

namespace vt::kernels::cuda {
namespace {

using attention::CpAsyncCommit;
using attention::CpAsyncWait;

using w4a16_tile::kBlocksPerWarp;
using w4a16_tile::kStages;
using w4a16_tile::kStepK;
using w4a16_tile::kTileCols;
using w4a16_tile::kWarps;  // one warpgroup

// The tiled form's CTAs per SM (w4a16_tile.cu), so that its split model holds, and the most weight
// steps in flight a warp that ptxas fits in the registers that leaves without spilling (121 / 116 /
// 156 / 168 registers at 16 / 32 / 48 / 64 rows).
inline constexpr int CtasPerSm(int rows) { return rows >= 48 ? 3 : 4; }
template <int kRows>
inline constexpr int kWeightDepth = kRows == 16 ? 5 : kRows == 32 ? 3 : 4;

template <int kRows>
__global__ void __launch_bounds__(kWarps * 32, CtasPerSm(kRows)) W4A16WgmmaKernel(W4A16LaunchParams g) {
  constexpr int kStageElems = kRows * kStepK;
  constexpr int kDepth = kWeightDepth<kRows>;
  const W4A16Problem& p = g.p;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  uint16_t* a_s = SwizzleAlignedShared(smem_raw);  // [kStages][kRows][64], wgmma's 128-byte swizzle
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q = lane / 4, c = lane % 4;
  const int slice = blockIdx.y;
  const int nb0 = blockIdx.x * (kTileCols / 16) + warp * kBlocksPerWarp;  // this warp's first block
  // N is a multiple of 64, so a warp's two blocks are both in range or both past it. A warp past it
  // multiplies zeros: every warp of the warpgroup takes part in each wgmma.
  const bool active = nb0 < p.n / 16;

  const w4a16_tile::Streams<kRows> streams(g, nb0);
  const int iters = min(g.k_slice, p.k - streams.k_begin) / kStepK;

  uint4 wbuf[kDepth][kBlocksPerWarp];
  uint32_t sbuf[kDepth][kBlocksPerWarp];
#pragma unroll
  for (int u = 0; u < kDepth; ++u) {
    if (active && u < iters) streams.LoadStep(u, wbuf[u], sbuf[u]);
  }
  AwaitPrecedingGrid();  // the activations are the output of the kernel before
#pragma unroll
  for (int st = 0; st < kStages - 1; ++st) {
    if (st < iters) streams.StageActivations(a_s, st);
    CpAsyncCommit();
  }

  float acc[kBlocksPerWarp][kRows / 8][4] = {};
  for (int base = 0; base < iters; base += kDepth) {
#pragma unroll
    for (int u = 0; u < kDepth; ++u) {
      const int it = base + u;
      if (it < iters) {
        CpAsyncWait<kStages - 2>();
        FenceProxyAsyncShared();  // this thread's copies of the stage, visible to the wgmma reads
        __syncthreads();          // stage it landed for all; stage it - 1 is free to refill
        if (it + kStages - 1 < iters) streams.StageActivations(a_s, it + kStages - 1);
        CpAsyncCommit();
        uint4 cur[kBlocksPerWarp] = {};
        uint32_t s_lo[kBlocksPerWarp] = {}, s_hi[kBlocksPerWarp] = {};
        if (active) {
#pragma unroll
          for (int b = 0; b < kBlocksPerWarp; ++b) {
            cur[b] = wbuf[u][b];
            s_lo[b] = __byte_perm(sbuf[u][b], 0, 0x1010);
            s_hi[b] = __byte_perm(sbuf[u][b], 0, 0x3232);
          }
          if (it + kDepth < iters) streams.LoadStep(it + kDepth, wbuf[u], sbuf[u]);
        }
        const uint64_t stage = SwizzledTileDescriptor(a_s + (it % kStages) * kStageElems);
        // a[s % 2][b]: block b's k16 step s as the A fragment of rows (W columns) q and q + 8. Two
        // sets: step s dequantises while the wgmmas of step s - 1 run, and waits only for those of
        // step s - 2 before it overwrites their set.
        uint32_t a[2][kBlocksPerWarp][4] = {};
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          uint32_t(&frag)[kBlocksPerWarp][4] = a[s % 2];
          if (active) {
#pragma unroll
            for (int b = 0; b < kBlocksPerWarp; ++b) {
              const uint32_t word = s == 0 ? cur[b].x : s == 1 ? cur[b].y : s == 2 ? cur[b].z : cur[b].w;
              uint32_t w[4];
              DequantWord(word, w);
              frag[b][0] = MulBf16x2(w[0], s_lo[b]);
              frag[b][1] = MulBf16x2(w[2], s_hi[b]);
              frag[b][2] = MulBf16x2(w[1], s_lo[b]);
              frag[b][3] = MulBf16x2(w[3], s_hi[b]);
            }
          }
          WgmmaFenceOperands(frag);
          WgmmaFence();
#pragma unroll
          for (int b = 0; b < kBlocksPerWarp; ++b) {
            WgmmaBf16RegA<kRows>(acc[b], frag[b], DescriptorAdvance(stage, 32 * s), true);
          }
          WgmmaCommit();
          WgmmaWait<1>();
          WgmmaFenceOperands(a[(s + 1) % 2]);  // held until step s - 1's wgmmas are done with them
        }
        WgmmaWait<0>();  // before the stage is refilled and the fragments' registers reused
        WgmmaFenceOperands(a[1]);
#pragma unroll
        for (int b = 0; b < kBlocksPerWarp; ++b) WgmmaFenceOperands(acc[b]);
      }
    }
  }
  CpAsyncWait<0>();
  if (!active) return;

  // acc[b][j][e]: W column (nb0 + b) * 16 + q (+ 8 for e >= 2), activation row 8j + 2c (+ 1 for odd e).
#pragma unroll
  for (int b = 0; b < kBlocksPerWarp; ++b) {
#pragma unroll
    for (int j = 0; j < kRows / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = streams.row0 + 8 * j + 2 * c + (e & 1), col = (nb0 + b) * 16 + q + (e >= 2 ? 8 : 0);
        if (row >= p.m) continue;
        if (g.slices == 1) {
          p.y[static_cast<size_t>(row) * p.n + col] = __bfloat16_as_ushort(__float2bfloat16_rn(acc[b][j][e]));
        } else {
          g.partial[(static_cast<size_t>(slice) * p.m + row) * p.n + col] = acc[b][j][e];
        }
      }
    }
  }
}

template <int kRows>
cudaError_t Launch(const W4A16LaunchParams& g, cudaStream_t stream) {
  const dim3 grid((g.p.n + kTileCols - 1) / kTileCols, g.slices, (g.p.m + kRows - 1) / kRows);
  const size_t smem = size_t(kStages) * kRows * kStepK * sizeof(uint16_t) + kSwizzleAlign;
  return LaunchDependent(W4A16WgmmaKernel<kRows>, grid, dim3(kWarps * 32), smem, stream, g);
}

}  // namespace

cudaError_t LaunchW4A16TileWgmma(const W4A16LaunchParams& g, cudaStream_t stream) {
  const int m = g.p.m;
  if (m <= 16) return Launch<16>(g, stream);
  if (m <= 32) return Launch<32>(g, stream);
  if (m <= 48) return Launch<48>(g, stream);
  return Launch<64>(g, stream);
}

}  // namespace vt::kernels::cuda
