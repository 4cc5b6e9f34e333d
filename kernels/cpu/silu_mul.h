// The SwiGLU gate of the MLP: out = silu(gate) * up.
#pragma once

#include <cstdint>

namespace vt::kernels::cpu {

void SiluMul(const float* gate, const float* up, int64_t n, float* out);

}  // namespace vt::kernels::cpu
