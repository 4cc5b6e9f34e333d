// The device body of the skinny GEMM (skinny_gemm.h): one CTA's dot products for 8 output columns
// of y[M, N] = x[M, K] . W[N, K]^T at M <= 8. SkinnyGemmKernel runs one tile a CTA; the fused decode
// MLP (decode_mlp.h) runs the same tiles inside one persistent kernel, so both give the same bits.
//
// A CTA's warps split K: warp w of `warps` takes a contiguous range of K chunks, so its unrolled
// loads stream 512 contiguous bytes of each weight row. Lane 4q + c loads eight consecutive K values
// (physical offset 8c) of weight row q (the MMA's B column q) and of input row q (A row q; A rows
// 8-15 are zero). The MMA's logical K order is a permutation of the physical one, the same for A
// and B, so the dot products are unchanged: the first MMA takes values 0-3 of each lane (pairs at
// logical 2c and 2c + 8), the second values 4-7. Rows q >= M multiply zeros. Partial sums meet in
// shared memory and are added in warp order.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/ops/skinny_gemm.h"

namespace vt::kernels::cuda::skinny {

constexpr int kTileCols = 8;   // output columns per tile: the MMA's 8 B columns
constexpr int kChunk = 32;     // K per warp step: 4 lanes x 8 values, two MMAs
constexpr int kUnroll = 8;     // chunks a warp has in flight (8 KiB of weights)

struct alignas(16) Bf16x8 {
  uint32_t pair[4];  // eight bf16, two per word, the lower index in the low half
};

__device__ __forceinline__ Bf16x8 LoadStreaming(const uint16_t* p) {  // weights: read once a step
  const uint4 v = __ldcs(reinterpret_cast<const uint4*>(p));
  return Bf16x8{{v.x, v.y, v.z, v.w}};
}

__device__ __forceinline__ Bf16x8 Load(const uint16_t* p) {
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  return Bf16x8{{v.x, v.y, v.z, v.w}};
}

// An input load kept in program order among the MMAs' asm, so that all of a group's are in flight
// before its first MMA (with Load, ptxas gave the preloading kernel 64 registers: too few to hold a
// group's weights and inputs at once).
__device__ __forceinline__ Bf16x8 LoadInOrder(const uint16_t* p) {
  Bf16x8 v;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.pair[0]), "=r"(v.pair[1]), "=r"(v.pair[2]), "=r"(v.pair[3])
               : "l"(p));
  return v;
}

// K chunks each of `warps` warps sums (the last ones may have fewer, or none).
__host__ __device__ constexpr int ChunksPerWarp(int k, int warps) { return (k / kChunk + warps - 1) / warps; }

// The calling lane's share of the tile starting at column col0: its weight and input rows and the
// K chunks [first, last) of its warp, the CTA's K split over `warps` warps (warps past them get none).
struct LaneShare {
  const uint16_t* w_row;
  const uint16_t* x_row;
  bool has_row;
  int first, last;
};

__device__ __forceinline__ LaneShare ShareOf(const uint16_t* x, const uint16_t* weight, int m, int n, int k, int col0,
                                             int warps) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  LaneShare s;
  // Columns past N read the last real row and are not written.
  s.w_row = weight + static_cast<int64_t>(min(col0 + q, n - 1)) * k + 8 * c;
  s.has_row = q < m;
  s.x_row = x + static_cast<int64_t>(s.has_row ? q : 0) * k + 8 * c;
  const int per_warp = ChunksPerWarp(k, warps);
  s.first = warp * per_warp;
  s.last = min(s.first + per_warp, k / kChunk);
  return s;
}

// The weights of chunks [base, base + kUnroll) of the share, as far as it reaches.
__device__ __forceinline__ void LoadWeights(Bf16x8 (&b)[kUnroll], const LaneShare& s, int base) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (base + u < s.last) b[u] = LoadStreaming(s.w_row + (base + u) * kChunk);
  }
}

// acc += the products of chunks [base, base + kUnroll) of the share, as far as it reaches, from
// their inputs `a` and weights `b`, in chunk order.
__device__ __forceinline__ void MultiplyGroup(float (&acc)[4], const LaneShare& s, const Bf16x8 (&a)[kUnroll],
                                              const Bf16x8 (&b)[kUnroll], int base) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (base + u < s.last) {
      attention::MmaBf16(acc, a[u].pair[0], 0u, a[u].pair[1], 0u, b[u].pair[0], b[u].pair[1]);
      attention::MmaBf16(acc, a[u].pair[2], 0u, a[u].pair[3], 0u, b[u].pair[2], b[u].pair[3]);
    }
  }
}

// acc += the share's products. With `preloaded`, `b` already holds the first group's weights
// (LoadWeights(b, s, s.first)), issued before something the inputs had to wait for.
__device__ __forceinline__ void AccumulateShare(float (&acc)[4], const LaneShare& s, Bf16x8 (&b)[kUnroll],
                                                bool preloaded) {
  for (int base = s.first; base < s.last; base += kUnroll) {
    if (!preloaded || base != s.first) LoadWeights(b, s, base);
    Bf16x8 a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      a[u] = Bf16x8{};
      if (base + u < s.last && s.has_row) a[u] = Load(s.x_row + (base + u) * kChunk);
    }
    MultiplyGroup(acc, s, a, b, base);
  }
}

// acc += the products of a share that is one group, whose weights `b` already holds: the same sums
// as AccumulateShare's, with every input load issued before the first MMA.
__device__ __forceinline__ void AccumulateOneGroupShare(float (&acc)[4], const LaneShare& s,
                                                        const Bf16x8 (&b)[kUnroll]) {
  Bf16x8 a[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    a[u] = Bf16x8{};
    if (s.first + u < s.last && s.has_row) a[u] = LoadInOrder(s.x_row + (s.first + u) * kChunk);
  }
  MultiplyGroup(acc, s, a, b, s.first);
}

template <int Warps>
using Partials = float[Warps][kSkinnyMaxRows][kTileCols];

// acc: c0, c1 = (input row q, columns 2c, 2c + 1); c2, c3 belong to the zero rows 8-15.
template <int Warps>
__device__ __forceinline__ void StorePartials(Partials<Warps>& partial, const float (&acc)[4]) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  partial[warp][q][2 * c] = acc[0];
  partial[warp][q][2 * c + 1] = acc[1];
}

// Output (row, col) of the tile: the first `warps` warps' sums in warp order.
template <int Warps>
__device__ __forceinline__ float SumOfWarps(const Partials<Warps>& partial, int row, int col, int warps) {
  float s = 0.f;
  for (int w = 0; w < warps; ++w) s += partial[w][row][col];
  return s;
}

// A tile's end: the warps' partial sums meet in shared memory and each output (row, col) with
// row < m, the first `warps` warps' sums added in warp order, goes to write(row, col, sum) from the
// thread 8 * row + col. The caller syncs before it reuses `partial`.
template <int Warps, typename Write>
__device__ __forceinline__ void FinishTile(Partials<Warps>& partial, const float (&acc)[4], int m, int warps,
                                           Write write) {
  StorePartials<Warps>(partial, acc);
  __syncthreads();
  if (threadIdx.x < m * kTileCols) {
    const int row = threadIdx.x / kTileCols, col = threadIdx.x % kTileCols;
    write(row, col, SumOfWarps<Warps>(partial, row, col, warps));
  }
}

}  // namespace vt::kernels::cuda::skinny
