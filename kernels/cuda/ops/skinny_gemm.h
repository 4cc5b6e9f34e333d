// bf16 linear layers for decode steps: y[M, N] = x[M, K] . W[N, K]^T (Hugging Face's nn.Linear
// layout) for M <= 8 rows, fp32 accumulation, one bf16 rounding. At these M a linear layer is a
// stream over W; cuBLAS reaches 50-75% of the copy bandwidth there with a split-K kernel plus a
// reduce kernel. This one keeps eight 16-byte weight loads per lane in flight and lets tensor
// cores do the arithmetic (the M rows as the MMA's A operand, eight weight rows as its B
// columns), so it stays a stream at M = 8 too, where CUDA-core FMAs would be the limit.
//
// Each output element's sum runs in the same order whatever M is, so a row gets the same bits
// alone and in a batch of eight (batch invariance across graph buckets).
//
// A CTA's warps split K (8 or 6 warps, each summing its range, then the warps added in order),
// chosen from N alone so the order never depends on M: 8, unless 6-warp CTAs (four an SM instead
// of three, the same warps an SM) take fewer waves where 8-warp ones take two or fewer. On an
// H200 a 4096-column output is 512 CTAs: 1.3 waves of 8-warp CTAs (396 slots), one of 6 (528).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

inline constexpr int kSkinnyMaxRows = 8;

// Where a dependently launched call issues its weight loads. kBeforeWait: where one group of loads
// (skinny_tile.cuh's kUnroll chunks) is a warp's whole share of K, it issues them before it waits for
// the kernel before it, so they stream while that kernel ends; any other shape, or a plain launch, runs
// as kAfterWait. The same loads and sums, so the same bits. Only for weights no kernel of the step
// writes (a model's dense weights, not the dequantised W4A16 scratch). Worth it only after a kernel
// that lets its successor launch early and has few loads of its own: after the RMSNorm the step was
// 1.4-1.7% slower (a reading, not measured: the norm's own loads wait behind the weights on their SMs;
// docs/BENCHMARKS.md, "The o_proj weights loaded before the wait").
enum class SkinnyWeights { kAfterWait, kBeforeWait };

// Whether SkinnyLinear takes this shape: 1 <= m <= 8, k a multiple of 32, x, W and y 16-byte aligned.
bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y);

Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    cudaStream_t stream, SkinnyWeights weights = SkinnyWeights::kAfterWait);

// Whether a dependently launched SkinnyLinear of a weight W[N, K] asked for kBeforeWait issues its
// weights before its wait (one group of loads a warp's whole share).
bool SkinnyLoadsWeightsBeforeWait(int n, int k);

// The warps a CTA SkinnyLinear runs for an N-column output on the current device (8 or 6).
int SkinnyLinearWarps(int n);

// CTAs of a form (8 or 6 warps) an SM holds on the current device; 0 when unknown. The forms are
// built for 3 and 4 (24 warps an SM at 80 registers a thread): a change that lets ptxas take fewer
// registers shows here as one CTA more, and costs loads in flight (an 8-warp form at 64 registers ran
// llama3-8b c = 1 at 180 tok/s on an H200 against 230; docs/BENCHMARKS.md "The next layer's weights").
// The kBeforeWait forms hold the same (ptxas: 72 registers, a group's weights and inputs all in flight).
int SkinnyCtasPerSm(int warps, SkinnyWeights weights = SkinnyWeights::kAfterWait);

// SkinnyLinear with `warps` (8 or 6) warps a CTA: each form's own bits; for tests and A/B runs.
Status SkinnyLinearWithWarps(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, int warps,
                             cudaStream_t stream, SkinnyWeights weights = SkinnyWeights::kAfterWait);

}  // namespace vt::kernels::cuda
