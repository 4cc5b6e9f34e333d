// bf16 linear layers for decode steps: y[M, N] = x[M, K] . W[N, K]^T (Hugging Face's nn.Linear
// layout) for M <= 8 rows, fp32 accumulation, one bf16 rounding. At these M a linear layer is a
// stream over W; cuBLAS reaches 50-75% of the copy bandwidth there with a split-K kernel plus a
// reduce kernel. This one keeps eight 16-byte weight loads per lane in flight and lets tensor
// cores do the arithmetic (the M rows as the MMA's A operand, eight weight rows as its B
// columns), so it stays a stream at M = 8 too, where CUDA-core FMAs would be the limit.
//
// Each output element's sum runs in the same order whatever M is, so a row gets the same bits
// alone and in a batch of eight (batch invariance across graph buckets).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"
#include "kernels/gate_up_layout.h"

namespace vt::kernels::cuda {

inline constexpr int kSkinnyMaxRows = 8;

// Whether SkinnyLinear takes this shape: 1 <= m <= 8, k a multiple of 32, x, W and y 16-byte aligned.
bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y);

Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    cudaStream_t stream);

// The residual add and RMSNorm of a decoder layer, done at the start of the GEMM that reads their
// output (a kernel fewer per norm in decode steps): x = RMSNorm(residual + delta) * weight, the bits
// AddRmsNorm would write, built by every CTA for itself; CTA 0 also stores residual + delta (or a
// copy of residual when delta is null) to residual_out, which must not alias residual.
struct SkinnyNormedInput {
  const uint16_t* residual = nullptr;  // [M, K]
  const uint16_t* delta = nullptr;     // [M, K] or null
  const uint16_t* weight = nullptr;    // [K]
  float eps = 0.f;
  uint16_t* residual_out = nullptr;    // [M, K]
};

// The largest K the normed kernels take (their M rows live in shared memory).
inline constexpr int kSkinnyNormMaxK = 8192;

bool SkinnyNormSupports(const SkinnyNormedInput& in, const uint16_t* weight, int m, int k, const uint16_t* y);

// y = RMSNorm(residual + delta) . W^T, as AddRmsNorm followed by SkinnyLinear, bit for bit.
Status SkinnyNormedLinear(const SkinnyNormedInput& in, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                          cudaStream_t stream);
// act = silu(gate) * up of RMSNorm(residual + delta) . gate_up^T (interleaved), as AddRmsNorm followed
// by SkinnyLinearSiluMul.
Status SkinnyNormedLinearSiluMul(const SkinnyNormedInput& in, const uint16_t* gate_up, int m, int inter, int k,
                                 uint16_t* act, cudaStream_t stream);

// act[M, inter] = silu(gate) * up of x . gate_up^T, with gate_up [2 inter, K] in the interleaved
// layout (kernels/gate_up_layout.h): the same bits as SkinnyLinear followed by SiluMul, one kernel.
Status SkinnyLinearSiluMul(const uint16_t* x, const uint16_t* gate_up, int m, int inter, int k, uint16_t* act,
                           cudaStream_t stream);

}  // namespace vt::kernels::cuda
