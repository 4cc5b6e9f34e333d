// The oracle of the W4A16 GEMM: dequantises a GPTQ checkpoint straight from its on-disk
// layout (never through vt's tile layout, so a repack bug cannot cancel out) and multiplies
// in float32.
#pragma once

#include <span>
#include <vector>

#include "kernels/w4a16/gptq_layout.h"

namespace vt::kernels::cpu {

// weight[k][n] = (q - 8) * bf16(scale): the values the GPU kernel computes with.
std::vector<float> DequantizeGptq(const GptqTensors& t);

// y[m][n] = sum_k x[m][k] * w[k][n], float32 accumulation, rows split over `threads`.
std::vector<float> MatmulReference(std::span<const float> x, std::span<const float> w, int m, int k, int n,
                                   int threads);

}  // namespace vt::kernels::cpu
