// The element-wise and row-wise ops of a decoder forward on the GPU (the first pieces of the
// CUDA backend, issue #10): bf16 activations in memory, float32 arithmetic, matching the
// float32 CPU ops in kernels/cpu/ up to the bf16 rounding of their outputs. Launch-only (no
// allocation, no synchronisation), so they can be captured in CUDA graphs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

// out[i, :] = table[ids[i] - first_id, :]; ids outside [first_id, first_id + vocab) give zero rows
// (a tensor-parallel rank holds the vocabulary rows from first_id, and the ranks' rows are summed).
Status EmbeddingLookup(const int32_t* ids, int n, const uint16_t* table, int vocab, int hidden, uint16_t* out,
                       cudaStream_t stream, int first_id = 0);

// Fused residual add and RMSNorm, as HF Llama/Qwen layers chain them: when `x` is given,
// residual += x first (in place, rounded to bf16 like HF's bf16 residual stream); then
// out = residual * rsqrt(mean(residual^2) + eps) * weight.
Status AddRmsNorm(const uint16_t* x, uint16_t* residual, const uint16_t* weight, int rows, int dim, float eps,
                  uint16_t* out, cudaStream_t stream);

// Rotary embedding in HF's rotate-half layout, in place on x [n, heads, head_dim], row i at
// positions[i], with inv_freq [head_dim / 2] (the default or llama3 schedule, precomputed).
Status ApplyRope(uint16_t* x, const int32_t* positions, const float* inv_freq, int n, int heads, int head_dim,
                 cudaStream_t stream);

// out[r, :] = silu(gate_up[r, :inter]) * gate_up[r, inter:], the fused gate/up projection's layout.
Status SiluMul(const uint16_t* gate_up, int rows, int inter, uint16_t* out, cudaStream_t stream);

}  // namespace vt::kernels::cuda
