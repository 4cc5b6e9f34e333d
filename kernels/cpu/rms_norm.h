// RMSNorm as HF Llama/Qwen compute it: x * rsqrt(mean(x²) + eps) * weight,
// in float32.
#pragma once

#include <cstdint>

namespace vt::kernels::cpu {

// Normalises each of `rows` rows of width `dim` from in to out (may alias).
void RmsNorm(const float* in, const float* weight, int64_t rows, int64_t dim, float eps, float* out);

}  // namespace vt::kernels::cpu
