// The element steps of HF's bf16 residual add and RMSNorm, shared by the row kernel (AddRmsNorm)
// and the skinny GEMM's fused prologue so the two give the same bits.
#pragma once

#include <cstdint>

#include "kernels/cuda/bf16.cuh"

namespace vt::kernels::cuda {

// Values per thread of the row kernel: its block has dim / 8 threads, each summing the squares of
// its eight values in order before the block's sum (warp shuffles, then the warps in order).
inline constexpr int kNormValuesPerThread = 8;

// As HF's bf16 RMSNorm: the normalised value is rounded to bf16 before the weight multiply.
__device__ __forceinline__ uint16_t NormScale(float r, float inv_rms, uint16_t weight) {
  return FloatToBf16Bits(RoundToBf16(r * inv_rms) * Bf16BitsToFloat(weight));
}

// The residual add in HF's bf16 stream: the sum is stored rounded and used rounded.
__device__ __forceinline__ float AddRounded(uint16_t residual, uint16_t x, uint16_t* stored) {
  *stored = FloatToBf16Bits(Bf16BitsToFloat(residual) + Bf16BitsToFloat(x));
  return Bf16BitsToFloat(*stored);
}

// A warp's sum of one float per lane, every lane getting it (the row kernel's order).
__device__ __forceinline__ float WarpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

}  // namespace vt::kernels::cuda
