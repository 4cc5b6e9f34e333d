// bf16 <-> float on the device, for kernels that keep bf16 as raw 16-bit storage (the bits the
// CPU's kernels/bf16.h writes). Rounding is to nearest even, as FloatToBf16 on the host.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace vt::kernels::cuda {

__device__ __forceinline__ float Bf16BitsToFloat(uint32_t bits16) { return __uint_as_float(bits16 << 16); }

__device__ __forceinline__ uint16_t FloatToBf16Bits(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }

// What storing f as bf16 and reading it back gives.
__device__ __forceinline__ float RoundToBf16(float f) { return Bf16BitsToFloat(FloatToBf16Bits(f)); }

// Eight bf16 values, one 16-byte load or store: the row kernels' unit. A decode step's rows are short,
// so those kernels are latency-bound and every element a thread loads must be in flight at once.
constexpr int kBf16Vec = 8;
struct alignas(16) Bf16x8 {
  uint16_t v[kBf16Vec];
};

}  // namespace vt::kernels::cuda
