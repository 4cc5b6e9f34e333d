// What the W4A16 GEMM's forms share (internal to kernels/cuda/w4a16): the launch arguments, the
// int4 dequantisation of the tile layout's 32-bit words, the streaming weight load, the output store
// and the K-slice reduction.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/w4a16/w4a16_gemm.h"

namespace vt::kernels::cuda {

struct W4A16LaunchParams {
  W4A16Problem p;
  int k_slice;
  int slices;
  float* partial;  // [slices, m, n] when slices > 1
};

// Four bf16x2 registers holding (128 + q) for the eight nibbles of `w` (bf16 128.0 is the magic
// number whose ulp is 1.0): register j holds nibbles j (low half) and j + 4 (high half), the B
// fragments of mma.m16n8k16 in the order kernels/w4a16/gptq_layout.h documents. The stacked form
// feeds these to its MMA as they are and adds the -8 bias by one more MMA against a constant -136
// matrix, an issued instruction instead of four.
__device__ __forceinline__ void DequantWordBiased(uint32_t w, uint32_t (&r)[4]) {
  constexpr uint32_t kMask = 0x000f000f, kMagic = 0x43004300;  // bf16 128.0 in both halves
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(r[j]) : "r"(w >> (4 * j)), "n"(kMask), "n"(kMagic));
  }
}

// The same registers holding (q - 8), exactly.
__device__ __forceinline__ void DequantWord(uint32_t w, uint32_t (&r)[4]) {
  DequantWordBiased(w, r);
  const __nv_bfloat162 bias = __halves2bfloat162(__float2bfloat16(136.f), __float2bfloat16(136.f));
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __nv_bfloat162 h = *reinterpret_cast<__nv_bfloat162*>(&r[j]);
    h = __hsub2(h, bias);  // exact: 128 + q - 136 = q - 8
    r[j] = *reinterpret_cast<uint32_t*>(&h);
  }
}

// Two bf16 products in one instruction, operands and result as bf16x2 bit patterns.
__device__ __forceinline__ uint32_t MulBf16x2(uint32_t a, uint32_t b) {
  __nv_bfloat162 r = __hmul2(*reinterpret_cast<__nv_bfloat162*>(&a), *reinterpret_cast<__nv_bfloat162*>(&b));
  return *reinterpret_cast<uint32_t*>(&r);
}

// Every weight byte is read once per call: stream it past L1 with an evict-first hint.
__device__ __forceinline__ uint4 LoadStreaming(const uint4* p) { return __ldcs(p); }

// Stores the accumulator pair of (row, col) and (row, col + 1): bf16 into y when K is unsplit, else
// fp32 into this slice's partial sums.
__device__ __forceinline__ void StoreW4A16Pair(const W4A16LaunchParams& g, int slice, int row, int col, float v0,
                                               float v1) {
  if (g.slices == 1) {
    *reinterpret_cast<uint32_t*>(g.p.y + static_cast<size_t>(row) * g.p.n + col) = attention::PackBf16x2(v0, v1);
  } else {
    float* dst = g.partial + (static_cast<size_t>(slice) * g.p.m + row) * g.p.n + col;
    *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
  }
}

// Adds the K slices' fp32 partial sums in slice order and writes bf16 (launch-only).
cudaError_t ReduceW4A16Slices(const float* partial, uint16_t* y, size_t elements, int slices, cudaStream_t stream);

// The stacked form (w4a16_stack.cu): its split for a shape, its shared memory, the most of it a launch
// may use (with its 4 KB of static reduction space within the 48 KB a launch may use without opting
// in, and four CTAs to an SM) and its launch.
inline constexpr size_t kW4A16StackSmemLimit = 44 * 1024;
W4A16Split ChooseW4A16StackSplit(int m, int k, int n, int num_sms);
size_t W4A16StackSmemBytes(int m, int k_slice);
cudaError_t LaunchW4A16Stack(const W4A16LaunchParams& g, cudaStream_t stream);

// The tiled form (w4a16_tile.cu): its split for a shape, its shared memory and its launch.
W4A16Split ChooseW4A16TileSplit(int m, int k, int n, int num_sms);
size_t W4A16TileSmemBytes(int m);
cudaError_t LaunchW4A16Tile(const W4A16LaunchParams& g, cudaStream_t stream);

}  // namespace vt::kernels::cuda
