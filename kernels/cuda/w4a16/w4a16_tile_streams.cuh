// What the W4A16 tiled form's two builds share (w4a16_tile.cu on warp MMAs, w4a16_wgmma.cu on
// warpgroup MMAs; internal to kernels/cuda/w4a16): the CTA's shape and its two streams. A CTA of four
// warps owns 128 output columns over one K slice; each warp streams its two 16-column blocks' weights
// (one 16-byte load a lane and block per 64-k step) and their scales into registers, and the CTA stages
// up to 64 activation rows through shared memory in 64-k stages, four deep, each row's 16-byte chunks
// XOR-swizzled by row (what ldmatrix reads without bank conflicts, and wgmma's 128-byte swizzle).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/w4a16/w4a16_common.cuh"

namespace vt::kernels::cuda::w4a16_tile {

constexpr int kWarps = 4;
constexpr int kBlocksPerWarp = 2;                          // 16-column blocks of the tile layout
constexpr int kTileCols = kWarps * kBlocksPerWarp * 16;    // 128
constexpr int kStages = 4;                                 // activation stages of 64 k in shared memory
constexpr int kStepK = 64;                                 // one 16-byte weight load per lane and block

// The calling warp's streams in the CTA (blockIdx.x: 128-column tile, y: K slice, z: kRows-row
// block of the activations).
template <int kRows>
struct Streams {
  const W4A16Problem& p;
  int k_begin, row0;
  bool grouped;
  const uint4* wp[kBlocksPerWarp];
  const uint16_t* sp[kBlocksPerWarp];

  // nb0: the warp's first 16-column block.
  __device__ __forceinline__ Streams(const W4A16LaunchParams& g, int nb0)
      : p(g.p), k_begin(blockIdx.y * g.k_slice), row0(blockIdx.z * kRows), grouped(g.p.group_size != g.p.k) {
    const int lane = threadIdx.x % 32, q = lane / 4;
#pragma unroll
    for (int b = 0; b < kBlocksPerWarp; ++b) {
      wp[b] = reinterpret_cast<const uint4*>(p.packed) +
              (static_cast<size_t>(nb0 + b) * (p.k / kStepK) + k_begin / kStepK) * 32 + lane;
      sp[b] = p.scales + (nb0 + b) * 16 + q;
    }
  }

  // A step's weights and the scales of its columns q and q + 8 (low and high half).
  __device__ __forceinline__ void LoadStep(int step, uint4 (&w)[kBlocksPerWarp], uint32_t (&s)[kBlocksPerWarp]) const {
    const size_t scale_row = grouped ? static_cast<size_t>(k_begin + step * kStepK) / 128 * p.n : 0;
#pragma unroll
    for (int b = 0; b < kBlocksPerWarp; ++b) {
      w[b] = LoadStreaming(wp[b] + step * 32);
      s[b] = uint32_t(__ldg(sp[b] + scale_row)) | uint32_t(__ldg(sp[b] + scale_row + 8)) << 16;
    }
  }

  // The whole CTA's copies of step `step`'s activations into its stage of `a_s` ([kStages][kRows][64]),
  // rows past M zero.
  __device__ __forceinline__ void StageActivations(uint16_t* a_s, int step) const {
    uint16_t* stage = a_s + (step % kStages) * kRows * kStepK;
    const int k0 = k_begin + step * kStepK;
    for (int i = threadIdx.x; i < kRows * 8; i += kWarps * 32) {
      const int r = i / 8, chunk = i % 8;
      const bool valid = row0 + r < p.m;
      const uint16_t* src = p.x + static_cast<size_t>(valid ? row0 + r : 0) * p.k + k0 + chunk * 8;
      attention::CpAsync16(stage + r * kStepK + ((chunk ^ (r & 7)) * 8), src, valid);
    }
  }
};

}  // namespace vt::kernels::cuda::w4a16_tile
