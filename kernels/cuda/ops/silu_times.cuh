// The MLP's activation on bf16 storage, shared by the SiLU·mul kernel and the fused decode MLP so
// both give the same bits.
#pragma once

#include <cstdint>

#include "kernels/cuda/bf16.cuh"

namespace vt::kernels::cuda {

// As HF's bf16 MLP: silu(gate) is a bf16 tensor before it multiplies up.
__device__ __forceinline__ uint16_t SiluTimes(uint16_t gate, uint16_t up) {
  const float g = Bf16BitsToFloat(gate);
  return FloatToBf16Bits(RoundToBf16(g / (1.f + expf(-g))) * Bf16BitsToFloat(up));
}

}  // namespace vt::kernels::cuda
