// bfloat16 storage shared by the CPU and CUDA backends: the upper 16 bits of an
// IEEE float32. Conversion rounds to nearest even, as the GPU's __float2bfloat16 does,
// so CPU references see exactly the bf16 values a kernel reads.
#pragma once

#include <cstdint>
#include <cstring>

namespace vt {

struct bf16 {
  uint16_t bits = 0;
};

inline float Bf16ToFloat(bf16 v) {
  uint32_t u = static_cast<uint32_t>(v.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline bf16 FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
    return bf16{static_cast<uint16_t>((u >> 16) | 0x0040u)};  // quiet NaN, sign kept
  }
  uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>((u + rounding) >> 16)};
}

// Rounds a float to the nearest bf16 value and back: what a bf16 tensor stores.
inline float RoundToBf16(float f) { return Bf16ToFloat(FloatToBf16(f)); }

}  // namespace vt
